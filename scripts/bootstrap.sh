#!/usr/bin/env bash
# Create .venv (if needed) and install the locked dependencies plus Waymarks itself.
# Needs only python3 (>= 3.11) and pip with access to the package registry.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
# a venv that cannot run pip is made again: one left by a failed creation (Debian without
# python3-venv writes .venv/bin/python, then fails at ensurepip), after the fix the
# message names; and one whose Python is gone (a pyenv or Homebrew upgrade leaves
# bin/python a dangling link: `python -m venv` over it failed on every run, and a venv it
# did make kept the old stamp, so the locked packages were never installed in it)
if [ -e .venv ] && ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  echo "bootstrap: .venv cannot run pip (an earlier creation failed, or its Python is" \
       "gone); making it again" >&2
  rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    found=$("$PYTHON" -c 'import sys; print("Python", sys.version.split()[0])' 2>/dev/null \
            || echo "not a working Python")
    echo "bootstrap: Waymarks needs Python 3.11 or newer; $PYTHON is $found." \
         "Run with PYTHON=/path/to/python3.11" >&2
    exit 2
  fi
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.waymarks-lock
if [ ! -f "$stamp" ] || ! cmp -s requirements.lock "$stamp"; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet --require-hashes -r requirements.lock
  cp requirements.lock "$stamp"
fi
.venv/bin/python -m pip install --quiet --no-deps -e .
