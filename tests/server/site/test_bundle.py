"""The game's modules joined into one script: the same program, one request."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from game2048.server.app import create_app
from game2048.server.config import Settings
from game2048.web.assets import STATIC_DIR, module_graph, page_script, release
from game2048.web.bundle import BundleError, bundle, compact

NODE = shutil.which("node")


@pytest.fixture()
def client(tmp_path: Path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'b.db'}", warm_solver=False)
    with TestClient(create_app(settings)) as c:
        yield c


def _graph(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "js" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _run(script: str) -> list[object]:
    done = subprocess.run([NODE, "--input-type=module", "-e", script],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_bundle_runs_modules_once_each_after_what_they_import(tmp_path: Path):
    root = _graph(tmp_path, {
        "main.js": "import { twice } from './lib/math.js';\nimport { log, name } from './log.js';\n"
                   "log(`main ${twice(21)} ${name}`);\nconsole.log(JSON.stringify(globalThis.order));\n",
        "log.js": "// the order modules ran in\nglobalThis.order = [];\nexport function log(s) {\n"
                  "  globalThis.order.push(s);\n}\nexport const name = 'log';\nlog('log');\n",
        "lib/math.js": "import { log } from '../log.js';\n/**\n * doubled\n */\nexport function twice(n) {\n"
                       "  return 2 * n; // not a comment to drop: 'http://x'\n}\nexport class Unused {}\n"
                       "const local = 1; // main has one too: each module has its own scope\n"
                       "log('math');\n",
    })
    # `local` in two modules must not collide
    (root / "js" / "main.js").write_text((root / "js" / "main.js").read_text() + "const local = 2;\n")
    assert _run(bundle("js/main.js", root)) == ["log", "math", "main 42 log"]


def test_forms_the_bundle_cannot_translate_are_refused(tmp_path: Path):
    cases = {
        "import x from './b.js';\n": "import",
        "import { a as b } from './b.js';\n": "plain names",
        "import * as b from './b.js';\n": "import",
        "const a = 1;\nexport { a };\n": "export",
        "export default function f() {}\n": "export",
    }
    for i, (text, why) in enumerate(cases.items()):
        root = _graph(tmp_path / str(i), {"a.js": text, "b.js": "export const a = 1;\n"})
        with pytest.raises(BundleError, match=why):
            bundle("js/a.js", root)
    root = _graph(tmp_path / "cycle", {"a.js": "import { b } from './b.js';\nexport const a = 1;\n",
                                       "b.js": "import { a } from './a.js';\nexport const b = 2;\n"})
    with pytest.raises(BundleError, match="cycle"):
        bundle("js/a.js", root)
    root = _graph(tmp_path / "missing", {"a.js": "import { b } from './nowhere.js';\n"})
    with pytest.raises(BundleError, match="not there"):
        bundle("js/a.js", root)


def test_a_multi_line_template_literal_keeps_its_text():
    source = "const t = `line one\n    // not a comment\n  line three`;\n"
    assert compact(source) == source


def test_the_game_bundles_with_every_module_it_imports():
    text = bundle("js/app.js", STATIC_DIR)
    for module in module_graph("js/app.js"):
        assert f"// ---- {module}\n" in text, module
    assert not re.search(r"^\s*(import\s*\{|export\s)", text, re.M)


def test_dynamic_imports_are_made_absolute_for_a_script_inside_the_page(tmp_path: Path):
    root = _graph(tmp_path, {"a.js": "window.addEventListener('load', () => import('./later.js'));\n",
                             "later.js": "export const x = 1;\n"})
    assert "import('/static/abc/js/later.js')" in bundle("js/a.js", root, base="/static/abc/")
    assert "import('./later.js')" in bundle("js/a.js", root)


def test_text_that_would_end_the_script_element_is_refused(tmp_path: Path):
    root = _graph(tmp_path, {"a.js": "const s = '</script><script>alert(1)';\n"})
    with pytest.raises(BundleError, match="script"):
        bundle("js/a.js", root)


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_game_bundle_is_valid_javascript(tmp_path: Path):
    out = tmp_path / "app.bundle.mjs"
    out.write_text(page_script()[0])
    done = subprocess.run([NODE, "--check", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_page_carries_its_script_and_lets_only_that_one_run(client):
    answer = client.get("/", headers={"Accept-Encoding": "gzip"})
    html = answer.text
    assert re.findall(r"<script[^>]*\ssrc=", html) == []  # no script file to wait for
    scripts = re.findall(r'<script type="module">(.*?)</script>', html, re.S)
    assert len(scripts) == 1 and scripts[0] == page_script()[0]
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    directives = dict(d.strip().split(" ", 1) for d in answer.headers["content-security-policy"].split(";"))
    assert directives["script-src"] == f"'self' 'sha256-{digest}'"
    assert "'unsafe-inline'" not in directives["script-src"]
    # the offline worker is imported from this release's address, not from the page's
    assert f"import('/static/{release()}/js/offline.js')" in scripts[0]
    # comments and indentation stay in the modules: the page's script is well under their sum
    modules = sum(len(gzip.compress((STATIC_DIR / m).read_bytes())) for m in module_graph())
    assert len(gzip.compress(scripts[0].encode())) < 0.75 * modules


def test_other_answers_keep_the_policy_without_inline_script(client):
    for path in ["/rules", "/leaderboard", "/api/leaderboard"]:
        assert "sha256" not in client.get(path).headers["content-security-policy"], path
