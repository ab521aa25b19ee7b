"""What an installation carries: every file the package reads ships in the wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "game2048"


def test_package_data_covers_every_file_that_is_not_python():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = setuptools["package-data"]["game2048"]
    shipped = {p for pattern in globs for p in PACKAGE.glob(pattern) if p.is_file()}
    data = {p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.suffix not in (".py", ".pyc")}
    assert sorted(str(p.relative_to(PACKAGE)) for p in data - shipped) == []
