"""Games in play on the server, practice records, daily tries.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("at", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("live", sa.Text, nullable=True))
        batch.add_column(sa.Column("touched_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("finish_rank", sa.Integer, nullable=True))
        batch.add_column(sa.Column("start", sa.Text, nullable=True))
        batch.create_index("ix_games_touched", ["touched_at"])
    op.create_table(
        "daily_tries",
        sa.Column("client", sa.String(64), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("size", sa.Integer, primary_key=True),
        sa.Column("tries", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("daily_tries")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_touched")
        batch.drop_column("start")
        batch.drop_column("finish_rank")
        batch.drop_column("touched_at")
        batch.drop_column("live")
        batch.drop_column("at")
