"""The operators' queue: the games that wait for a person, with the evidence to decide on.

A game is in the queue while it is ``held`` (an outcome people rarely reach), while visitors'
reports of it are open, or when the engine-like check moved it and no operator has looked yet.
Held games come first, then the most reported, then the oldest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from ..records.arrivals import times_from_text
from ..records.standing import Shown, shown
from ..storage.models import GameRow, NameRow, ReportRow


@dataclass(frozen=True)
class Other:
    """Another game under the same name key's names."""

    id: str
    size: int
    score: int
    max_tile: int
    board: str
    standing: Shown


@dataclass(frozen=True)
class Case:
    """A game in the queue, and why it is there."""

    id: str
    name: str
    size: int
    mode: str
    score: int
    max_tile: int
    moves: int
    finished_at: datetime
    board: str
    standing: Shown
    held_for: str | None
    #: Open reports by reason.
    reports: dict[str, int]
    #: The engine-like check's figures (``solver.likeness``), once done.
    likeness: dict[str, Any] | None
    #: When each letter arrived, ms since the game was issued (``records.arrivals``).
    times: list[int] | None
    #: The other games of the names its name's key holds, newest first.
    others: list[Other] = field(default_factory=list)

    @property
    def why(self) -> list[str]:
        reasons = [f"held: {self.held_for}"] if self.standing == "held" else []
        reasons += [f"reported ({n}): {reason}" for reason, n in sorted(self.reports.items())]
        if self.standing == "moved":
            reasons.append("moved to the engines board by the check")
        return reasons


def cases(session: Session, limit: int = 50) -> list[Case]:
    """The queue, held games first, then the most reported, then the oldest."""
    reported = (select(ReportRow.game_id, func.count().label("n")).where(ReportRow.closed_at.is_(None))
                .group_by(ReportRow.game_id).subquery())
    n = func.coalesce(reported.c.n, 0)
    moved = and_(GameRow.standing == "listed", GameRow.engine_like.is_(True))
    waiting = and_(GameRow.decided.is_(False), or_(GameRow.standing == "held", moved))
    rows = session.execute(
        select(GameRow, n).outerjoin(reported, reported.c.game_id == GameRow.id)
        .where(GameRow.finished_at.is_not(None), GameRow.ranked.is_(True), or_(n > 0, waiting))
        .order_by((GameRow.standing == "held").desc(), n.desc(), GameRow.finished_at)
        .limit(limit)
    ).all()
    return [_case(session, row) for row, _ in rows]


def _case(session: Session, row: GameRow) -> Case:
    by_reason = dict(session.execute(
        select(ReportRow.reason, func.count())
        .where(ReportRow.game_id == row.id, ReportRow.closed_at.is_(None)).group_by(ReportRow.reason)).all())
    return Case(row.id, row.name or "", row.size, row.mode, row.score or 0, row.max_tile or 0, row.moves or 0,
                row.finished_at, row.board, shown(row.standing, row.engine_like), row.held_for,  # type: ignore[arg-type]
                {str(k): int(v) for k, v in by_reason.items()},
                json.loads(row.likeness) if row.likeness else None, times_from_text(row.times),
                _others(session, row))


def _others(session: Session, row: GameRow, limit: int = 20) -> list[Other]:
    key = select(NameRow.key_hash).where(NameRow.name == row.name).scalar_subquery()
    names = select(NameRow.name).where(NameRow.key_hash == key)
    found = session.execute(
        select(GameRow.id, GameRow.size, GameRow.score, GameRow.max_tile, GameRow.board, GameRow.standing,
               GameRow.engine_like)
        .where(GameRow.name.in_(names), GameRow.id != row.id, GameRow.finished_at.is_not(None))
        .order_by(GameRow.finished_at.desc()).limit(limit)).all()
    return [Other(r.id, r.size, r.score or 0, r.max_tile or 0, r.board, shown(r.standing, r.engine_like))
            for r in found]
