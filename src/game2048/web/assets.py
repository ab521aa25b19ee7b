"""The browser game's files: one release fingerprint, long-lived caching, the service worker.

The game page inlines its style sheets (``page_styles``): a render-blocking
request costs a round trip before the first paint, which on a phone is most
of the time to a playable board; the 4.5 KB they weigh compressed travel with
the page instead, and so do its scripts, joined from the modules
(``page_script``, ``web/bundle.py``): a script file would cost another
round trip before the first move.

Every file under ``web/static`` is served at two addresses:

- ``/static/<release>/<path>`` with ``Cache-Control: public, max-age=31536000,
  immutable``, where ``<release>`` is a hash of the content of *all* the files.
  The pages link to these addresses (``asset_url``). ES modules import each
  other with relative paths (``./engine.js``), so a whole module graph loaded
  from one release prefix stays inside it, with no import map and no rewriting
  of imports. The price: any change to any file gives every file a new address,
  which for a game of some 35 KB is one extra download per release.
- ``/static/<path>`` (and a stale release prefix, from a page cached before a
  release) with ``Cache-Control: no-cache``: always revalidated by ``ETag``, so
  never stale.

``/sw.js`` is the service worker with this release's fingerprint and file list
written in front of it, so a new release is a new worker, which precaches the
new files and drops the old cache (see ``web/static/sw.js``).
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from .bundle import bundle, csp_hash

STATIC_DIR = Path(__file__).resolve().parent / "static"

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_RELEASE = re.compile(r"[0-9a-f]{12}")
#: What the service worker keeps for playing offline (the page itself it keeps as it goes).
_PRECACHE = re.compile(r"^(css/.*\.css|js/[^/]*\.js|icons/.*|manifest\.webmanifest)$")


#: The game page's style sheets, in cascade order.
PAGE_STYLES = ("base", "board", "tiles", "panels")


@lru_cache(maxsize=4)
def page_styles(directory: Path = STATIC_DIR) -> str:
    """The game page's CSS, for a ``<style>`` element: the files of PAGE_STYLES one after another."""
    return "\n".join((directory / "css" / f"{name}.css").read_text(encoding="utf-8") for name in PAGE_STYLES)


def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@lru_cache(maxsize=4)
def release(directory: Path = STATIC_DIR) -> str:
    """The fingerprint of the game's files: 12 hex digits that change whenever any file does."""
    digest = hashlib.sha256()
    for path in _files(directory):
        digest.update(path.relative_to(directory).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def asset_url(path: str, directory: Path = STATIC_DIR) -> str:
    """The cache-forever address of a static file: ``asset_url("css/base.css")``."""
    return f"/static/{release(directory)}/{path.lstrip('/')}"


def precache_list(directory: Path = STATIC_DIR) -> list[str]:
    """The addresses the service worker stores at install: the game's code, styles and icons."""
    rels = (p.relative_to(directory).as_posix() for p in _files(directory))
    return [asset_url(rel, directory) for rel in rels if _PRECACHE.match(rel)]


@lru_cache(maxsize=4)
def page_script(directory: Path = STATIC_DIR) -> tuple[str, str]:
    """The game page's scripts, joined to go inside it (web/bundle.py), and the
    Content-Security-Policy source that lets exactly that script run."""
    script = bundle("js/app.js", directory, base=f"/static/{release(directory)}/")
    return script, csp_hash(script)


class ReleaseStaticFiles(StaticFiles):
    """StaticFiles that understands the ``<release>/`` prefix and sets Cache-Control."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        first, _, rest = path.partition("/")
        current = release(Path(str(self.directory)))
        cache = REVALIDATE
        if _RELEASE.fullmatch(first) and rest:
            path = rest
            if first == current:
                cache = IMMUTABLE
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["Cache-Control"] = cache
        return response


_IMPORT = re.compile(r"""(?:import|from)\s*['"](\./[\w./-]+\.js)['"]""")


def module_graph(entry: str = "js/app.js", directory: Path = STATIC_DIR) -> list[str]:
    """Every module ``entry`` imports, directly or not, in the order first met (what the service
    worker must keep, and the bundle must join: the tests check both against this walk)."""
    seen: list[str] = []
    todo = [entry]
    while todo:
        rel = todo.pop(0)
        if rel in seen:
            continue
        seen.append(rel)
        base = Path(rel).parent
        source = (directory / rel).read_text(encoding="utf-8")
        todo.extend((base / m).as_posix().replace("/./", "/") for m in _IMPORT.findall(source))
    return seen


def service_worker(directory: Path = STATIC_DIR) -> Response:
    """``/sw.js``: the worker's code after a line naming this release and its files."""
    head = "const RELEASE = " + json.dumps(
        {"version": release(directory), "files": precache_list(directory)}, separators=(",", ":")
    )
    body = head + ";\n" + (directory / "sw.js").read_text(encoding="utf-8")
    return Response(body, media_type="text/javascript", headers={"Cache-Control": REVALIDATE})
