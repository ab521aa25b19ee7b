#!/usr/bin/env bash
# Install everything the tests need, then run them all: lint, JS units, Python
# (engine, server, solver, pages, the browser suite in headless Chromium, and the
# terminal game in tmux).
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

# The terminal game's tests drive `game2048 play` through Debian's tmux.
if ! command -v tmux >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing tmux (Debian package) for the terminal tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
  else
    echo "note: tmux is not installed and cannot be installed here; terminal tests will skip"
  fi
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

# The slow-client tests run nginx with the configuration in docs/deploy.md.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing nginx (Debian package) for the slow-client tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
  else
    echo "note: nginx is not installed and cannot be installed here; the proxy tests will skip"
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
