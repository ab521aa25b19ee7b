"""Doctests run over the package; Alembic's environment script only runs under Alembic."""

collect_ignore_glob = ["src/game2048/server/migrations/*", "tests/vectors/generate.py"]
