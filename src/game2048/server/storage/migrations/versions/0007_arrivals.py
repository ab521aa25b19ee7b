"""Arrival times: when each batch of moves reached the server, and each finished letter's.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_moves") as batch:
        batch.add_column(sa.Column("ms", sa.BigInteger, nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("times", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("times")
    with op.batch_alter_table("game_moves") as batch:
        batch.drop_column("ms")
