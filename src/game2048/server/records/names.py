"""Player names: what is stored is what the page shows, and no two stored names look the same
because of characters nobody can see.

``clean_name`` NFKC-normalises the name, refuses characters that control or
reorder text (and ones with no agreed shape), strips the invisible ones
(format characters such as U+200B, and fillers such as U+3164 and U+2800),
collapses runs of spaces (a page shows them as one), and then asks for at least
one visible letter, digit, punctuation mark or symbol. The 24-character limit
counts what is left.

>>> clean_name("  Ada ")
'Ada'
>>> clean_name("legit\\u200b") == "legit"
True
>>> clean_name("Ｌｅｇｉｔ") == "Legit"
True
"""

from __future__ import annotations

import unicodedata

NAME_MAX = 24

#: Bidirectional embedding, override and isolate controls: they would reorder the page around the name.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Characters that draw nothing although their category says letter, symbol or mark.
FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
#: Categories refused outright: controls, surrogates, line and paragraph separators,
#: private use and unassigned code points (no agreed shape).
REFUSED = frozenset({"Cc", "Cs", "Zl", "Zp", "Co", "Cn"})
#: A name must hold at least one character of these (major) categories.
VISIBLE = frozenset("LNPS")


class BadName(ValueError):
    """A name that cannot be shown as typed; the message says why."""


def clean_name(name: str) -> str:
    """The name as it will be stored and shown, or ``BadName`` saying what is wrong."""
    for ch in name:
        if unicodedata.category(ch) in REFUSED or ch in BIDI_CONTROLS:
            raise BadName(f"name must not contain control characters (found U+{ord(ch):04X})")
    kept = "".join(
        ch for ch in unicodedata.normalize("NFKC", name)
        if ch not in FILLERS and unicodedata.category(ch) != "Cf"
    )
    cleaned = unicodedata.normalize("NFKC", " ".join(kept.split()))
    if not cleaned:
        raise BadName("name must not be empty" if not name.strip() else
                         "name must show at least one visible letter, digit, punctuation mark or symbol")
    if len(cleaned) > NAME_MAX:
        raise BadName(f"name must be at most {NAME_MAX} characters, got {len(cleaned)}")
    if not any(unicodedata.category(ch)[0] in VISIBLE for ch in cleaned):
        raise BadName("name must show at least one visible letter, digit, punctuation mark or symbol")
    return cleaned
