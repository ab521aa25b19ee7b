"""Secret seeds: a game's seed is text, a secret seed's 32 hex digits or an old integer
seed's decimal digits (``storage.models.SeedColumn`` reads either back).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.alter_column("seed", existing_type=sa.BigInteger, type_=sa.String(32), existing_nullable=False,
                           postgresql_using="seed::text")


def downgrade() -> None:
    # a secret seed has no integer form: those games cannot go back, and are removed
    op.execute(sa.text("DELETE FROM game_moves WHERE game_id IN "
                       "(SELECT id FROM games WHERE length(seed) = 32)"))
    op.execute(sa.text("DELETE FROM games WHERE length(seed) = 32"))
    with op.batch_alter_table("games") as batch:
        batch.alter_column("seed", existing_type=sa.String(32), type_=sa.BigInteger, existing_nullable=False,
                           postgresql_using="seed::bigint")
