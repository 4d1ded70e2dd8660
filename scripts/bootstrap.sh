#!/usr/bin/env bash
# Create .venv (if needed) and install the locked dependencies plus Waymarks itself.
# Needs only python3 (>= 3.11) and pip with access to the package registry.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.waymarks-lock
if [ ! -f "$stamp" ] || ! cmp -s requirements.lock "$stamp"; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet --require-hashes -r requirements.lock
  cp requirements.lock "$stamp"
fi
.venv/bin/python -m pip install --quiet --no-deps -e .
