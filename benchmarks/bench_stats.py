"""Shared helpers of the benchmark scripts (run as ``python benchmarks/NAME.py``, which puts
this directory on the import path)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0-100) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)] if ordered else 0.0


def summary(values: Sequence[float], digits: int = 2) -> dict[str, float]:
    """Count, p50 and p99 in milliseconds."""
    return {"n": len(values), "p50_ms": round(statistics.median(values), digits),
            "p99_ms": round(percentile(values, 99), digits)}


def steal_s() -> float | None:
    """The machine's steal time so far, in seconds (``None`` where it cannot be read): on
    a virtual machine, how long its host kept the cores from it. Recorded before and after
    a run, the difference says how much of the run the host took (this project's machine
    lost 4-6 hundredths of a second per 10-50 ms query in its busy quarters of an hour,
    at a load average under 1.5: the load average does not show it)."""
    from waymarks.semantic.cores import stolen

    ticks = stolen()
    return None if ticks is None else ticks / 100


def steal_during(before: float | None) -> float | None:
    """Seconds of steal time since ``before`` (a :func:`steal_s` reading)."""
    after = steal_s()
    return None if before is None or after is None else round(after - before, 2)
