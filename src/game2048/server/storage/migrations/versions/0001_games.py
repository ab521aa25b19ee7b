"""Games and the server's secret.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("day", sa.Date, nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("name", sa.String(24), nullable=True),
        sa.Column("log", sa.Text, nullable=True),
        sa.Column("score", sa.BigInteger, nullable=True),
        sa.Column("max_tile", sa.BigInteger, nullable=True),
        sa.Column("moves", sa.Integer, nullable=True),
        sa.Column("ranked", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_games_board", "games", ["size", "mode", "day", "ranked", "score", "finished_at"])
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
    op.drop_index("ix_games_board", table_name="games")
    op.drop_table("games")
