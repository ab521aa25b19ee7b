"""One table of bounds: ``tests/vectors/limits.json`` is ``game2048.limits`` (node --test binds the page)."""

import json
from pathlib import Path

from game2048 import limits
from game2048.rules import LETTERS, SIZES, TARGETS, UNDO_LETTER
from game2048.server.api import schemas

VECTORS = json.loads((Path(__file__).parent / "vectors" / "limits.json").read_text())


def test_the_committed_table_is_the_library_s():
    assert {k: v for k, v in VECTORS.items() if k != "about"} == limits.as_json()


def test_the_table_agrees_with_the_rules():
    assert VECTORS["sizes"] == list(SIZES) and {int(k): v for k, v in VECTORS["targets"].items()} == TARGETS
    assert VECTORS["alphabet"] == "".join(LETTERS.values()) + UNDO_LETTER


def test_the_api_schemas_take_their_bounds_from_the_table():
    size = schemas.RecordIn.model_json_schema()["properties"]["size"]
    assert (size["minimum"], size["maximum"]) == (min(SIZES), max(SIZES))
    seed = schemas.RecordIn.model_json_schema()["properties"]["seed"]
    assert seed["exclusiveMaximum"] == VECTORS["max_seed"]
    log = schemas.MovesIn.model_json_schema()["properties"]["moves"]
    assert log["maxLength"] == VECTORS["max_moves"]
    assert schemas.RecordIn.model_json_schema()["properties"]["log"]["maxLength"] == VECTORS["max_log"]
    name = schemas.FinishIn.model_json_schema()["properties"]["name"]
    assert str(VECTORS["name_max"]) in name["description"]
