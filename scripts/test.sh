#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh machine, checks the code (ruff, then
# mypy: the rules are in pyproject.toml), then runs the whole suite; it fails at the first
# of them that fails. Python packages go into .venv; the system programs the tests drive for
# real (Debian's chromium for the browser tests, PostgreSQL for the store, curl, C/Java/Node
# toolchains) come from apt when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The test environment (torch, ray, chromium's driver, ... : about 2 minutes to install) is kept
# between runs on this machine, in the user's cache, under a key of the Python version and the
# dependency lists: a fresh clone links .venv to it and installs only wwm itself (editable, no
# dependencies, with the build backend kept in the environment: about a second). A checkout that
# has its own .venv (the README's first command) keeps it, and gets what the tests need in it.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wwm"
if [ ! -e .venv ]; then
  key=$(python3 scripts/deps_key.py)
  mkdir -p "$cache/venvs"
  if [ ! -x "$cache/venvs/$key/bin/python" ] || [ ! -e "$cache/venvs/$key/complete" ]; then
    echo "making the test environment $cache/venvs/$key (kept for later runs)"
    rm -rf "$cache/venvs/$key"
    python3 -m venv "$cache/venvs/$key"
    "$cache/venvs/$key/bin/python" -m pip install -q --upgrade pip
    "$cache/venvs/$key/bin/python" -m pip install -q -e '.[test,postgres]' $(python3 scripts/deps_key.py --build-requires)  # (unquoted: one word each)
    touch "$cache/venvs/$key/complete"
  fi
  ln -s "$cache/venvs/$key" .venv
  # the key says the dependencies are there: only wwm itself, from this checkout
  .venv/bin/python -m pip install -q --no-deps --no-build-isolation -e .
else
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test,postgres]'
fi

echo "ruff check"
.venv/bin/ruff check src tests benchmarks examples docs
echo "mypy"
.venv/bin/mypy --cache-dir "$cache/mypy"   # mypy's cache checks each file's hash: safe across clones

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
command -v swipl >/dev/null 2>&1 || missing+=(swi-prolog-nox)
[ -x /usr/sbin/lighttpd ] || missing+=(lighttpd)  # the CGI mind of examples/cgi under a stock web server
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing system packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Test processes (pytest-xdist), each file's tests in one of them: one more than the cores, as
# most tests wait on servers and browsers they start (with one per core, a quiet 2-core run kept
# the CPU three quarters busy: 23 min of CPU in 15 min), and at most five. The 25 slowest tests
# are printed, to keep CI's time in view.
workers=$(( $(nproc) + 1 )); [ "$workers" -le 5 ] || workers=5
# (the order the files are handed out in is tests/conftest.py's: the long ones first)
exec .venv/bin/python -m pytest -q -n "$workers" --dist loadfile --no-loadscope-reorder --durations=25 "$@"
