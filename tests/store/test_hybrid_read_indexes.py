"""The two reads every one-shot hybrid recall makes before it compares vectors read an
index alone (migration 23): which records its session may use
(``VectorStore.visible_records``) scanned every items row, texts and stored records with
them (~11 ms of CPU at 10k memories, on the prompt path), and the vectors' fingerprint
(``VectorStore.stamp``) every vector row (~8 ms). The same answers either way; a
projection of the schema before is upgraded by the registry's tests
(``test_migrations.py``)."""

from __future__ import annotations

import pytest

from waymarks.service.app import Waymarks
from waymarks.store.recall_vectors import VectorStore


@pytest.mark.parametrize("active_only", [True, False])
@pytest.mark.parametrize("trusted", [True, False])
def test_the_visibility_read_uses_a_covering_index(
        app: Waymarks, active_only: bool, trusted: bool) -> None:
    app.trust(app.cwd)
    ids = [app.remember(f"Service s{n} answers on port {5000 + n}.").id for n in range(3)]
    project = app.remember("The project deploys on Fridays.", scope="project").id
    app.supersede_memory(ids[0], "Service s0 answers on port 6000.")
    if not trusted:
        app.untrust(app.cwd)
    session = app.refresh()
    assert session is not None
    visible = (session.session_id, app.cwd if app.project_trusted else None)
    index = app.projection.recall_index()
    with app.projection.transaction():
        index.catch_up()
    db = index.db
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    try:
        found = VectorStore(db).visible_records(visible, active_only=active_only)
    finally:
        db.set_trace_callback(None)
    expected = {*ids[1:], *([project] if trusted else [])}
    assert expected <= set(found)
    assert (ids[0] in found) is not active_only
    [read] = [s for s in statements if "recall_records" in s]
    plan = " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {read}"))
    assert "COVERING INDEX items_visible" in plan, plan


def test_the_vectors_fingerprint_reads_a_covering_index(app: Waymarks) -> None:
    db = app.projection.db
    store = VectorStore(db)
    empty = store.stamp()
    with app.projection.transaction():
        store.put("model", [("a", "text a", b"\x00" * 8), ("b", "text b", b"\x01" * 8)])
    stamp = store.stamp()
    assert stamp[1:3] == (2, 2) and stamp != empty
    with app.projection.transaction():
        store.put("model", [("b", "text b", b"\x02" * 8)])  # replaced in place
    assert store.stamp()[1:3] == (2, 2) and store.stamp() != stamp
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    try:
        store.stamp()
    finally:
        db.set_trace_callback(None)
    [read] = [s for s in statements if "recall_vectors" in s]
    plan = " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {read}"))
    assert "COVERING INDEX recall_vectors_stamp" in plan, plan
