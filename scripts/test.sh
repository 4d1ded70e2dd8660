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
# In memory (/dev/shm) when it has 4 GiB free and may run programs (tests/temproot.py):
# thousands of homes are made there and their fsyncs on disk were a fifth of the run.
# Removed after a run that passed; kept (and named) after one that did not.
parent=$(.venv/bin/python -m tests.temproot)
parent=${parent:-${TMPDIR:-/tmp}}
PYTEST_DEBUG_TEMPROOT=$(mktemp -d -p "$parent" waymarks-tests.XXXXXX)
export PYTEST_DEBUG_TEMPROOT
finish() {
    status=$?
    if [ "$status" -eq 0 ]; then
        rm -rf "$PYTEST_DEBUG_TEMPROOT"
    else
        echo "the tests' temporary folders are kept in $PYTEST_DEBUG_TEMPROOT" >&2
    fi
    exit "$status"
}
trap finish EXIT
# Every test, the ones marked slow included (the fast lane is `pytest -m "not slow"`), on
# every core: a worker per CPU (pytest-xdist), each taking the next test when it is free
# (worksteal: a few tests run for minutes, so fixed shares would leave one worker idle).
# pytest exits 5 when it collects no tests: that is a failure here, as any non-zero exit is.
.venv/bin/python -m pytest -n auto --dist worksteal --durations=15 "$@"  # slowest, in the log
