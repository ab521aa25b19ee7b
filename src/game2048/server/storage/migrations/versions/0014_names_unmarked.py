"""Held names: skeletons without nonspacing marks, and a name found by its key (recovery, release).

``records.names.skeleton`` now drops nonspacing marks (Mn): each held name's
skeleton is made again so, and a new name that adds a mark to a held one meets
it. The key's hash gets an index: ``POST /api/names/recover`` finds a name by its
key. The downgrade drops the index and leaves the skeletons (the older code
compares a new name's marked skeleton with them, which refuses no more than it did).

Revision ID: 0014
Revises: 0013
"""

import unicodedata
from importlib.resources import files

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _unmarked(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def skeleton(name: str, prototypes: dict[str, str]) -> str:
    """``records.names.skeleton`` as of this revision, for a name the rule stored (no default-ignorable
    code point is in one). A migration keeps its own copy: the module may change."""
    return _unmarked("".join(prototypes.get(c, c) for c in _unmarked(name)))


def prototypes() -> dict[str, str]:
    """Unicode's confusables as the package ships them (``game2048/data/confusables.tsv``)."""
    table: dict[str, str] = {}
    for line in (files("game2048") / "data" / "confusables.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split("\t")
            table[chr(int(source, 16))] = "".join(chr(int(h, 16)) for h in target.split())
    return table


def upgrade() -> None:
    bind = op.get_bind()
    held = bind.execute(sa.text("SELECT name, skeleton FROM names")).all()
    table = prototypes() if held else {}
    for name, old in held:
        if skeleton(name, table) != old:
            bind.execute(sa.text("UPDATE names SET skeleton = :s WHERE name = :n"),
                         {"s": skeleton(name, table), "n": name})
    op.create_index("ix_names_key_hash", "names", ["key_hash"])


def downgrade() -> None:
    op.drop_index("ix_names_key_hash", table_name="names")
