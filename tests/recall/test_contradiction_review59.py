"""Review 59: claim pairs of the fixture set's known misses and false conflicts
(``benchmarks/conflict_pairs.json``), written through the service (real session files,
real SQLite): a restatement in another notation is written beside its fact, and a changed
value is still refused with the stored claim's ID."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _both_written, _refused
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The backup runs at 3:00.", "The backup runs at 03:00.", "The backup runs at 04:00."),
    ("The nightly job runs at 2:30.", "The nightly job runs at 02:30.",
     "The nightly job runs at 2:45."),
    ("The maintenance window is 2:00-4:00.", "The maintenance window is 02:00-04:00.",
     "The maintenance window is 02:00-05:00."),
    ("备份在 3:00 运行。", "备份在 03:00 运行。", "备份在 4:00 运行。"),
])
def test_a_clock_time_is_one_value_with_or_without_its_leading_zero(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"3:00" and "03:00" were two values: the same time restated was refused."""
    _both_written(app, first, second)
    _refused(app, contradicting)
