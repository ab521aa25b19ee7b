"""The page's name rule (``static/js/names.js``) agrees with the server's on names nobody wrote down.

Random names mix characters of every class of the rule (letters of many scripts,
marks, spaces of every kind, compatibility forms, emoji outside the BMP,
controls, bidi controls, private use, unassigned and default-ignorable code
points, check marks) at random lengths around the limit. One Node process
cleans them all; each must be stored as the same name or refused with the same
code, character and length. A second check runs NFKC on every code point the
rule keeps, in Node and in Python, and finds them equal: the browser's newer
Unicode normalises the characters the server knows as the server does.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from game2048.server.records.names import NAME_MAX, REFUSED_CLASSES, BadName, char_class, clean_name

NODE = shutil.which("node")
NAMES = Path(__file__).resolve().parents[2] / "src" / "game2048" / "web" / "static" / "js" / "names.js"

CLEAN = """
import fs from 'node:fs';
const { cleanName } = await import(process.argv[1]);
const names = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(names.map((n) => cleanName(n))));
"""

NFKC = """
import fs from 'node:fs';
const codePoints = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(codePoints.map((cp) => String.fromCodePoint(cp).normalize('NFKC'))));
"""

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def node(script: str, payload: object) -> list:
    done = subprocess.run([NODE, "--input-type=module", "-e", script, NAMES.as_uri()],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def python_result(name: str) -> dict[str, object]:
    try:
        return {"name": clean_name(name)}
    except BadName as exc:
        return dict(exc.fields)


def pools() -> dict[str, list[str]]:
    """Characters by class, sampled over the whole code space, and a few chosen ones."""
    rnd = random.Random(7)
    by_class: dict[str, list[str]] = {}
    for cp in range(0x110000):
        kind = char_class(chr(cp))
        if kind in ("visible", "mark", "unassigned") and rnd.random() > 0.02:
            continue
        by_class.setdefault(kind, []).append(chr(cp))
    by_class["chosen"] = list("aZ09 \u3000\u00a0\u1680\ufb01\uff21\u2460\u216b\u338f\ufdfa\u0301\u0308e"
                              "\u05e9\u05c1\u05b8\u0e1c\u0e39\u0e49\u0418\u0645\ufe0f\u200d\u202e\uf8ff"
                              "\U0001F98A\U0001F600\U0001F1EE\U0001F3FD\U0001FAE8\u2713\U0001D400\uff76\uff9e")
    return by_class


def random_names(count: int) -> list[str]:
    rnd = random.Random(2048)
    by_class = pools()
    kinds = list(by_class)
    names = []
    for _ in range(count):
        clean = rnd.random() < 0.6  # most draw only from what the rule keeps, to reach the later rules
        allowed = [k for k in kinds if not (clean and k in REFUSED_CLASSES)]
        length = rnd.choice([0, 1, 2, 3, 5, 8, NAME_MAX - 1, NAME_MAX, NAME_MAX + 1, 30])
        names.append("".join(rnd.choice(by_class[rnd.choice(allowed)]) for _ in range(length)))
    # as the server reads them from JSON: two lone surrogates side by side there are one pair
    return [json.loads(json.dumps(name)) for name in names]


def test_the_page_cleans_random_names_as_the_server_does():
    names = random_names(4000)
    got = node(CLEAN, names)
    seen = set()
    for name, js in zip(names, got, strict=True):
        want = python_result(name)
        assert js == want, ascii(name)
        seen.add(want.get("code", "stored"))
    assert {"stored", "name_too_long", "name_no_visible", "name_empty", "name_unassigned"} <= seen


def test_nfkc_of_every_kept_code_point_is_the_same_in_the_browser_and_the_server():
    kept = [cp for cp in range(0x110000) if char_class(chr(cp)) not in REFUSED_CLASSES]
    changed = [cp for cp in kept if unicodedata.normalize("NFKC", chr(cp)) != chr(cp)]
    got = node(NFKC, changed)
    assert len(changed) > 3000
    for cp, js in zip(changed, got, strict=True):
        assert js == unicodedata.normalize("NFKC", chr(cp)), hex(cp)
    unchanged = [cp for cp in kept if unicodedata.normalize("NFKC", chr(cp)) == chr(cp)][::5]
    assert node(NFKC, unchanged) == [chr(cp) for cp in unchanged]
