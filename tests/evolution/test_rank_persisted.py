"""The per-claim analysis persisted in the projection (migration 11, ``evo_analysis``): a
fresh process ranks from it without analysing any claim again; a row computed from other
inputs, or one that does not decode, is recomputed; deleting the database loses nothing
(it is a cache, rebuilt on the next recall). Through the real CLI entry point."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.evolution.test_aging import learn
from waymarks.service import evolution_analysis as ea
from waymarks.service import evolution_recall
from waymarks.service.evolution import Evolution

PAST = "2026-11-01T00:00:00.000Z"
CLAIMS = [
    {"kind": "decision", "content": "Deployments use Kamal, not Capistrano",
     "searchTerms": ["deploy tool", "kamal"]},
    {"kind": "fact", "content": "The staging port is 8080", "searchTerms": ["staging"]},
    {"kind": "preference", "content": "Config lives in /srv/app.toml", "searchTerms": []},
]
QUERY = "which deploy tool do we use?"


def _recall(home: Path, project: Path, query: str = QUERY) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "recall",
                           query], cwd=project, env={**os.environ, "WAYMARKS_HOME": str(home)},
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return [r["id"] for r in json.loads(done.stdout.strip().splitlines()[-1])["learned"]]


def _stored(home: Path) -> dict[str, tuple[str, str]]:
    db = sqlite3.connect(home / "waymarks.db")
    try:
        return {str(c): (str(k), str(b)) for c, k, b in db.execute(
            "SELECT claim_id, key, body FROM evo_analysis")}
    finally:
        db.close()


@pytest.mark.slow
def test_a_fresh_process_ranks_from_the_persisted_analysis(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [learn(home, str(project), claim, PAST) for claim in CLAIMS]
    assert _recall(home, project) == [ids[0]]  # a fresh process: analyses, then persists
    stored = _stored(home)
    assert set(stored) == set(ids)
    with Evolution(home) as evo:
        rows = {r.id: r for r in evo.claims(["provisional"])}
        for cid, analysis in evo.store.analyses().items():
            assert analysis.key == ea.analysis_key(rows[cid])
            ea._CACHE.clear()
            from_store, computed = ea.stored_candidate(rows[cid], None, 0, analysis)
            ea._CACHE.clear()
            assert computed is None and from_store == ea.base_candidate(rows[cid], None, 0)

    # as a fresh process would: nothing cached in memory, and analysing is impossible
    ea._CACHE.clear()
    evolution_recall._CORPORA.clear()

    def refuse(*_args: object) -> object:
        raise AssertionError("a claim was analysed again")

    monkeypatch.setattr(ea, "candidate", refuse)
    result = evolution_recall.recall_learned(home, QUERY)
    assert [s.candidate.id for s in result.eligible] == [ids[0]]


@pytest.mark.slow
def test_a_stale_or_damaged_analysis_is_recomputed_and_recall_unchanged(
        home: Path, project: Path) -> None:
    ids = [learn(home, str(project), claim, PAST) for claim in CLAIMS]
    assert _recall(home, project) == [ids[0]]
    before = _stored(home)
    db = sqlite3.connect(home / "waymarks.db")
    db.execute("UPDATE evo_analysis SET key = 'computed-from-something-else' WHERE claim_id = ?",
               (ids[0],))
    db.execute("UPDATE evo_analysis SET body = 'not json' WHERE claim_id = ?", (ids[1],))
    db.commit()
    db.close()
    assert _recall(home, project) == [ids[0]]
    assert _recall(home, project, "what is the staging port") == [ids[1]]
    assert _stored(home) == before  # both rewritten as they were


@pytest.mark.slow
def test_deleting_the_database_rebuilds_the_analysis_identically(
        home: Path, project: Path) -> None:
    ids = [learn(home, str(project), claim, PAST) for claim in CLAIMS]
    assert _recall(home, project) == [ids[0]]
    before = _stored(home)
    for path in home.glob("waymarks.db*"):
        path.unlink()
    assert _recall(home, project) == [ids[0]]
    assert _stored(home) == before
