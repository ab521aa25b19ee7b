"""The server's rooms keep their insides to themselves: no module reaches for another
module's private (underscore) names, by import or by attribute."""

from __future__ import annotations

import ast
from pathlib import Path

import game2048

PACKAGE = Path(game2048.__file__).parent
ROOMS = {"api", "http", "limits", "live", "ops", "records", "reviews", "storage"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _reaches(path: Path) -> list[str]:
    """Each place in ``path`` that uses a private name of another module of ours."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours: set[str] = set()  # names bound to modules of this package
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("game2048")):
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{path.name}:{node.lineno} imports {alias.name} from {node.module}")
                ours.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            ours.update((a.asname or a.name).split(".")[0] for a in node.names
                        if a.name.startswith("game2048"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in ours):
            found.append(f"{path.name}:{node.lineno} uses {node.value.id}.{node.attr}")
    return found


def test_the_server_is_in_rooms_by_concern():
    rooms = {p.name for p in (PACKAGE / "server").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert rooms == ROOMS
    loose = {p.name for p in (PACKAGE / "server").glob("*.py")}
    assert loose <= {"__init__.py", "app.py", "command.py", "config.py", "errors.py"}, loose


def test_no_module_uses_another_modules_private_names():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if "migrations" not in path.parts
             for hit in _reaches(path)]
    assert found == []
