"""The server's rooms keep their insides to themselves, and the arrows between the package's parts and
the server's rooms point one way: one table of the imports allowed, read from the code on every run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import game2048

PACKAGE = Path(game2048.__file__).parent

#: The server's ground floor: anyone in the server may import it; it imports no room (nor each other).
GROUND = {"clients", "config", "errors", "metrics", "storage"}
#: The rooms of the server (``server/<room>/``) and which other rooms each may import, the ground
#: floor aside. ``app``, ``command`` and the package's ``__init__`` assemble: they may import anything.
SERVER = {
    "api": {"caching", "http", "limits", "live", "moderation", "records", "reviews"},
    "live": {"limits", "records", "storage"},
    "records": {"storage"},
    "reviews": {"records", "storage"},
    "site": {"caching", "http", "moderation", "records", "reviews"},
    "moderation": {"limits", "records"},
    "limits": set(),
    "http": {"caching"},
    "caching": set(),
    "ops": set(),
    **{ground: set() for ground in GROUND},
}
ASSEMBLERS = {"__init__", "app", "command"}
#: The package's parts: what each may not import. Everything else at the top (the rules, the engine,
#: spawns, games, records, limits, pictures, the dealer...) is the core.
OUTER = {"cli", "env", "server", "solver", "terminal", "web"}
FORBIDDEN = {"core": OUTER, "solver": {"cli", "server", "terminal"}, "server": {"cli", "terminal"},
             "terminal": {"cli", "server"}, "web": {"cli", "server", "solver", "terminal"}}
def _module(path: Path) -> list[str]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_module(dotted: str) -> bool:
    place = PACKAGE.parent.joinpath(*dotted.split("."))
    return place.is_dir() or place.with_suffix(".py").is_file()


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module of ours that ``path`` imports (at the top or inside a function), as ``(line,
    dotted name)``: ``from .. import metrics`` in ``server/limits/cpu.py`` is ``game2048.server.metrics``."""
    package = _module(path) if path.name == "__init__.py" else _module(path)[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            above = package[:len(package) - node.level + 1] if node.level else []
            base = ".".join([*above, node.module or ""]).strip(".")
            for alias in node.names:
                inner = f"{base}.{alias.name}"
                found.append((node.lineno, inner if _is_module(inner) else base))
    return sorted({(line, name) for line, name in found if name.split(".")[0] == "game2048"})


def _part(dotted: str) -> str:
    parts = dotted.split(".")
    if len(parts) < 2:
        return "package"
    return parts[1] if parts[1] in OUTER else "core"


def _room(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "server" else None


def wrong_arrows(found: list[tuple[str, int, str, str]]) -> list[str]:
    """The imports of ``found`` (file, line, importing module, imported module) that the tables do not
    allow, each named with its file and line."""
    wrong = []
    for file, line, source, target in found:
        part, to = _part(source), _part(target)
        if to in FORBIDDEN.get(part, set()):
            wrong.append(f"{file}:{line} imports {target}: {part} may not import {to}")
        room, other = _room(source), _room(target)
        if room is None or other is None or room == other or room in ASSEMBLERS:
            continue
        allowed = SERVER.get(room)
        if allowed is None:
            wrong.append(f"{file}:{line}: server/{room} is in no room of the table")
        elif other in ASSEMBLERS or other not in allowed | (GROUND if room not in GROUND else set()):
            wrong.append(f"{file}:{line} imports {target}: {room} may not import {other}")
    return wrong


def _all_imports() -> list[tuple[str, int, str, str]]:
    return [(str(path.relative_to(PACKAGE)), line, ".".join(_module(path)), target)
            for path in sorted(PACKAGE.rglob("*.py")) for line, target in imports(path)]


def test_every_import_follows_the_table():
    assert wrong_arrows(_all_imports()) == []


@pytest.mark.parametrize(("file", "source", "target", "says"), [
    ("server/live/mover.py", "game2048.server.live.mover", "game2048.server.api.deps",
     "live may not import api"),
    ("server/records/x.py", "game2048.server.records.x", "game2048.server.live.seeds",
     "records may not import live"),  # a loop: live imports records
    ("server/metrics.py", "game2048.server.metrics", "game2048.server.limits.rate",
     "metrics may not import limits"),
    ("server/storage/db.py", "game2048.server.storage.db", "game2048.server.clients.address",
     "storage may not import clients"),
    ("server/http/x.py", "game2048.server.http.x", "game2048.server.app", "http may not import app"),
    ("rules.py", "game2048.rules", "game2048.solver.search", "core may not import solver"),
    ("solver/bot.py", "game2048.solver.bot", "game2048.terminal.session", "solver may not import terminal"),
    ("server/site/x.py", "game2048.server.site.x", "game2048.cli", "server may not import cli"),
])
def test_an_arrow_against_the_table_is_named(file, source, target, says):
    assert wrong_arrows([(file, 7, source, target)]) == [f"{file}:7 imports {target}: {says}"]


def test_imports_inside_functions_and_relative_ones_are_read():
    server = PACKAGE / "server"
    assert "game2048.server.metrics" in {target for _, target in imports(server / "limits" / "cpu.py")}
    assert "game2048.solver" in {target for _, target in imports(server / "live" / "runner.py")}  # lazy


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
    server = PACKAGE / "server"
    rooms = {p.name for p in server.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert rooms == set(SERVER) - {p.stem for p in server.glob("*.py")}
    loose = {p.stem for p in server.glob("*.py")}
    assert loose == ASSEMBLERS | (GROUND - rooms), loose


def test_no_module_uses_another_modules_private_names():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if "migrations" not in path.parts
             for hit in _reaches(path)]
    assert found == []
