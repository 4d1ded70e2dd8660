"""``waymarks rebuild-index`` and deleting ``waymarks.db`` refold the evolution tables from the
evolution ledger identically (EVOLUTION item 6): claims, sources, the per-record effects
(refusals included), suppression, and every learned claim's history. Real files, the real
entry point; a property test drives random capture/apply/forget sequences through the
service and compares the incremental projection with a rebuild and with a fresh database."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import CountingIds, StepClock
from tests.inprocess import waymarks
from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution

AT = "2030-01-01T00:00:00.000Z"
ORIGINS = ("/w/a", "/w/b")
TEXTS = ("Remember we deploy with Kamal", "I prefer tabs in Go files",
         "From now on the staging port is 9090", "We decided to use Postgres 16")
CONTENTS = ("Deploys use Kamal", "Prefers tabs in Go", "Staging port is 9090",
            "The database is Postgres 16")


def _dump(home: Path) -> tuple[object, ...]:
    with Evolution(home) as evo:
        evo.sync()
        store = evo.store
        return (store.claims(), store.sources(), store.events(), store.suppressions())


def _reply(*claims: dict[str, object]) -> ModelReply:
    return ModelReply(json.dumps({"claims": list(claims)}), "fake", "m")


def _history(home: Path) -> None:
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(2))
    a = evo.capture("/w/a", "statement", TEXTS[2], session="s", key="1")
    b = evo.capture("/w/b", "statement", TEXTS[0], session="s", key="2")
    assert a is not None and b is not None
    evo.apply(a.source_id, _reply({"kind": "fact", "content": CONTENTS[2]}), AT)
    evo.apply(b.source_id, _reply({"kind": "decision", "content": CONTENTS[0]}), AT)
    [first] = [c for c in evo.claims() if c.origin == "/w/a"]
    c = evo.capture("/w/a", "statement", "Correction: the staging port is 9191 now",
                    session="s", key="3")
    assert c is not None
    evo.apply(c.source_id, _reply({"kind": "fact", "content": "Staging port is 9191",
                                   "replaces": first.id}), AT)
    d = evo.capture("/w/a", "statement", "Remember the deploy tool is Capistrano", session="s",
                    key="4")
    assert d is not None
    [cross] = [x for x in evo.claims() if x.origin == "/w/b"]
    assert evo.apply(d.source_id, _reply({"kind": "decision", "content": "Deploys use Cap",
                                          "replaces": cross.id}), AT).code == "cross_origin"
    evo.forget(cross.id)
    summary = evo.capture("/w/a", "summary", "## Decisions\n- Use uv for Python\n- CI on push",
                          session="s", key="c1")
    assert summary is not None and summary.local_claims == 2
    evo.close()


def test_rebuild_index_and_a_deleted_database_refold_the_evolution_tables(
        home: Path, project: Path) -> None:
    _history(home)
    before = _dump(home)
    claims, sources, events, suppressed = before
    assert len(claims) == 5 and len(sources) == 5 and suppressed  # type: ignore[arg-type]
    assert any(e[2] == "refused" and e[5] == "cross_origin" for e in events)  # type: ignore[attr-defined,index]
    # damage the derived tables behind the checkpoint's back: only a rebuild repairs that
    db = sqlite3.connect(home / "waymarks.db")
    db.execute("DELETE FROM evo_claims")
    db.execute("UPDATE evo_sources SET settled = NULL")
    db.execute("DELETE FROM evo_suppressed")
    db.commit()
    db.close()
    assert _dump(home) != before
    done = waymarks("--home", str(home), "--json", "rebuild-index", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["evolutionRecords"] == len(events)  # type: ignore[arg-type]
    assert _dump(home) == before
    for name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
        (home / name).unlink(missing_ok=True)
    assert _dump(home) == before  # a fresh database folds the same ledger the same way


def test_rebuild_index_without_learning_creates_no_evolution_ledger(
        home: Path, project: Path) -> None:
    done = waymarks("--home", str(home), "--json", "rebuild-index", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["evolutionRecords"] is None
    assert not (home / "evolution").exists()


_op = st.one_of(
    st.tuples(st.just("capture"), st.sampled_from(ORIGINS), st.integers(0, 3),
              st.sampled_from(("statement", "summary"))),
    st.tuples(st.just("apply"), st.integers(0, 9), st.integers(0, 3),
              st.sampled_from(("fact", "decision")), st.booleans()),
    st.tuples(st.just("forget"), st.integers(0, 9)),
    st.tuples(st.just("sync")),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_op, max_size=14))
@pytest.mark.slow
def test_incremental_equals_rebuild_equals_a_fresh_database(ops: list[tuple[object, ...]]
                                                            ) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        evo = Evolution(home, clock=StepClock(), ids=CountingIds(6))
        sources: list[str] = []
        for n, op in enumerate(ops):
            if op[0] == "capture":
                _, origin, text, kind = op
                body = TEXTS[int(text)]  # type: ignore[call-overload]
                if kind == "summary":
                    body = f"## Decisions\n- {CONTENTS[int(text)]}"  # type: ignore[call-overload]
                got = evo.capture(str(origin), str(kind), body, session="s", key=str(n))
                if got is not None:
                    sources.append(got.source_id)
            elif op[0] == "apply" and sources:
                _, pick, content, kind, replace = op
                claims = evo.claims()
                item: dict[str, object] = {"kind": kind, "content": CONTENTS[int(content)]}  # type: ignore[call-overload]
                if replace and claims:
                    item["replaces"] = claims[int(pick) % len(claims)].id  # type: ignore[call-overload]
                evo.apply(sources[int(pick) % len(sources)], _reply(item), AT)  # type: ignore[call-overload]
            elif op[0] == "forget":
                claims = evo.claims()
                if claims:
                    evo.forget(claims[int(op[1]) % len(claims)].id)  # type: ignore[call-overload]
            else:
                evo.sync()
        evo.close()
        incremental = _dump(home)
        with Evolution(home) as again:
            again.rebuild()
        assert _dump(home) == incremental
        (home / "waymarks.db").unlink()
        for extra in ("waymarks.db-wal", "waymarks.db-shm"):
            (home / extra).unlink(missing_ok=True)
        assert _dump(home) == incremental
