"""SQLite: a game's position written every few moves (``games.live_at``), not with every move.

See ``live.stores.tail``: the move that takes the row's tail to ``game_moves`` writes
the position (``live``); the moves between leave it and note the ``at`` it
stands at in ``live_at`` (NULL: the position is at ``at``, as before). A read
plays the tail's letters since ``live_at`` on it. PostgreSQL gets the column
too (one schema), and leaves it NULL. The downgrade plays those letters on
every such position first, so the older code finds each position at ``at``.

Revision ID: 0010
Revises: 0009
"""

import json
import re

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# as ``live.stores.tail`` writes them (a migration keeps its own copy: the module may change)
_ENTRY = re.compile(r"(\d+)\.(\d+)([UDLRZ]+)")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("live_at", sa.Integer, nullable=True))


def downgrade() -> None:
    from game2048.game import Game  # the rules: the same in every version

    bind = op.get_bind()
    behind = bind.execute(sa.text("SELECT id, at, live, live_at, tail FROM games WHERE live_at IS NOT NULL "
                                  "AND live IS NOT NULL AND finished_at IS NULL")).all()
    for game_id, at, live, live_at, tail in behind:
        letters = "".join(found for start, _, found in _ENTRY.findall(tail or "") if int(start) >= live_at)
        if not letters:
            continue  # already at ``at``
        game = Game.resume(json.loads(live))
        if len(letters) != at - live_at or game.play(letters) != len(letters):
            continue  # not a position this code wrote: left as it is
        tile = game.last_tile()  # the tile the last letter brought, as a move stores it
        position = game.snapshot() | {"tile": list(tile) if tile is not None else None}
        bind.execute(sa.text("UPDATE games SET live = :live WHERE id = :id"),
                     {"live": json.dumps(position, separators=(",", ":")), "id": game_id})
    with op.batch_alter_table("games") as batch:
        batch.drop_column("live_at")
