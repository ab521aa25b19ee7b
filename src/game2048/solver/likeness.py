"""Does a game play like an engine? Its moves against the solver's where the choice matters.

``likeness(size, seed, log)`` replays the record and, before each move, asks
the solver (``CHECK_PRESET``) for the value of every legal direction, in the
review's units of loss (``review.board_weight``). A position *matters* when
the solver's best move beats its second best by at least ``MARGIN``: there,
a player who is not following the engine picks the best move less often. A
*slip* is a move, anywhere, that loses ``SLIP`` or more (a blunder, in the
review's words): engines next to never make one, people and noisy play do.
The rule (``engine_like``) flags a game whose agreement on the positions that
matter is at least ``AGREEMENT`` and whose slips are at most ``SLIPS`` of its
moves, over at least ``MIN_MATTERING`` positions that matter. An engine that
searches otherwise (``SEARCHES``: deeper, one spawn ahead, or greedy; on 4x4,
where its weights are installed, the trained network's searches, ``LEARNED``,
and its expectimax, ``LEARNED_DEEP``, for a game that already plays much like
them; and ``DEEP``, the deepest preset, for a game that already plays much
like one of the others) plays
other moves than ``CHECK_PRESET``, with slips of its own by that measure: on
the same positions the game is also compared with each of them, and playing
one's moves on ``SEARCH_AGREEMENT`` of the positions that matter flags it
too (``engine`` names the search it plays like). The figures, and how often
the rule is wrong on our own games, are in ``docs/bots.md``
(``bench/engine_likeness.py`` measures them).

>>> r = likeness(3, 0, "LURD")
>>> sorted(r) == ["agreement", "engine", "engine_like", "mattering", "moves", "searches", "slips"]
True
"""

from __future__ import annotations

import math
from typing import Any

from ..record import positions
from ..rules import DIRECTION_OF_LETTER, UNDO_LETTER
from ..spawn import Seed
from . import learned
from .review import board_weight
from .search import analyse

#: The solver's preset the check compares with (fast: 0.4 ms a 4x4 move, see docs/bots.md).
CHECK_PRESET = "fast"
#: A position matters when the best move beats the second best by this much (review units).
MARGIN = 0.02
#: Flagged at or above this share of best moves on the positions that matter...
AGREEMENT = 0.96
#: A slip: a move that loses this much (the review's "blunder", docs/review.md)...
SLIP = 0.2
#: ...and a game flagged has at most this share of slips over every move with a choice...
SLIPS = 0.002
#: ...over at least this many positions that matter (a short game says too little).
MIN_MATTERING = 40
#: Other searches of the solver's evaluation a game is also compared with (``analyse``'s keywords):
#: a deeper preset, one spawn ahead, and greedy (no spawn ahead).
SEARCHES: dict[str, dict[str, Any]] = {"normal": {"preset": "normal"}, "depth 1": {"depth": 1},
                                       "greedy": {"depth": 0}}
#: Flagged as playing like one of them at or above this share of its moves on the positions that
#: matter (ties count as its move).
SEARCH_AGREEMENT = 0.97
#: The deepest search, asked only about a game that already plays much like the others (a share
#: of ``SUSPECT`` with ``CHECK_PRESET`` or with one of ``SEARCHES``): it costs tens of ms a position.
DEEP = {"strong": {"preset": "strong", "threads": 1}}
SUSPECT = 0.85
#: The trained network's searches (``solver.learned``), compared on 4x4 where its weights are
#: installed: the ``learned`` preset, and the network one and two moves deep (its moves are its
#: own: a game of the preset agrees with ``CHECK_PRESET`` on about 40 % of the positions that
#: matter, so only this comparison catches it). Asked only where the choice matters, they add
#: about half to the check's cost (the preset takes about twice ``CHECK_PRESET``'s time a position).
LEARNED = {"learned": 3, "learned 2-ply": 2, "learned 1-ply": 1}
#: The network's expectimax (``analyse(preset="learned", depth=D)``, ``learn.deep``), asked only
#: about a 4x4 game that already plays much like one of ``LEARNED`` (``NETWORK_SUSPECT``): its moves
#: part from the 3-ply's on a fifth of the positions that matter, so only this comparison catches
#: it, and it costs 2 ms a position at depth 3, 14 at depth 4 (docs/solver.md). Deeper, 50 ms a
#: position and more, is not asked.
LEARNED_DEEP = {"learned depth 3": 3, "learned depth 4": 4}
NETWORK_SUSPECT = 0.7


