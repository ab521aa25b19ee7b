"""A game's newest moves in its own row (``games.tail``), so that an SQLite move writes one row.

See ``live.stores.tail``: on SQLite a move appends its entry to the row's tail in the
same statement that moves its position on, and every few moves the tail goes to
``game_moves``. PostgreSQL gets the column too (one schema), and leaves it empty.
The downgrade moves what tails hold to ``game_moves`` first.

Revision ID: 0009
Revises: 0008
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# as ``live.stores.tail`` writes them (a migration keeps its own copy: the module may change)
_ENTRY = re.compile(r"(\d+)\.(\d+)([UDLRZ]+)")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("tail", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    bind = op.get_bind()
    kept = bind.execute(sa.text("SELECT id, tail FROM games WHERE tail <> ''")).all()
    rows = [{"game_id": game_id, "at": int(at), "letters": letters, "ms": int(ms)}
            for game_id, tail in kept for at, ms, letters in _ENTRY.findall(tail)]
    if rows:
        bind.execute(sa.text("INSERT INTO game_moves (game_id, at, letters, ms) "
                             "VALUES (:game_id, :at, :letters, :ms)"), rows)
    with op.batch_alter_table("games") as batch:
        batch.drop_column("tail")
