#!/usr/bin/env bash
# Set up, then run the whole suite: lint (ruff), types (mypy), tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
echo "== ruff"
.venv/bin/ruff check src tests benchmarks scripts
echo "== mypy"
.venv/bin/mypy
echo "== pytest"
# A temporary root of its own: pytest keeps only the last few numbered temporary folders
# under one root, so another pytest run by the same user (an editor, a second checkout)
# would delete this run's folders under its feet.
PYTEST_DEBUG_TEMPROOT=$(mktemp -d)
export PYTEST_DEBUG_TEMPROOT
# Every test, the ones marked slow included (the fast lane is `pytest -m "not slow"`).
# pytest exits 5 when it collects no tests: that is a failure here, as any non-zero exit is.
.venv/bin/python -m pytest --durations=15 "$@"  # the slowest tests, named in the log
