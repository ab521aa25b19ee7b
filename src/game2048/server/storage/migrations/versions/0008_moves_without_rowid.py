"""SQLite: ``game_moves`` kept in its primary key's tree (``WITHOUT ROWID``).

A rowid table keeps each row twice over: in the table's tree and in the primary
key's index. Every move appends a row, so every move's commit wrote both pages;
clustered on ``(game_id, at)`` it writes one. PostgreSQL is left as it is (a
heap and its key's index either way).

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _rebuild(with_rowid: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    # the batch copies the rows into a new table made with these options, then renames it
    with op.batch_alter_table("game_moves", recreate="always",
                              table_kwargs={"sqlite_with_rowid": with_rowid}):
        pass


def upgrade() -> None:
    _rebuild(False)


def downgrade() -> None:
    _rebuild(True)
