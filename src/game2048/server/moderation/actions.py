"""What an operator can do to a game or a name, each written to the audit log (``mod_actions``).

A decision on a game is final for the automatic rules: the game is ``decided``, and no check or
report moves it again; its open reports are closed. Barring a name key takes the games of its
names off the players' board, and its later games land on the engines board (``owners.barred``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from ..errors import ClientError
from ..storage.db import one_writer, utc_now
from ..storage.models import BarredKeyRow, GameRow, ModActionRow, NameRow, ReportRow

#: The actions, and what each does, as the operators' page and ``game2048 mod`` say it.
ACTIONS = {
    "list": "put the game on the players' board, and keep it there",
    "engines": "move the game to the engines board",
    "hide": "take the game off every board",
    "bar": "bar the name's key from the players' board (its games move to the engines board)",
    "release": "free the name for anyone",
}
GAME_ACTIONS = {
    "list": {"board": "players", "standing": "listed", "held_for": None, "engine_like": False},
    "engines": {"board": "engines", "standing": "listed", "held_for": None},
    "hide": {"standing": "hidden", "held_for": None},
}
#: The fields of a game the audit log keeps before and after.
GAME_FIELDS = ("board", "standing", "held_for", "engine_like", "decided")


@dataclass(frozen=True)
class Logged:
    """One entry of the audit log."""

    id: int
    at: datetime
    operator: str
    action: str
    target: str
    why: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


def act(session: Session, operator: str, action: str, target: str, why: str,
        now: datetime | None = None) -> Logged:
    """Do ``action`` on ``target`` (a game id, or a name for ``bar`` and ``release``) as ``operator``,
    for the reason ``why``, and log it; ClientError (404, 422) changes nothing."""
    now = now or utc_now()
    why, operator = why.strip(), operator.strip()
    if action not in ACTIONS:
        raise ClientError(422, f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
    if not why:
        raise ClientError(422, "why: say why (it is kept in the audit log)")
    if not operator:
        raise ClientError(422, "operator: say who acts (it is kept in the audit log)")
    with one_writer(session):
        before, after = (_game(session, action, target, now) if action in GAME_ACTIONS
                         else _name(session, action, target, now))
        row = ModActionRow(at=now, operator=operator[:64], action=action, target=target[:64], why=why,
                           before=json.dumps(before), after=json.dumps(after))
        session.add(row)
        session.commit()
        return _logged(row)


def _game(session: Session, action: str, game_id: str, now: datetime) -> tuple[dict, dict]:
    row = session.get(GameRow, game_id)
    if row is None or row.finished_at is None or not row.ranked:
        raise ClientError(404, f"there is no finished ranked game {game_id!r}")
    if row.bot and action == "list":
        raise ClientError(409, "a declared bot's game stays on the engines board")
    before = {field: getattr(row, field) for field in GAME_FIELDS}
    values = GAME_ACTIONS[action] | {"decided": True}
    session.execute(update(GameRow).where(GameRow.id == game_id).values(**values))
    session.execute(update(ReportRow).where(ReportRow.game_id == game_id, ReportRow.closed_at.is_(None))
                    .values(closed_at=now))
    return before, before | values


def _name(session: Session, action: str, name: str, now: datetime) -> tuple[dict, dict]:
    held = session.get(NameRow, name)
    if held is None:
        raise ClientError(404, f"nobody holds the name {name!r}")
    barred = session.get(BarredKeyRow, held.key_hash) is not None
    before = {"held": True, "barred": barred}
    if action == "release":
        session.execute(delete(NameRow).where(NameRow.name == name))
        return before, {"held": False, "barred": barred}
    if not barred:
        session.add(BarredKeyRow(key_hash=held.key_hash, barred_at=now))
    names = session.scalars(select(NameRow.name).where(NameRow.key_hash == held.key_hash)).all()
    moved = session.execute(update(GameRow).where(
        GameRow.name.in_(names), GameRow.board == "players", GameRow.bot.is_(False), GameRow.ranked.is_(True),
        GameRow.finished_at.is_not(None)).values(board="engines", standing="listed", decided=True)).rowcount
    return before, {"held": True, "barred": True, "games_moved": moved, "names": list(names)}


def audit_log(session: Session, limit: int = 100) -> list[Logged]:
    """The newest entries of the audit log first."""
    rows = session.scalars(select(ModActionRow).order_by(ModActionRow.id.desc()).limit(limit)).all()
    return [_logged(row) for row in rows]


def _logged(row: ModActionRow) -> Logged:
    before, after = (json.loads(text) if text else None for text in (row.before, row.after))
    return Logged(row.id, row.at, row.operator, row.action, row.target, row.why, before, after)
