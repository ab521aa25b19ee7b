"""Why a game that kept to the rules is not ranked, where its log does not say: ``games.unranked``
(``abandoned``: a daily try left for a new game before it ended).

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("unranked", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("unranked")
