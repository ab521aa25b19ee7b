"""The ``learned`` preset: the network's 3-ply search on 4x4 where weights are there, ``strong``
elsewhere, through the solver's own ``analyse`` and ``best_move``."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from game2048 import Game
from game2048.cli import app
from game2048.rules import DIRECTIONS, slide
from game2048.solver import PLAYERS, analyse, best_move, learned
from game2048.solver.learn import deep, ntuple, shipped
from game2048.solver.learn.play import pack
from game2048.solver.learn.train import new_run, tables, train
from game2048.solver.likeness import LEARNED, likeness
from game2048.solver.search import NODES_PER_SECOND

BOARD = [[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]


@pytest.fixture(scope="module")
def trained() -> np.ndarray:
    run = new_run(seed=5)
    train(run, max_games=600, log=None)
    return run.weights


@pytest.fixture
def playing(trained: np.ndarray):  # type: ignore[no-untyped-def]
    learned.use_network(trained)
    yield trained
    learned.use_network(None)


@pytest.fixture
def no_weights(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def missing(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise shipped.NotInstalled("no shipped weights (as on a machine without them)")

    monkeypatch.setattr(shipped, "open_mapped", missing)
    learned.use_network(None)
    yield
    learned.use_network(None)


def test_on_4x4_it_plays_the_networks_3_ply_move(playing: np.ndarray) -> None:
    slide_table, points = tables()
    move, scores = analyse(BOARD, preset="learned")
    expected = int(ntuple.choose(playing, pack(BOARD), learned.PLY, slide_table, points))
    assert move == ("up", "down", "left", "right")[expected]
    legal = {d for d in ("up", "down", "left", "right") if slide(BOARD, d)[0] != BOARD}
    assert set(scores) == legal and max(scores, key=scores.__getitem__) == move
    assert analyse(BOARD, preset="learned") == (move, scores)  # the same answer every time
    assert best_move(BOARD, preset="learned") == move
    assert "learned" in PLAYERS


def test_where_the_network_cannot_play_it_is_strong(playing: np.ndarray) -> None:
    five = [[2, 4, 0, 0, 0], [0] * 5, [0] * 5, [0] * 5, [0] * 5]
    assert analyse(five, preset="learned") == analyse(five, preset="strong")
    past = [[65536, 2, 0, 0], [4, 0, 0, 0], [0] * 4, [0] * 4]  # 4-bit cells hold 32768 at most
    assert analyse(past, preset="learned") == analyse(past, preset="strong")


def test_without_the_weights_it_is_strong(no_weights: None) -> None:
    assert learned.network() is None
    assert analyse(BOARD, preset="learned") == analyse(BOARD, preset="strong")


def _by_name(values: list[float]) -> dict[str, float]:
    return {d: v for d, v in zip(DIRECTIONS, values, strict=True) if v > -np.inf}


def test_with_a_depth_it_searches_the_network_as_the_heuristics_expectimax(playing: np.ndarray) -> None:
    """Depth d is the expectimax d spawns deep with the network at the leaves: depth 2 without a
    cut-off is the preset's own 3-ply, and a depth gives the same answer on any number of threads."""
    slide_table, points = tables()
    exact = np.empty(4)
    ntuple.move_values(playing, pack(BOARD), learned.PLY, slide_table, points, exact)
    values, nodes = deep.search(playing, int(pack(BOARD)), 2, cut=0.0)
    assert values is not None and nodes > 0
    assert np.allclose(values, exact, rtol=1e-9)

    deeper, nodes_3 = deep.search(playing, int(pack(BOARD)), 3)
    assert deeper is not None and nodes_3 > nodes
    scores = _by_name(deeper)
    answer = (max(scores, key=scores.__getitem__), scores)
    assert analyse(BOARD, preset="learned", depth=3) == answer
    assert analyse(BOARD, preset="learned", depth=3, threads=1) == answer
    assert analyse(BOARD, preset="learned", depth=3, threads=3) == answer
    assert deep.search(playing, int(pack(BOARD)), 3, budget=nodes_3 - 1)[0] is None  # past the budget
    with pytest.raises(ValueError, match="at most 15 spawns"):
        analyse(BOARD, preset="learned", depth=16)


def test_with_a_time_limit_it_deepens_within_its_node_budget(playing: np.ndarray) -> None:
    """A time limit is a node budget (``NODES_PER_SECOND``): the deepest level that fits it."""
    legal = len(_by_name(deep.search(playing, int(pack(BOARD)), 0)[0] or []))
    one, spent = deep.search(playing, int(pack(BOARD)), 1)
    assert one is not None and spent == legal  # depth 1: one chance node a first move
    rate = NODES_PER_SECOND["network"]
    scores = _by_name(one)
    assert analyse(BOARD, preset="learned", time_limit=legal / rate) == (max(scores, key=scores.__getitem__),
                                                                         scores)
    move, scores = analyse(BOARD, preset="learned", time_limit=0.05)  # deeper, as far as the clock allows
    assert move in scores and len(scores) == legal
    with pytest.raises(ValueError, match="time_limit"):
        analyse(BOARD, preset="learned", time_limit=0)


def test_a_stuck_board_has_no_move(playing: np.ndarray) -> None:
    stuck = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    assert analyse(stuck, preset="learned") == (None, {})


def test_solve_plays_the_learned_preset(no_weights: None) -> None:
    result = CliRunner().invoke(app, ["solve", "--size", "4", "--games", "1", "--preset", "learned",
                                      "--max-moves", "3", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "learned" in result.output
    refused = CliRunner().invoke(app, ["solve", "--preset", "cleverest", "--games", "1"])
    assert refused.exit_code == 2 and "learned" in refused.output


def _learned_game(moves: int) -> str:
    game = Game(4, 21)
    while not game.over and len(game.log) < moves:
        game.move(best_move(game.board, preset="learned"))
    return game.log


def test_the_engine_check_compares_4x4_games_with_the_network(playing: np.ndarray) -> None:
    figures = likeness(4, 21, _learned_game(150))
    assert set(LEARNED) <= set(figures["searches"])
    assert figures["searches"]["learned"] == 1.0  # every move that mattered was the network's
    assert "learned" not in likeness(3, 21, "LURDLURD")["searches"]  # 4x4 only


def test_the_engine_check_catches_the_networks_expectimax(playing: np.ndarray) -> None:
    """A game of ``analyse(preset="learned", depth=3)`` parts from the network's own plies on
    enough positions to pass them; the deeper comparison, asked because it is close, names it."""
    game = Game(4, 21)
    while not game.over and len(game.log) < 400:
        game.move(analyse(game.board, preset="learned", depth=3, threads=1)[0])
    figures = likeness(4, 21, game.log)
    assert figures["engine_like"] and figures["engine"] == "learned depth 3", figures
    assert figures["searches"]["learned depth 3"] == 1.0
    assert "learned depth 4" not in figures["searches"]  # caught at depth 3: the deeper one is not asked


def test_without_the_weights_the_engine_check_has_no_network_to_compare(no_weights: None) -> None:
    game = Game(4, 21)
    for _ in range(40):  # the first of left, down, right, up that moves
        game.move(next(d for d in ("left", "down", "right", "up") if slide(game.board, d)[0] != game.board))
    figures = likeness(4, 21, game.log)
    assert figures["moves"] == 40 and not set(LEARNED) & set(figures["searches"])