def likeness(size: int, seed: Seed, log: str, *, preset: str = CHECK_PRESET,
             start_board: Any = None) -> dict[str, Any]:
    """``{moves, mattering, agreement, slips, engine_like}`` for a valid record: ``mattering``
    positions where the choice matters, the share of them where the best move was played
    (``agreement``), and the share of moves with a choice that lost ``SLIP`` or more (``slips``)."""
    moves = choices = mattering = agreed = slipped = 0
    networked = size == 4 and learned.network() is not None
    alike = dict.fromkeys([*SEARCHES, *(LEARNED if networked else ())], 0)
    kept: list[tuple[list[list[int]], str]] = []  # the positions that matter and the move played there
    for i, game in positions(size, seed, log, start=start_board):
        if i >= len(log) or log[i] == UNDO_LETTER:
            continue
        moves += 1
        best, values = analyse(game.board, preset=preset)
        if best is None or len(values) < 2:
            continue
        choices += 1
        ranked = sorted(values.values(), reverse=True)
        weight = board_weight(game.board)
        played = DIRECTION_OF_LETTER[log[i]]
        loss = (values[best] - values.get(played, ranked[-1])) / weight
        slipped += loss >= SLIP
        if (ranked[0] - ranked[1]) / weight < MARGIN:
            continue  # near-equal choices: agreeing there says nothing
        mattering += 1
        agreed += loss <= 0
        kept.append((game.board, played))
        for name, search in SEARCHES.items():
            alike[name] += _plays_like(game.board, played, search)
        if networked:
            for name, ply in LEARNED.items():
                alike[name] += _plays_like_network(game.board, played, ply)
    agreement = agreed / mattering if mattering else 0.0
    slips = slipped / choices if choices else 0.0
    searches = {name: round(n / mattering, 4) if mattering else 0.0 for name, n in alike.items()}
    engine = _engine(mattering, agreement, slips, searches)
    near = max(agreement, *(searches[name] for name in SEARCHES))  # the heuristic's: strong is one
    if engine is None and mattering >= MIN_MATTERING and near >= SUSPECT:
        for name, search in DEEP.items():  # not caught yet, but close: the costly comparison
            searches[name] = round(sum(_plays_like(b, d, search) for b, d in kept) / mattering, 4)
        engine = _engine(mattering, agreement, slips, searches)
    if (networked and engine is None and mattering >= MIN_MATTERING
            and max(searches[name] for name in LEARNED) >= NETWORK_SUSPECT):
        for name, depth in LEARNED_DEEP.items():  # shallowest first: a game caught needs no deeper one
            search = {"preset": "learned", "depth": depth, "threads": 1}
            searches[name] = round(sum(_plays_like(b, d, search) for b, d in kept) / mattering, 4)
            engine = _engine(mattering, agreement, slips, searches)
            if engine is not None:
                break
    return {"moves": moves, "mattering": mattering, "agreement": round(agreement, 4),
            "slips": round(slips, 4), "searches": searches, "engine": engine,
            "engine_like": engine is not None}


def _engine(mattering: int, agreement: float, slips: float, searches: dict[str, float]) -> str | None:
    """The search a game plays like, by the rule, or None."""
    if engine_like(mattering, agreement, slips):
        return CHECK_PRESET
    return next((name for name, share in searches.items()
                 if mattering >= MIN_MATTERING and share >= SEARCH_AGREEMENT), None)


def _plays_like(board: list[list[int]], played: str, search: dict[str, Any]) -> bool:
    """Whether ``played`` is the move (or one of the tied moves) ``search`` picks on ``board``."""
    return _among_best(played, analyse(board, **search)[1])


def _plays_like_network(board: list[list[int]], played: str, ply: int) -> bool:
    """Whether ``played`` is the trained network's move (or one of its tied moves) at ``ply``; a
    position it cannot play (a tile past 32768) counts as not."""
    answer = learned.analyse(board, ply)
    return answer is not None and bool(answer[1]) and _among_best(played, answer[1])


def _among_best(played: str, values: dict[str, float]) -> bool:
    return values.get(played, -math.inf) >= max(values.values()) - 1e-9


def engine_like(mattering: int, agreement: float, slips: float) -> bool:
    """The rule: enough positions that matter, near-total agreement there, next to no slips.

    >>> engine_like(80, 0.99, 0.0), engine_like(80, 0.99, 0.01), engine_like(20, 1.0, 0.0)
    (True, False, False)
    """
    return mattering >= MIN_MATTERING and agreement >= AGREEMENT and slips <= SLIPS
