"""The games a worker keeps in memory between their moves (``live.recent``): bounded by an
estimate of their bytes as well as by their count, the least recently saved going first."""

from __future__ import annotations

import gc
import tracemalloc
from dataclasses import replace

import pytest

from game2048.game import Game
from game2048.server import Settings, create_app
from game2048.server.live import moving
from game2048.server.live.recent import COMPACT_SLACK, RecentGames, entry_bytes
from game2048.server.live.seeds import classic_seed
from game2048.server.live.stores import Live
from game2048.server.records.records import new_game_id

from ..conftest import next_move


def _entry(size: int, moves: int, bot: str | None = None) -> tuple[Live, Game]:
    """A game played ``moves`` moves (with undos), as the mover keeps it: the store's head and the game."""
    game = Game(size, classic_seed())
    for i in range(moves):
        letter = next_move(game.board)
        if letter is None:
            break
        game.play(letter)
        if i % 7 == 3 and game.undos_left:
            game.play("Z")
    position = {**game.snapshot(), "tile": game.last_tile()}
    return Live(new_game_id(), size, game.seed, "classic", None, len(game.log), "", position, bot=bot), game


def test_many_large_games_stay_under_the_byte_bound():
    recent = RecentGames(size=100_000, max_bytes=200_000)
    kept = []
    for i in range(120):
        live, game = _entry(6, 40, bot="B" * 32)  # the largest board, a long name
        recent.put(live, game)
        kept.append(live)
        assert recent.bytes <= recent.max_bytes
        assert recent.bytes == sum(entry_bytes(x[0]) for x in recent._games.values())
        if i < 10:
            assert len(recent) == i + 1
    per_game = entry_bytes(kept[0])
    assert per_game > 3000 and len(recent) == 200_000 // per_game < 120
    # the least recently saved went first: the last ones are kept, the first ones are not
    assert recent.take(kept[-1].id, kept[-1].at) is not None
    assert recent.take(kept[0].id, kept[0].at) is None
    assert recent.bytes == sum(entry_bytes(x[0]) for x in recent._games.values())


def test_a_game_taken_and_put_back_is_the_most_recent():
    recent = RecentGames(size=100, max_bytes=3 * entry_bytes(_entry(4, 1)[0]))
    games = [_entry(4, 3) for _ in range(3)]
    for live, game in games:
        recent.put(live, game)
    first = recent.take(games[0][0].id, games[0][0].at)
    assert first is not None
    recent.put(replace(first[0], at=first[0].at + 1), first[1])  # its next move saved
    recent.put(*_entry(4, 3))  # one more: the least recently saved (the second game) goes
    assert recent.take(games[1][0].id, games[1][0].at) is None
    assert recent.take(games[0][0].id, games[0][0].at + 1) is not None


def test_the_count_still_bounds_it_and_zero_bytes_keeps_nothing():
    recent = RecentGames(size=3)
    for _ in range(5):
        recent.put(*_entry(3, 2))
    assert len(recent) == 3
    none = RecentGames(max_bytes=0)
    live, game = _entry(3, 2)
    none.put(live, game)
    assert len(none) == 0 and none.bytes == 0 and none.take(live.id, live.at) is None
    recent.forget(None)
    assert len(recent) == 0 and recent.bytes == 0


@pytest.mark.parametrize("size", [3, 6])
def test_the_estimate_is_not_below_what_a_kept_game_takes(size):
    """Measured: the memory freed when kept games go is at most their estimate, short or long."""
    tracemalloc.start()
    try:
        for moves in (5, 400):
            games = [_entry(size, moves) for _ in range(40)]
            estimate = sum(entry_bytes(live) for live, _ in games)
            for _, game in games:
                game.compact()
                # then as ``put`` keeps them, move after move, up to the most they hold
                while list.__len__(game._history) < COMPACT_SLACK and len(game.log) < COMPACT_SLACK:
                    letter = next_move(game.board)
                    if letter is None:
                        break
                    game.play(letter)
                    game.compact(slack=COMPACT_SLACK)  # nothing goes yet
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            del games
            gc.collect()
            taken = before - tracemalloc.get_traced_memory()[0]
            assert 0 < taken <= estimate, (moves, taken, estimate)
    finally:
        tracemalloc.stop()


def test_the_bound_is_a_setting(settings):  # type: ignore[no-untyped-def]
    assert Settings.from_env("sqlite:///x.db", env={}).recent_bytes == 64 * 1024 * 1024
    chosen = Settings.from_env("sqlite:///x.db", env={"GAME2048_RECENT_BYTES": "1000000"})
    assert chosen.recent_bytes == 1_000_000
    before = moving.recent.max_bytes
    app = create_app(replace(settings, recent_bytes=12345))
    try:
        assert moving.recent.max_bytes == 12345 and moving.recent.bytes <= 12345
    finally:
        moving.keep_recent(before)
        app.state.engine.dispose()
