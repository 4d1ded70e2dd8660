"""A long-lived process (``keep_recall_index=True``: the helper, the MCP server, the Pi
bridge) and a one-shot ``waymarks recall`` inject the same memories: the same store,
queried through both, selects the same claims with the same digest, visibility, retired
claims and privacy admission included (see ``tests/store/test_recall_cache_agreement.py``
for the candidates themselves)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.lanes import lanes
from tests.recall.test_recall_fast_path import write_ledger
from waymarks.service.app import Waymarks

#: few subjects and facts, so that more claims than the candidate limit answer a query
#: equally well and which of them reach full scoring decides the digest
SUBJECTS = ["billing-api", "billing-worker", "search-api", "search-worker"]
FACTS = ["times out after {n} seconds", "listens on port {n}", "is owned by team {n}"]
FILLER = ("after the incident review the platform group agreed on this setting and wrote"
          " it down in the runbook for everyone on call").split()


def write_store(path: Path, cwd: str, size: int, seed: int) -> None:
    """A session ledger of ``size`` claims: some project-scoped (the untrusted project's:
    never visible), some classified, some retired afterwards."""
    def item(rng: random.Random, n: int) -> dict[str, object]:
        claim = (f"The {rng.choice(SUBJECTS)} service"
                 f" {rng.choice(FACTS).format(n=rng.randrange(30))}."
                 f" {' '.join(rng.sample(FILLER, rng.randrange(0, 8)))}").strip()
        fields: dict[str, object] = {
            "claim": claim, "scope": "project" if rng.random() < 0.15 else "session"}
        if fields["scope"] == "project":
            fields["projectPath"] = cwd
        if rng.random() < 0.2:
            fields["classification"] = rng.choice(["internal", "sensitive", "local-only"])
        return fields

    write_ledger(path, cwd, size, seed, item, ("expired",))


def queries(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(["what is the {s} timeout", "which port does {s} listen on",
                        "who owns {s}", "{s} port {n}", "team {n}"]).format(
        s=rng.choice(SUBJECTS).replace("-", rng.choice(["-", " "])), n=rng.randrange(30))
        for _ in range(count)]


@lanes(quick=10, long=200)
def test_helper_and_one_shot_recall_inject_the_same(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    examples: int) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")  # the lexical engine: what differed
    project = tmp_path / "project"
    project.mkdir()
    ledger = tmp_path / "session.jsonl"
    write_store(ledger, str(project), 1500, seed=3)
    one_shot = Waymarks(tmp_path / "home", cwd=str(project), session=str(ledger))
    long_lived = Waymarks(tmp_path / "home", cwd=str(project), session=str(ledger),
                          keep_recall_index=True)
    try:
        one_shot.rebuild_index()
        differing = []
        selected = 0
        for query in queries(3, examples):
            for provider in ("remote", None):
                a = one_shot.recall(query, inherit=False, provider=provider)
                b = long_lived.recall(query, inherit=False, provider=provider)
                selected += bool(a.selected)
                if (a.selected, a.digest) != (b.selected, b.digest):
                    differing.append((query, provider))
        assert selected > examples // 2
        assert differing == []
    finally:
        long_lived.close()
        one_shot.close()
