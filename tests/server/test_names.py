"""Names: what is stored is what a page shows; invisible characters never make two names look alike."""

from __future__ import annotations

import pytest

from game2048.server.records.names import NAME_MAX, BadName, clean_name

STORED_AS = [
    ("legit\u200b", "legit"),                 # zero-width space stripped
    ("\u200blegit", "legit"),
    ("le\u200dgit", "legit"),                  # zero-width joiner
    ("legit\u2060\ufeff", "legit"),            # word joiner, BOM
    ("legit\u3164", "legit"),                  # Hangul filler
    ("legit\u2800", "legit"),                  # braille blank
    ("le  git", "le git"),                     # a page shows two spaces as one
    ("Ｌｅｇｉｔ", "Legit"),                     # NFKC: full-width letters
    ("ﬁne", "fine"),                           # NFKC: ligature
    ("  Ada  ", "Ada"),
    ("שחקן מספר אחד", "שחקן מספר אחד"),
    ("ผู้เล่น", "ผู้เล่น"),
    ("x" * NAME_MAX + "\u200b" * 10, "x" * NAME_MAX),  # the limit counts what is left
]


@pytest.mark.parametrize(("typed", "stored"), STORED_AS)
def test_a_name_is_stored_as_it_looks(typed, stored):
    assert clean_name(typed) == stored


REFUSED = [
    ("\u200b\u200b\u200b", "visible"),
    ("\u3164", "visible"),
    ("\u3164\u3164\u3164", "visible"),
    ("\uffa0", "visible"),                     # half-width filler, NFKC to U+3164
    ("\u2800\u2800", "visible"),
    ("\u115f\u1160", "visible"),
    ("\u0301\u0301", "visible"),               # combining marks alone
    ("   ", "empty"),
    ("", "empty"),
    ("a\u202eb", "control"),                   # bidi override
    ("a\u2067b", "control"),                   # bidi isolate
    ("a\nb", "control"),
    ("a\ue000", "control"),                    # private use
    ("x" * (NAME_MAX + 1), f"at most {NAME_MAX}"),
    ("\ufdfa" * 2, f"at most {NAME_MAX}"),     # NFKC makes 36 characters of 2
]


@pytest.mark.parametrize(("typed", "words"), REFUSED)
def test_a_name_that_shows_nothing_or_misleads_is_refused(typed, words):
    with pytest.raises(BadName, match=words):
        clean_name(typed)


@pytest.mark.parametrize(("typed", "stored"), [("legit\u200b", "legit"), ("Ｌｅｇｉｔ", "Legit"),
                                               ("legit\u3164", "legit")])
def test_a_look_alike_name_is_stored_as_the_name_it_looks_like(api, typed, stored):
    issued = api.start()
    assert api.finish(issued, name=typed).status_code == 200
    assert api.stored(issued["id"])["name"] == stored
    practice = api.record(api.play(4, 7, 10), name=typed)
    assert practice.status_code == 201
    assert api.stored(practice.json()["id"])["name"] == stored


@pytest.mark.parametrize("typed", ["\u200b\u200b\u200b", "\u3164", "\u2800", "\u3164\u200b\u2800"])
def test_an_invisible_name_is_refused_by_the_api_and_the_game_stays_open(api, typed):
    issued = api.start()
    r = api.finish(issued, name=typed)
    assert r.status_code == 422 and "visible" in r.json()["error"]
    assert api.stored(issued["id"]) is None
    assert api.finish(issued, name="Ada").status_code == 200


@pytest.mark.parametrize("typed", ["\u200b\u200b\u200b", "\u3164", "\u2800"])
def test_an_invisible_name_on_a_practice_record_is_refused_and_nothing_is_kept(api, typed):
    game = api.play(4, 11, 20)
    r = api.record(game, name=typed)
    assert r.status_code == 422 and "visible" in r.json()["error"]
    assert api.record(game, name="Ada").status_code == 201  # the record itself was never refused
