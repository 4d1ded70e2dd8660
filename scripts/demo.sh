#!/usr/bin/env bash
# Set up, then walk through pins and memory with the real CLI against a temporary home.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python scripts/demo.py "$@"
