#!/usr/bin/env bash
# Create .venv (if needed) and install the locked dependencies plus Waymarks itself.
# Needs only python3 (>= 3.11) and pip with access to the package registry.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
# a venv left by a failed creation (Debian without python3-venv writes .venv/bin/python,
# then fails at ensurepip) has no pip: made again, after the fix the message names
if [ -x .venv/bin/python ] && ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  echo "bootstrap: .venv has no pip (an earlier creation failed); making it again" >&2
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
