#!/usr/bin/env bash
# Install everything the tests need, then run them all: lint, JS units, Python
# (engine, server, solver, pages, and the browser suite in headless Chromium).
#
#   ./scripts/test.sh            # from a fresh clone; safe to run again
#   ./scripts/test.sh -k replay  # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'

# The browser tests inject axe-core (the accessibility checker) from node_modules.
if [ -f package-lock.json ] && command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error
fi

# Browser tests drive Debian's Chromium (never a downloaded browser build).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (Debian package) for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "note: chromium is not installed and cannot be installed here; browser tests will skip"
  fi
fi

echo "== ruff"
.venv/bin/ruff check src tests bench

if [ -d tests/js ]; then
  echo "== node --test"
  node --test tests/js/
fi

echo "== pytest"
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" = 5 ]; then
  echo "pytest collected no tests: that is a failure here, not a pass" >&2
fi
exit "$status"
