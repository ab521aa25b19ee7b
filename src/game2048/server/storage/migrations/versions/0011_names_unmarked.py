"""Held names: skeletons without nonspacing marks, and a name found by its key (recovery, release).

``names.skeleton`` now drops nonspacing marks (Mn): each held name's skeleton is
made again with it, so a new name that adds a mark to a held one meets it. The
key's hash gets an index: ``POST /api/names/recover`` finds a name by its key.
The downgrade drops the index and leaves the skeletons (the older code compares
a new name's marked skeleton with them, which refuses no more than it did).

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from game2048.server.records.names import skeleton  # the rule as this release compares names

    bind = op.get_bind()
    for name, old in bind.execute(sa.text("SELECT name, skeleton FROM names")).all():
        if skeleton(name) != old:
            bind.execute(sa.text("UPDATE names SET skeleton = :s WHERE name = :n"),
                         {"s": skeleton(name), "n": name})
    op.create_index("ix_names_key_hash", "names", ["key_hash"])


def downgrade() -> None:
    op.drop_index("ix_names_key_hash", table_name="names")
