"""Names: what is stored is what a page shows; invisible characters never make two names look alike.

The cases are ``tests/vectors/names.json``, which the page's tests read too
(``tests/js/names.test.mjs``): the page and the server clean a name the same way.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest

from game2048.server.records.names import (
    CODES,
    DEFAULT_IGNORABLE,
    NAME_MAX,
    RANKED_MARKS,
    REFUSED_CLASSES,
    BadName,
    char_class,
    clean_name,
    skeleton,
)

ROOT = Path(__file__).resolve().parents[3]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "names.json").read_text(encoding="utf-8"))
CASES = VECTORS["cases"]


def outcome(typed: str) -> dict[str, object]:
    try:
        return {"stored": clean_name(typed)}
    except BadName as exc:
        fields: dict[str, object] = dict(exc.fields)
        return {"refused": fields.pop("code"), **fields}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"])
def test_a_name_is_stored_or_refused_as_the_shared_vectors_say(case):
    want = {k: v for k, v in case.items() if k not in ("typed", "why")}
    assert outcome(case["typed"]) == want


def test_the_vectors_cover_every_refusal_and_the_limit_is_the_servers():
    assert VECTORS["name_max"] == NAME_MAX
    assert VECTORS["codes"] == list(CODES)
    assert {c["refused"] for c in CASES if "refused" in c} == set(CODES)
    assert sum("stored" in c for c in CASES) >= 30


@pytest.mark.parametrize("case", [c for c in CASES if "stored" in c], ids=lambda c: c["why"])
def test_a_stored_name_is_clean_already(case):
    stored = case["stored"]
    assert clean_name(stored) == stored
    assert unicodedata.normalize("NFKC", stored) == stored


def test_the_length_limit_counts_code_points_not_utf16_units():
    fox = "\U0001F98A"
    assert clean_name(fox * NAME_MAX) == fox * NAME_MAX  # 48 UTF-16 units
    with pytest.raises(BadName, match=f"at most {NAME_MAX}") as refused:
        clean_name(fox * (NAME_MAX + 1))
    assert refused.value.code == "name_too_long" and refused.value.length == NAME_MAX + 1


def test_every_default_ignorable_and_variation_selector_is_refused():
    for lo, hi in DEFAULT_IGNORABLE:
        for cp in (lo, hi):
            assert char_class(chr(cp)) in ("invisible", "bidi"), hex(cp)
    for cp in [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), *range(0x180B, 0x1810)]:
        assert char_class(chr(cp)) == "invisible", hex(cp)


def test_every_format_character_is_refused():
    for cp in range(0x110000):
        if unicodedata.category(chr(cp)) == "Cf":
            assert char_class(chr(cp)) in REFUSED_CLASSES, hex(cp)


@pytest.mark.parametrize("mark", sorted(RANKED_MARKS))
def test_a_check_mark_that_looks_like_the_ranked_mark_is_refused(mark):
    with pytest.raises(BadName) as refused:
        clean_name(f"Ada {mark}")
    assert refused.value.code == "name_ranked_mark"


def test_no_character_the_rule_keeps_becomes_a_refused_one_under_nfkc():
    # so the check after NFKC only guards a future Unicode, and no kept name changes class
    for cp in range(0x110000):
        ch = chr(cp)
        if char_class(ch) not in REFUSED_CLASSES:
            normal = unicodedata.normalize("NFKC", ch)
            assert all(char_class(c) not in REFUSED_CLASSES for c in normal), hex(cp)


# -- the page's table ---------------------------------------------------------


def test_the_pages_table_is_what_the_script_makes_from_this_python(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    sys.modules.pop("name_tables", None)
    import name_tables

    committed = name_tables.JS_TABLE.read_text(encoding="utf-8")
    assert committed == name_tables.js_table(), "run: python scripts/name_tables.py"
    assert f"UNICODE_VERSION = '{unicodedata.unidata_version}'" in committed


# -- confusable skeletons -----------------------------------------------------


@pytest.mark.parametrize("look_alike", [
    "\u0430dmin",       # Cyrillic а
    "admin\ufe0f",      # a variation selector
    "adm\u0456n",       # Cyrillic і
    "\uff41dmin",       # full-width a
    "ad\u200bmin",      # zero-width space
    "\U0001D41Admin",   # mathematical bold a
])
def test_a_look_alike_of_admin_has_the_skeleton_of_admin(look_alike):
    assert skeleton(look_alike) == skeleton("admin")


@pytest.mark.parametrize(("one", "other"), [
    ("paypal", "p\u0430yp\u0430l"),
    ("l1ly", "lIly"),
    ("rn", "m"),
    ("\u05d3\u05d5\u05d3", "\u05d3\u05d5\u05d3"),
    ("\u0e1c\u0e39\u0e49", "\u0e1c\u0e39\u0e49"),
])
def test_names_that_look_alike_have_one_skeleton(one, other):
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize(("one", "other"), [
    ("admin", "admim"), ("Ada", "Eve"), ("\u0418\u0433\u0440\u043e\u043a", "Igrok"),
])
def test_names_that_look_different_have_different_skeletons(one, other):
    assert skeleton(one) != skeleton(other)


@pytest.mark.parametrize(("held", "copy"), [
    ("Ada", "Ada\u0323"),                  # a dot below the last letter
    ("Ada", "A\u0300da"),                  # a grave accent over the first
    ("Ada", "Ad\u0323a\u0307"),           # two marks at once
    ("\u0418\u0433\u0440\u043e\u043a", "\u0418\u0433\u0440\u043e\u0301\u043a"),  # Игрок, an acute over о
    ("\u05d3\u05d5\u05d3", "\u05d3\u05bc\u05d5\u05b9\u05d3"),  # דוד with niqqud
])
def test_a_name_with_a_combining_mark_added_has_the_skeleton_of_the_name(held, copy):
    assert skeleton(clean_name(copy)) == skeleton(held)


def test_thai_tone_marks_are_blind_to_the_look_alike_comparison_only():
    """Thai tone and vowel marks are nonspacing marks (Mn): ก่ (low tone) and ก้ (falling tone) are
    different words, yet one skeleton. That is the price of refusing a held name with a mark added,
    and it is paid only by a *new* name beside a held one: each name is stored as typed."""
    low, falling = "\u0e01\u0e48", "\u0e01\u0e49"
    assert all(unicodedata.category(c) == "Mn" for c in "\u0e48\u0e49\u0e34\u0e38")
    assert skeleton(low) == skeleton(falling) == skeleton("\u0e01")
    assert clean_name(low) == low and clean_name(falling) == falling  # both kept as typed
    assert skeleton("\u0e01\u0e32") != skeleton("\u0e01")  # a spacing vowel (sara aa, Lo) still counts


def test_a_skeleton_is_its_own_skeleton():
    for name in ("Ad\u0251\u0323", "\u0e1c\u0e39\u0e49", "Jos\u00e9", "\ufb01ne", "\u0130stanbul"):
        assert skeleton(skeleton(name)) == skeleton(name)
        assert not any(unicodedata.category(c) == "Mn" for c in skeleton(name))


def test_the_confusables_table_is_unicodes():
    from game2048.server.records.names import CONFUSABLES, _prototypes

    head = CONFUSABLES.read_text(encoding="utf-8").splitlines()[:3]
    assert any("confusables.txt, version" in line for line in head)
    assert len(_prototypes()) > 6000
    assert _prototypes()["\u0430"] == "a" and _prototypes()["\u0131"] == "i"


# -- through the API ----------------------------------------------------------


@pytest.mark.parametrize(("typed", "code"), [
    ("\u200b\u200b\u200b", "name_invisible"), ("\u3164", "name_invisible"), ("\u2800", "name_invisible"),
    ("Mac\uf8ff", "name_private_use"), ("a\u202eb", "name_bidi"), ("admin\ufe0f", "name_invisible"),
    ("Ada \u2713", "name_ranked_mark"), ("x" * (NAME_MAX + 1), "name_too_long"),
    ("\u0301", "name_no_visible"),
])
def test_a_refused_name_is_422_with_its_code_and_the_game_stays_open(api, typed, code):
    issued = api.start()
    r = api.finish(issued, name=typed)
    assert r.status_code == 422 and r.json()["code"] == code, r.text
    assert api.stored(issued["id"]) is None
    assert api.finish(issued, name="Ada").status_code == 200


@pytest.mark.parametrize("typed", ["\u200b\u200b\u200b", "\u3164", "Mac\uf8ff"])
def test_a_refused_name_on_a_practice_record_keeps_nothing(api, typed):
    game = api.play(4, 11, 20)
    r = api.record(game, name=typed)
    assert r.status_code == 422 and r.json()["code"].startswith("name_")
    assert api.record(game, name="Ada").status_code == 201  # the record itself was never refused


@pytest.mark.parametrize(("typed", "stored"), [
    ("\uff2c\uff45\uff47\uff49\uff54", "Legit"), ("  Ada   L ", "Ada L"),
])
def test_a_name_is_stored_in_its_clean_form(api, typed, stored):
    issued = api.start()
    done = api.finish(issued, name=typed)
    assert done.status_code == 200
    assert api.stored(issued["id"])["name"] == stored
    # the name is now held by that finish: a practice record under it brings its key
    practice = api.record(api.play(4, 7, 10), name=typed, name_key=done.json()["name_key"])
    assert practice.status_code == 201
    assert api.stored(practice.json()["id"])["name"] == stored
