"""Player names: what is stored is what the page shows, and no two stored names look the same
because of characters nobody can see.

The rule, which the page applies too (``web/static/js/names.js``, bound to this
module by ``tests/vectors/names.json``):

1. Every code point of the name as typed, and again after NFKC, has a *class*
   (``char_class``). A name holding one of the refused classes is refused with
   the code ``name_`` and that class: ``control`` (C0/C1 controls, surrogates, line and
   paragraph separators), ``bidi`` (marks and controls that reorder the page
   around the name, U+202E among them), ``private_use`` (no agreed shape),
   ``unassigned`` (no character yet in this Python's Unicode, 14.0 in 3.11),
   ``invisible`` (every Default_Ignorable_Code_Point, variation selectors and
   joiners included, every other format character, and fillers that draw
   nothing), ``ranked_mark`` (check marks that could pass for the leaderboard's
   "Ranked ✓").
2. The name is NFKC-normalised (full-width letters, ligatures, compatibility
   spaces become their plain forms); runs of spaces become one space, and
   spaces at either end go.
3. What is left must not be empty (``name_empty``), must be at most ``NAME_MAX``
   code points (``name_too_long``: counted after cleaning, in code points, so an emoji outside
   the Basic Multilingual Plane counts one), and must show at least one letter,
   digit, punctuation mark or symbol (``name_no_visible``: combining marks alone
   do not).

Nothing is silently removed except spaces: a name that holds an invisible
character is refused, never stored without it, so what the player typed is
what everyone sees. Emoji joined by U+200D or followed by U+FE0F are refused
for that reason; a single emoji is a fine name.

>>> clean_name("  Ada   Lovelace ")
'Ada Lovelace'
>>> clean_name("Ｌｅｇｉｔ")
'Legit'
>>> clean_name("Mac\\uf8ff")
Traceback (most recent call last):
...
game2048.server.records.names.BadName: name must not contain private-use characters (found U+F8FF)

``skeleton`` is Unicode's TR39 confusable skeleton: two names that look alike
have the same skeleton (``skeleton("аdmin") == skeleton("admin")``, the first
``а`` Cyrillic). It uses Unicode's confusables data, compacted into
``game2048/data/confusables.tsv`` by ``scripts/name_tables.py``.

This module imports nothing of the server: the rule is plain data and code.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from importlib.resources import files

from ...limits import NAME_MAX

#: Classes of code points a name must not hold, in the order a code point's class is
#: decided (first match wins).
REFUSED_CLASSES = ("control", "bidi", "private_use", "unassigned", "invisible", "ranked_mark")
#: The refusal codes: ``name_`` and the class for a character, then the codes about the
#: name as a whole. Stable: the API's errors and the page use them.
CODES = (*(f"name_{kind}" for kind in REFUSED_CLASSES), "name_empty", "name_too_long", "name_no_visible")

#: Classes of code points the rule keeps: a space (category Zs), a mark (M*, shown on the
#: character before it) and a visible character (letter, digit, punctuation, symbol).
KEPT_CLASSES = ("space", "mark", "visible")

#: Bidirectional marks and controls (Bidi_Control): they reorder the page around the name.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

#: Unicode's Default_Ignorable_Code_Point, copied from DerivedCoreProperties.txt (the same
#: ranges in Unicode 14.0 and 15.0; Python's unicodedata has no such property). Inclusive.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ..KHMER VOWEL INHERENT AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK (ZWNJ, ZWJ among them)
    (0x202A, 0x202E),  # LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),  # WORD JOINER..NOMINAL DIGIT SHAPES (invisible operators, isolates)
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..VARIATION SELECTOR-16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT LETTER OVERLAP..SHORTHAND FORMAT UP STEP
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM..MUSICAL SYMBOL END PHRASE
    (0xE0000, 0xE0FFF),  # tags, VARIATION SELECTOR-17..256, reserved
)

#: Characters that draw nothing although their category says symbol (not default-ignorable).
FILLERS = frozenset("\u2800")  # BRAILLE PATTERN BLANK

#: Check marks that could pass for the leaderboard's "Ranked ✓" mark.
RANKED_MARKS = frozenset(
    "\u2713"  # ✓ CHECK MARK
    "\u2714"  # ✔ HEAVY CHECK MARK
    "\u2611"  # ☑ BALLOT BOX WITH CHECK
    "\u2705"  # ✅ WHITE HEAVY CHECK MARK
    "\u237b"  # ⍻ NOT CHECK MARK
    "\u221a\u221b\u221c"  # √ ∛ ∜ SQUARE, CUBE and FOURTH ROOT
    "\U00010102"  # 𐄂 AEGEAN CHECK MARK
    "\U0001D93F\U0001D940\U0001D941\U0001D977"  # SIGNWRITING ... CHECK
    "\U0001F5F8"  # 🗸 LIGHT CHECK MARK
    "\U0001F5F9"  # 🗹 BALLOT BOX WITH BOLD CHECK
    "\U0001FBB1"  # 🮱 INVERSE CHECK MARK
)

_MESSAGES = {
    "name_control": "name must not contain control characters or line breaks (found {char})",
    "name_bidi": "name must not contain bidirectional control characters, which reorder text "
                 "(found {char})",
    "name_private_use": "name must not contain private-use characters (found {char})",
    "name_unassigned": "name must not contain unassigned code points (found {char})",
    "name_invisible": "name must not contain invisible characters such as joiners or variation "
                 "selectors (found {char})",
    "name_ranked_mark": "name must not contain check marks, which look like the ranked mark (found {char})",
    "name_empty": "name must not be empty",
    "name_too_long": "name must be at most {max} characters, got {length}",
    "name_no_visible": "name must show at least one visible letter, digit, punctuation mark or symbol",
}


class BadName(ValueError):
    """A name that cannot be shown as typed. ``code`` is one of ``CODES``; ``char`` is the
    offending code point as ``U+XXXX`` for a character's refusal; the message says why."""

    def __init__(self, code: str, char: str | None = None, length: int | None = None) -> None:
        self.code = code
        self.char = char
        self.length = length
        super().__init__(_MESSAGES[code].format(char=char, max=NAME_MAX, length=length))

    @property
    def fields(self) -> dict[str, str | int]:
        """``code``, and ``char`` or ``length`` where they apply: what an answer can carry.

        >>> BadName("name_too_long", length=30).fields
        {'code': 'name_too_long', 'length': 30}
        """
        out: dict[str, str | int] = {"code": self.code}
        if self.char is not None:
            out["char"] = self.char
        if self.length is not None:
            out["length"] = self.length
        return out


