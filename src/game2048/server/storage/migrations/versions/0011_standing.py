"""Fair play with a person in the loop: a game's standing, players' reports, and the operators' log.

``games.standing`` says where a finished game stands: ``checking`` (its engine-like check
is not done: it was ``checked`` false), ``listed`` (on its board), ``held`` (waiting for an
operator, ``held_for`` says why) or ``hidden`` (an operator took it off every board).
``decided`` marks a standing an operator set: no check or report moves it again. ``reports``
are visitors' reports of a game, ``mod_actions`` the operators' audit log, ``barred_keys``
the name keys an operator barred from the players' board (hashes, as ``names`` keeps them).

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
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("standing", sa.String(8), nullable=False, server_default="listed"))
        batch.add_column(sa.Column("held_for", sa.String(16), nullable=True))
        batch.add_column(sa.Column("decided", sa.Boolean, nullable=False, server_default=sa.false()))
    op.execute("UPDATE games SET standing = 'checking' WHERE checked = false")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_unchecked")
        batch.drop_column("checked")
        batch.create_index("ix_games_standing", ["standing", "finished_at"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(16), nullable=False, index=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("game_id", "client", name="uq_reports_game_client"),
    )
    op.create_table(
        "mod_actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("operator", sa.String(64), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("why", sa.Text, nullable=False),
        sa.Column("before", sa.Text, nullable=True),
        sa.Column("after", sa.Text, nullable=True),
    )
    op.create_table(
        "barred_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("barred_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("barred_keys")
    op.drop_table("mod_actions")
    op.drop_table("reports")
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("checked", sa.Boolean, nullable=False, server_default=sa.true()))
    op.execute("UPDATE games SET checked = false WHERE standing <> 'listed'")  # off every board, as before
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_standing")
        batch.create_index("ix_games_unchecked", ["checked", "finished_at"])
        batch.drop_column("decided")
        batch.drop_column("held_for")
        batch.drop_column("standing")
