"""Leaderboards a script cannot top: the engines board, help the server knows of, held names,
the engine-like check of players' games.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("board", sa.String(8), nullable=False, server_default="players"))
        batch.add_column(sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("helped", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("checked", sa.Boolean, nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("engine_like", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("likeness", sa.Text, nullable=True))
        batch.create_index("ix_games_unchecked", ["checked", "finished_at"])
        batch.drop_index("ix_games_board")
        batch.create_index("ix_games_board",
                           ["board", "size", "mode", "day", "ranked", "score", "finished_at"])
    op.create_table(
        "names",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("skeleton", sa.String(256), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("first_game", sa.String(16), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_names_skeleton", "names", ["skeleton"])


def downgrade() -> None:
    op.drop_index("ix_names_skeleton", table_name="names")
    op.drop_table("names")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_board")
        batch.create_index("ix_games_board", ["size", "mode", "day", "ranked", "score", "finished_at"])
        batch.drop_index("ix_games_unchecked")
        batch.drop_column("likeness")
        batch.drop_column("engine_like")
        batch.drop_column("checked")
        batch.drop_column("helped")
        batch.drop_column("bot")
        batch.drop_column("board")
