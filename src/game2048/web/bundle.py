"""A page's whole ES module graph as one script, made by the server from the files as they are.

The game is some twenty small modules. Loaded one by one over HTTP/1.1, a
phone on a slow link fetches them six at a time, a round trip per batch,
and only then can it play: on Lighthouse's mobile profile that was most of
a second and a half. Even as one file they are one more round trip after
the page. So the game page carries its scripts inside it, joined here, and
the first move is possible as soon as the page has arrived. There is still
no build step: the modules stay the source (the unit tests, the replay and
review pages and the service worker's precache use them as they are), and
this module joins them when the server first renders the page.

Each module becomes a function scope that returns its exports, evaluated
after the modules it imports, as the browser evaluates a module graph; an
import becomes a read of those exports:

    import { Game } from './engine.js';      ->  const { Game } = __js_engine_js;
    export function randomSeed() {...}       ->  function randomSeed() {...}
                                                 ... return { Game, randomSeed };

Comment lines, blank lines and indentation are dropped (``compact``): a
third of the weight. Only what the game's modules use is accepted: named
imports of relative ``.js`` paths at the top of a file, and ``export`` in
front of ``function``, ``class``, ``const`` or ``let`` declarations of one
name. Anything else (a renamed or default import, ``export {…}``, a cycle,
text that would end an inline ``<script>``) raises BundleError, and a test
bundles the game, so a module that would bundle wrongly fails the tests
instead of the page. Dynamic ``import('./x.js')`` is kept, with the path
made absolute (``base``).
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from pathlib import Path

_IMPORT = re.compile(r"""^import\s*\{([^}]*)\}\s*from\s*['"](\.\.?/[\w./-]+\.js)['"]\s*;?[ \t]*$""", re.M)
_ANY_IMPORT = re.compile(r"^\s*import\b(?!\s*\()", re.M)
_EXPORT = re.compile(r"^export\s+((?:async\s+)?function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)", re.M)
_ANY_EXPORT = re.compile(r"^\s*export\b", re.M)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_DYNAMIC = re.compile(r"""\bimport\(\s*(['"])(\.\.?/[\w./-]+\.js)\1\s*\)""")
#: What would end or confuse an inline <script> element (HTML's script data rules).
_NOT_INLINE = re.compile(r"</script|<!--|<script", re.I)


class BundleError(ValueError):
    """A module uses a form of import or export the bundle does not translate."""


def _scope_name(rel: str) -> str:
    return "__" + re.sub(r"\W", "_", rel)


def _resolve(rel: str, spec: str) -> str:
    parts = list(Path(rel).parent.parts)
    for piece in spec.split("/"):
        if piece == "..":
            if not parts:
                raise BundleError(f"{rel}: {spec} leaves the static folder")
            parts.pop()
        elif piece not in (".", ""):
            parts.append(piece)
    return "/".join(parts)


def _translate(rel: str, source: str) -> tuple[str, list[str], list[str]]:
    """The module's body with imports and exports rewritten, the modules it imports, its exports."""
    deps: list[str] = []

    def rewrite_import(m: re.Match[str]) -> str:
        names = [n.strip() for n in m.group(1).split(",") if n.strip()]
        for name in names:
            if not _NAME.fullmatch(name):
                raise BundleError(f"{rel}: import {{ {name} }}: only plain names are bundled")
        dep = _resolve(rel, m.group(2))
        deps.append(dep)
        return f"const {{ {', '.join(names)} }} = {_scope_name(dep)};"

    body = _IMPORT.sub(rewrite_import, source)
    other = _ANY_IMPORT.search(body)
    if other:
        line = body[other.start():].strip().splitlines()[0]
        raise BundleError(f"{rel}: an import the bundle does not translate: {line}")
    exports = [m.group(2) for m in _EXPORT.finditer(body)]
    body = _EXPORT.sub(lambda m: f"{m.group(1)} {m.group(2)}", body)
    if _ANY_EXPORT.search(body):
        raise BundleError(f"{rel}: an export the bundle does not translate (only export function, class, "
                          "const or let of one name)")
    return body, deps, exports


def compact(source: str) -> str:
    r"""``source`` without its comment lines, blank lines and indentation; the same code.

    Only whole lines go: a line that is a ``//`` comment, or a ``/* … */``
    block that starts a line and ends one; comments after code stay (a ``//``
    may be inside a string). Line breaks between code lines are kept, so
    automatic semicolons fall where they did. A module with a template
    literal over several lines (a line with an odd number of backticks),
    where indentation and comment-like lines are text, is left as it is.

    >>> compact("  // note\n  /**\n   * doc\n   */\n  const a = 1; // one\n\n  f(a);\n")
    'const a = 1; // one\nf(a);\n'
    """
    kept: list[str] = []
    in_block = False
    for line in source.splitlines():
        text = line.strip()
        if in_block:
            if "*/" in text:
                in_block = False
                if text.split("*/", 1)[1].strip():
                    return source  # code after a comment's end: not a case worth the risk
            continue
        if not text or text.startswith("//"):
            continue
        if text.startswith("/*"):
            end = text.find("*/", 2)
            if end < 0:
                in_block = True
                continue
            if not text[end + 2:].strip():
                continue
        if text.count("`") % 2:
            return source
        kept.append(text)
    return "\n".join(kept) + "\n"


@lru_cache(maxsize=8)
def bundle(entry: str, directory: Path, base: str = "") -> str:
    """``entry`` (``"js/app.js"``) and every module it imports, directly or not, as one script.

    ``base`` is put in front of the paths of dynamic imports (``import('./offline.js')``
    -> ``import('/static/<release>/js/offline.js')`` with ``base="/static/<release>/"``):
    a script inside the page resolves them against the page's address, not the module's.
    """
    order: list[tuple[str, str, list[str]]] = []
    done: set[str] = set()
    visiting: list[str] = []

    def visit(rel: str) -> None:
        if rel in done:
            return
        if rel in visiting:
            raise BundleError(f"import cycle: {' -> '.join([*visiting, rel])}")
        path = directory / rel
        if not path.is_file():
            raise BundleError(f"{visiting[-1] if visiting else 'entry'} imports {rel}, which is not there")
        visiting.append(rel)
        body, deps, exports = _translate(rel, path.read_text(encoding="utf-8"))
        body = compact(body)
        if base:
            body = _DYNAMIC.sub(lambda m: f"import({m[1]}{base}{_resolve(rel, m[2])}{m[1]})", body)
        if found := _NOT_INLINE.search(body):
            raise BundleError(f"{rel}: contains {found[0]!r}, which would end the page's <script> element")
        for dep in deps:
            visit(dep)
        visiting.pop()
        done.add(rel)
        order.append((rel, body, exports))

    visit(entry)
    out = [f"// {entry} and the {len(order) - 1} modules it imports, joined by the server (web/bundle.py)\n"]
    for rel, body, exports in order:
        out.append(f"\n// ---- {rel}\nconst {_scope_name(rel)} = (() => {{\n{body.rstrip()}\n"
                   f"return {{ {', '.join(exports)} }};\n}})();\n")
    return "".join(out)


def csp_hash(script: str) -> str:
    """The Content-Security-Policy source that lets exactly this inline script run."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
