"""A job killed between the learned ledger's write and its own update heals on read.

`Evolution.apply` settles the source in the ledger, then the queue settles its job; a
process killed in between left the job leased, then retrying (an ``interrupted`` failure)
with a backoff: `evolution status` counted it retrying while `learn status` counted its
source settled, and the queue waited out the backoff before finding it done. The ledger is
canonical: the job store settles such jobs when status reads it and at every check."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.evolution.test_projection_damage import ok
from waymarks.core.model_port import ModelReply, SourceRef
from waymarks.service.evolution import Evolution
from waymarks.service.learning import set_learning
from waymarks.store.jobs import JobStore

AT = "2026-11-30T10:00:00.000Z"


def _cli(home: Path, project: Path, *args: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(ok(home, project, "--json", *args))
    return result


def _killed_after_the_ledger(home: Path, project: Path) -> str:
    """A source whose job was leased by a process killed right after `apply` wrote the
    ledger: its lease ended, then a check recorded it as an interrupted failure."""
    set_learning(home, True)
    with Evolution(home) as evo:
        src = evo.capture(str(project), "statement", "Remember: we deploy with Kamal.",
                          session="s", key="k1")
        assert src is not None
        now = int(time.time() * 1000)
        store = JobStore.open(home)
        try:
            store.add_jobs([SourceRef(src.source_id, str(project), "normal", AT)], now)
            assert store.lease(src.source_id, "killed", now - 10_000, now - 1) is not None
            assert store.expire_leases(now, lambda failures: now + 3_600_000) == 1
        finally:
            store.close()
        reply = {"claims": [{"kind": "fact", "content": "We deploy with Kamal"}]}
        assert evo.apply(src.source_id, ModelReply(json.dumps(reply), "f", "m"),
                         AT).code == "applied"
        return src.source_id


def test_evolution_status_agrees_with_learn_status_after_a_kill(
        home: Path, project: Path) -> None:
    source = _killed_after_the_ledger(home, project)
    learned = _cli(home, project, "learn", "status")["counts"]
    assert (learned["sources_settled"], learned["sources_pending"]) == (1, 0)
    status = _cli(home, project, "evolution", "status")
    counts = status["counts"]
    assert (counts["retrying"], counts["settled"]) == (0, 1), counts
    assert status["failed"] == []
    store = JobStore.open(home)  # healed in the store itself, not only shown so
    try:
        [job] = store.jobs_in(("settled",), 5)
        assert job.source_id == source
    finally:
        store.close()


def test_the_queues_check_heals_it_before_its_backoff_ends(home: Path, project: Path) -> None:
    from tests.evolution.test_status import ROUTE
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.service.evolution_config import EvolutionConfig
    from waymarks.service.evolution_wiring import open_queue

    source = _killed_after_the_ledger(home, project)
    with Evolution(home) as evo:
        queue = open_queue(home, evo, EvolutionConfig(primary=ROUTE),
                           ProviderPolicy.from_config({}), lambda route: None,
                           lambda route: True)
        try:
            assert queue.run_once().outcome == "idle"  # nothing due, nothing called
            assert queue.store.counts()["settled"] == 1
            assert queue.store.jobs_in(("retrying",), 5) == []
            assert [j.source_id for j in queue.store.jobs_in(("settled",), 5)] == [source]
        finally:
            queue.close()
