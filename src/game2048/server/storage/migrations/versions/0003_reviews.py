"""Reviews of finished games by the solver (server/reviews.py).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("game_id", sa.String(16), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("preset", sa.String(8), nullable=False),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("worker", sa.String(64), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
    )
    op.create_index("ix_reviews_queue", "reviews", ["status", "requested_at"])
    op.create_index("ix_reviews_client", "reviews", ["client", "status"])


def downgrade() -> None:
    op.drop_index("ix_reviews_client", table_name="reviews")
    op.drop_index("ix_reviews_queue", table_name="reviews")
    op.drop_table("reviews")
