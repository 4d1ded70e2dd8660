"""`evolution status` counts a source the ledger settled before the queue ever held a job
for it (the ledger is canonical): a person's forget settles the queued sources that repeat
the claim (or, with ``--origin``, every queued source of the directory), often before any
queue check made their jobs. Status then said "0 pending ... 0 settled" beside "Processed 1
source", and `learn status` said 1 settled."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution

CLAIM = "Release branches are cut on Mondays"


def test_a_source_settled_before_its_job_counts_as_settled(
        home: Path, project: Path, cli: Callable[..., dict]) -> None:
    origin = str(project.resolve())
    with Evolution(home) as evo:
        said = evo.capture(origin, "statement", f"Remember: {CLAIM}.", session="s0", key="a")
        assert said is not None
        evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
            {"kind": "fact", "content": CLAIM}]}), "f", "f"), "2030-01-01T00:00:00.000Z")
        # said again in a later session: captured, its model pass not run yet
        assert evo.capture(origin, "statement", f"Remember: {CLAIM} again.", session="s1",
                           key="b") is not None
    assert cli("evolution", "status")["counts"]["pending"] == 1
    [claim] = cli("learn", "list")["claims"]
    cli("learn", "forget", claim["id"])  # settles the repeat too: nothing left to learn
    assert cli("learn", "status")["counts"]["sources_settled"] == 2
    counts = cli("evolution", "status")["counts"]
    assert counts["pending"] == 0
    assert counts["settled"] == 2, counts