def _is_default_ignorable(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in DEFAULT_IGNORABLE)


def char_class(ch: str) -> str:
    """The class of one code point under the name rule: one of ``REFUSED_CLASSES`` or
    ``KEPT_CLASSES``. Decided from this Python's ``unicodedata`` and the lists above.

    >>> [char_class(c) for c in "a \\u0301\\u202e\\ufe0f\\u2713"]
    ['visible', 'space', 'mark', 'bidi', 'invisible', 'ranked_mark']
    """
    cp = ord(ch)
    category = unicodedata.category(ch)
    if category in ("Cc", "Cs", "Zl", "Zp"):
        return "control"
    if ch in BIDI_CONTROLS:
        return "bidi"
    if category == "Co":
        return "private_use"
    if category == "Cn" and not _is_default_ignorable(cp):
        return "unassigned"
    if _is_default_ignorable(cp) or category == "Cf" or ch in FILLERS:
        return "invisible"
    if ch in RANKED_MARKS:
        return "ranked_mark"
    if category == "Zs":
        return "space"
    if category[0] == "M":
        return "mark"
    return "visible"  # L, N, P, S


def _refuse_characters(text: str) -> None:
    for ch in text:
        kind = char_class(ch)
        if kind in REFUSED_CLASSES:
            raise BadName(f"name_{kind}", char=f"U+{ord(ch):04X}")


def clean_name(name: str) -> str:
    """The name as it will be stored and shown, or ``BadName`` saying what is wrong.

    >>> clean_name("ﬁne\\u3000player")
    'fine player'
    >>> clean_name("x" * 25)
    Traceback (most recent call last):
    ...
    game2048.server.records.names.BadName: name must be at most 24 characters, got 25
    """
    _refuse_characters(name)  # before NFKC: unassigned code points must not reach it
    normal = unicodedata.normalize("NFKC", name)
    _refuse_characters(normal)
    spaced = "".join(" " if char_class(c) == "space" else c for c in normal)
    cleaned = " ".join(word for word in spaced.split(" ") if word)
    if not cleaned:
        raise BadName("name_empty")
    if len(cleaned) > NAME_MAX:
        raise BadName("name_too_long", length=len(cleaned))
    if not any(char_class(ch) == "visible" for ch in cleaned):
        raise BadName("name_no_visible")
    return cleaned


# -- confusable skeletons (Unicode TR39) ------------------------------------

#: Unicode's confusables, source and prototype in hexadecimal (``scripts/name_tables.py``).
CONFUSABLES = files("game2048") / "data" / "confusables.tsv"


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in CONFUSABLES.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split("\t")
            table[chr(int(source, 16))] = "".join(chr(int(h, 16)) for h in target.split())
    return table


def _unmarked(text: str) -> str:
    """``text`` in NFD without its default-ignorable code points and its nonspacing marks (Mn)."""
    return "".join(c for c in unicodedata.normalize("NFD", text)
                   if not _is_default_ignorable(ord(c)) and unicodedata.category(c) != "Mn")


def skeleton(text: str) -> str:
    """TR39's skeleton of ``text``, blind to nonspacing marks as well: NFD, default-ignorable
    code points and nonspacing marks (category Mn) removed, every character replaced by its
    prototype from Unicode's confusables data, and the marks a prototype brings removed again.
    Two strings that look alike have equal skeletons; a skeleton is for comparing, never shown.
    It is case-sensitive, as TR39 defines it (``skeleton("A") != skeleton("a")``). To hold
    names, compare ``skeleton(clean_name(new))`` with the skeletons of the names held.
    The data is confusables.txt 13.0.0: characters newer than that map to themselves.

    Without its marks, a held name cannot be copied by adding one (a dot below, U+0323,
    under its last letter). The price is paid by names whose marks carry their meaning:
    Thai tone and vowel marks are Mn, so "ก่" and "ก้" (different words) share a skeleton,
    as do Hebrew words that differ only in niqqud, and "José" and "Jose". That only refuses
    a *new* name beside a held one that differs from it by marks alone; every name is still
    stored and shown with its marks.

    >>> skeleton("\\u0430dmin") == skeleton("admin") == skeleton("admin\\ufe0f")
    True
    >>> skeleton("paypal") == skeleton("pаypаl") == skeleton("paypa\\u0323l")
    True
    """
    prototypes = _prototypes()
    return _unmarked("".join(prototypes.get(c, c) for c in _unmarked(text)))
