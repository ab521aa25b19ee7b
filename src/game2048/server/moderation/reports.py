"""Visitors' reports of finished games: one click and a reason from a short list.

A report is limited per client (``GAME2048_REPORT_RATE_LIMIT``, by the route) and counted once
per game and client (a keyed hash of the address, never the address). A reported game stays
where it is, on its board, and enters the operators' queue until a person decides it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import ClientError
from ..limits.daily import client_key
from ..records.records import could_be_game_id, is_public
from ..storage.db import one_writer, utc_now
from ..storage.models import GameRow, ReportRow

#: The reasons a visitor can pick, as the API names them (the page words them in four languages).
REASONS = ("program", "name", "other")


def report(session: Session, secret: str, client: str, game_id: str, reason: str,
           now: datetime | None = None) -> int:
    """Report ``game_id`` for ``reason``; the answer: how many clients reported it and wait for a
    decision. The same client's report again counts once (and may change nothing)."""
    if reason not in REASONS:
        raise ClientError(422, f"reason must be one of {', '.join(REASONS)}, got {reason!r}")
    row = session.get(GameRow, game_id) if could_be_game_id(game_id) else None
    if row is None or not row.ranked or not is_public(row.mode, row.day, row.finished_at is not None):
        raise ClientError(404, f"there is no finished ranked game {game_id!r} to report")
    who = client_key(secret, f"report:{client}")
    with one_writer(session):
        try:
            with session.begin_nested():
                session.add(ReportRow(game_id=game_id, reason=reason, client=who,
                                      created_at=now or utc_now()))
        except IntegrityError:
            pass  # this client reported it already
        session.commit()
    return open_reports(session, game_id)


def open_reports(session: Session, game_id: str) -> int:
    return int(session.scalar(select(func.count()).select_from(ReportRow).where(
        ReportRow.game_id == game_id, ReportRow.closed_at.is_(None))) or 0)
