"""Boards a client asked the solver about bare (``POST /api/hint``), kept a while: a ranked game of
that client's that stood on one finishes helped (``live.asked``).

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "asked_boards",
        sa.Column("client", sa.String(64), primary_key=True),
        sa.Column("board", sa.String(32), primary_key=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_asked_boards_asked_at", "asked_boards", ["asked_at"])


def downgrade() -> None:
    op.drop_index("ix_asked_boards_asked_at", table_name="asked_boards")
    op.drop_table("asked_boards")
