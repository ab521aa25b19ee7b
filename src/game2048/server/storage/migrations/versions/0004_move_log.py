"""Moves of a game in play appended as rows, not rewritten with the whole log.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_moves",
        sa.Column("game_id", sa.String(16), primary_key=True),
        sa.Column("at", sa.Integer, primary_key=True),
        sa.Column("letters", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_moves")
