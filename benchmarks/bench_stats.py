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
