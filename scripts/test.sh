#!/usr/bin/env bash
# Install everything the tests need, then run them all: lint, JS units, Python
# (engine, server, solver, pages, the browser suite in headless Chromium, and the
# terminal game in tmux).
#
#   ./scripts/test.sh            # from a fresh clone; safe to run again (what CI runs)
#   ./scripts/test.sh --fast     # everyday work: all but the browser and tmux tests
#   ./scripts/test.sh -k replay  # extra arguments go to pytest (-n 0: one process)
#
# pytest runs on GAME2048_TEST_WORKERS processes (pytest-xdist; default 3: many tests wait on
# servers, sockets or the browser, so one more than this machine's two cores pays).
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
args=()
for arg in "$@"; do
  if [ "$arg" = --fast ]; then fast=1; else args+=("$arg"); fi
done

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# the trained weights too (weights/): the learned preset, the hints and the solver page's network
# figures are tested against what a server with them plays
.venv/bin/python -m pip install --quiet -e '.[test]' -e ./weights

# The browser tests inject axe-core (the accessibility checker) from node_modules.
if [ -f package-lock.json ] && command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error
fi

# Debian packages some tests need (never a downloaded browser build): installed
# when missing and we are root; otherwise the tests that need them say why they skip.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)      # browser tests
command -v tmux >/dev/null 2>&1 || missing+=(tmux)              # the terminal game in tmux
{ command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null 2>&1 || missing+=(nginx)  # slow clients behind nginx
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages for the tests: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "note: ${missing[*]} missing and cannot be installed here; the tests that need them will skip"
  fi
fi

echo "== ruff"
.venv/bin/ruff check src tests bench

if [ -d tests/js ]; then
  echo "== node --test"
  node --test tests/js/
fi

echo "== pytest"
marks=()
if [ "$fast" = 1 ]; then
  marks=(-m "not browser and not tmux")
fi
# --dist loadgroup: the tests of one xdist_group (tests/conftest.py) share a worker
set +e
.venv/bin/python -m pytest -n "${GAME2048_TEST_WORKERS:-3}" --dist loadgroup "${marks[@]}" "${args[@]}"
status=$?
set -e
if [ "$status" = 5 ]; then
  echo "pytest collected no tests: that is a failure here, not a pass" >&2
fi
exit "$status"
