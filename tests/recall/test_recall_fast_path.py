"""The fast recall path answers exactly as the straightforward one (issue 15).

A generated store (claims in varied words, some with an explicit classification or a
classification marker, some retired, some scoped to an untrusted project the session may
not see) is queried through :meth:`Waymarks.recall`, on both the SQLite path and the
in-memory cache. The fast path reads each candidate's item (status, visibility,
classification) in the query that reads the candidate; the reference here is the code it
replaced: candidates, then the items' statuses, then their classifications, each its own
query, then the admission. Both must select the same claims, in the same order, with the
same digest, scores and verdicts, for every query and destination.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from waymarks.core.records import replace
from waymarks.recall.engine import RecallResult, evaluate
from waymarks.recall.plan import plan_query
from waymarks.recall.scoring import Candidate
from waymarks.service.app import Waymarks
from waymarks.service.planning import egress_for
from waymarks.store.recall_cache import RecallCache

SUBJECTS = ["billing", "auth", "search", "gateway", "scheduler", "ingest", "reporting"]
FACTS = ["listens on port {n}", "stores sessions in Redis database {n}",
         "deploys from the release-{n} branch", "keeps logs for {n} days",
         "reads its config from conf/{s}.toml", "is owned by team {n}"]
LEVELS = [None, None, None, "normal", "internal", "sensitive", "local-only"]


def _entry(rng: random.Random, parent: str | None, n: int, data: dict[str, object]) -> str:
    return json.dumps({"type": "custom", "customType": "ds4-context-memory-v1",
                       "data": {"schemaVersion": 1, "createdAt": 1_767_225_600_000 + n,
                                "mutationId": str(uuid.UUID(int=rng.getrandbits(128))),
                                **data},
                       "id": f"{n:08x}", "parentId": parent,
                       "timestamp": "2026-01-01T00:00:00.000Z"})


def write_ledger(path: Path, cwd: str, size: int, seed: int,
                 item: Callable[[random.Random, int], dict[str, object]],
                 statuses: Sequence[str]) -> None:
    """A session ledger of ``size`` claims, ``item(rng, n)`` giving each one's fields
    (claim, scope, classification), then a tenth of them retired to one of ``statuses``
    (retired claims stay in the index)."""
    rng = random.Random(seed)
    lines = [json.dumps({"type": "session", "version": 3, "id": str(uuid.UUID(int=seed)),
                         "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd})]
    parent: str | None = None
    ids: list[str] = []
    for n in range(size):
        item_id = str(uuid.UUID(int=rng.getrandbits(128)))
        fields = {"id": item_id, "sourceEntryIds": [], "createdAt": 1_767_225_600_000 + n,
                  **item(rng, n)}
        lines.append(_entry(rng, parent, len(lines), {"operation": "add", "item": fields}))
        parent = f"{len(lines) - 1:08x}"
        ids.append(item_id)
    for item_id in rng.sample(ids, size // 10):
        lines.append(_entry(rng, parent, len(lines), {
            "operation": "status", "memoryId": item_id, "status": rng.choice(statuses)}))
        parent = f"{len(lines) - 1:08x}"
    path.write_text("\n".join(lines) + "\n")


def _item(cwd: str) -> Callable[[random.Random, int], dict[str, object]]:
    def make(rng: random.Random, n: int) -> dict[str, object]:
        subject = f"{rng.choice(SUBJECTS)}-{n % 40}"
        claim = f"The {subject} service {rng.choice(FACTS).format(n=n % 17, s=subject)}."
        if rng.random() < 0.1:
            claim += " [internal]" if rng.random() < 0.5 else " (secret: do not share)"
        fields: dict[str, object] = {"claim": claim}
        if rng.random() < 0.15:  # the project is not trusted: the session never sees these
            fields.update(scope="project", projectPath=cwd)
        else:
            fields["scope"] = "session"
        level = rng.choice(LEVELS)
        if level is not None:
            fields["classification"] = level
        return fields
    return make


def write_store(path: Path, cwd: str, size: int, seed: int) -> None:
    write_ledger(path, cwd, size, seed, _item(cwd), ("invalid", "expired", "deleted"))


def queries(seed: int, count: int) -> list[str]:
    rng = random.Random(seed + 1)
    out = []
    for n in range(count):
        subject = f"{rng.choice(SUBJECTS)}-{rng.randrange(45)}"
        out.append(rng.choice([
            f"what port does the {subject} service use?", f"where are the {subject} logs",
            f"which branch deploys {subject}", f"who owns {subject}",
            f"{rng.choice(SUBJECTS)} config file", "bake a sourdough loaf",
            f"redis database for {subject}", f"conf/{subject}.toml"]) if n % 9 else "")
    return out


def reference(app: Waymarks, query: str, provider: str | None,
              cache: RecallCache | None) -> RecallResult:
    """The recall of main before issue 15: three queries for candidates and admission."""
    session = app.refresh()
    assert session is not None
    index = app.projection.recall_index()
    plan = plan_query(query)
    visible = (session.session_id, app.cwd if app.project_trusted else None)
    features = (*plan.focus, *plan.context)
    if cache is not None:
        cache.refresh()
        stats = cache.stats(features)
        candidates: list[Candidate] = cache.candidates(plan, stats, visible_to=visible,
                                                       active_only=True)
    else:
        stats = index.stats(features)
        candidates = index.candidates(plan, visible_to=visible, stats=stats, active_only=True)
    if provider == "unfiltered":  # privacy=False: the planner applies the policy itself
        return evaluate(plan, candidates, stats)
    egress = egress_for(app, provider)
    explicit = app.projection.classifications([c.id for c in candidates])
    admitted = [replace(c, classification=explicit.get(c.id)) for c in candidates
                if egress.admits(egress.level(c.text, explicit.get(c.id)))]
    return evaluate(plan, admitted, stats, egress)


def summary(result: RecallResult) -> tuple[object, ...]:
    return (result.selected, result.digest, result.rows,
            [(s.candidate, s.relevance, s.coverage, s.matched, s.named, s.eligible, s.reason,
              s.rank) for s in result.scored])


@pytest.mark.parametrize("cached", [False, True], ids=["sqlite", "cache"])
@pytest.mark.slow
def test_fast_recall_equals_the_three_query_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 cached: bool) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")  # the lexical engine, what changed
    project = tmp_path / "project"
    project.mkdir()
    ledger = tmp_path / "session.jsonl"
    write_store(ledger, str(project), 600, seed=15)
    app = Waymarks(tmp_path / "home", cwd=str(project), session=str(ledger),
                   keep_recall_index=cached)
    try:
        app.rebuild_index()
        cache = RecallCache(app.projection.recall_index()) if cached else None
        selected = classified = 0
        for query in queries(15, 60):
            for provider in ("remote", "local", None, "unfiltered"):
                fast = (app.recall(query, inherit=False, privacy=False)
                        if provider == "unfiltered" else
                        app.recall(query, inherit=False, provider=provider))
                assert summary(fast) == summary(reference(app, query, provider, cache)), query
                selected += bool(fast.selected)
                classified += any(s.candidate.classification for s in fast.scored)
        # the corpus exercises what changed: digests, and classifications read with them
        assert selected > 30 and classified > 30
    finally:
        app.close()
