"""evolution.db: schema versioning, file mode, leases, expiry, shared ceilings, codes."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from waymarks.core.model_port import SourceRef
from waymarks.store.job_rows import route_key
from waymarks.store.jobs import SCHEMA_VERSION, JobStore, SchemaTooNewError

REF = SourceRef("s1", "/work/a", "normal", "2026-12-01T10:00:00.000Z")


def _store(tmp_path: Path) -> JobStore:
    return JobStore.open(tmp_path / "home")


def test_new_file_is_private_wal_and_current(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.schema_version() == SCHEMA_VERSION



def _at_version(path: Path, version: int) -> sqlite3.Connection:
    """An evolution database an earlier release left at schema ``version`` (its steps
    run, its version written), open for the test to fill."""
    from waymarks.store.jobs import MIGRATIONS

    path.parent.mkdir()
    old = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[:version]:
        step(old)
    old.execute(f"PRAGMA user_version = {version}")
    return old

def test_migration_from_version_one_keeps_jobs(tmp_path: Path) -> None:
    path = tmp_path / "home" / "evolution.db"
    old = _at_version(path, 1)
    old.execute("INSERT INTO jobs (source_id, origin, classification, captured_at, state, "
                "created_at, updated_at) VALUES ('old', '/a', 'normal', 't', 'pending', 1, 1)")
    old.execute("INSERT INTO model_calls (source_id, owner, attempt, provider, model, "
                "reserved_at, outcome) VALUES ('old', 'o', 1, 'p', 'm', 5, 'ok')")
    old.close()
    store = JobStore(path)
    assert store.schema_version() == SCHEMA_VERSION == 5
    assert store.job("old") is not None and store.job("old").state == "pending"  # type: ignore[union-attr]
    assert store.recent_calls(5)[0]["forced"] == 0


def test_a_newer_schema_is_refused_before_any_change(tmp_path: Path) -> None:
    path = tmp_path / "home" / "evolution.db"
    path.parent.mkdir()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(SchemaTooNewError, match="upgrade Waymarks"):
        JobStore(path)
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == []


def test_add_jobs_is_idempotent_and_reads_before_it_locks(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.add_jobs([REF], 1000) == 1
    changes = store.db.total_changes
    assert store.add_jobs([REF], 2000) == 0
    assert store.db.total_changes == changes  # nothing written for a known source
    assert [j.source_id for j in store.due(1000, 5)] == ["s1"]


def test_requeued_jobs_keep_their_failures_with_the_cause_unknown(tmp_path: Path) -> None:
    """Imported jobs (item 81) are due now with their spent failures and the last error
    ``cause_unknown``; a pending job of the same source with no attempt yet takes them
    on, one that already failed here keeps its own; none without failures is added."""
    store = _store(tmp_path)
    mine = SourceRef("s2", "/work/a", "normal", REF.captured_at)
    failed = SourceRef("s3", "/work/a", "normal", REF.captured_at)
    assert store.add_jobs([mine, failed], 500) == 2
    store.db.execute("UPDATE jobs SET failures = 4, last_error = 'timeout', retry_at = 700, "
                     "state = 'retrying' WHERE source_id = 's3'")
    fresh = SourceRef("s4", "/work/a", "normal", REF.captured_at)
    assert store.add_requeued([(REF, 2), (mine, 3), (failed, 1), (fresh, 0)], 1000) == 2
    jobs = {j.source_id: j for j in store.jobs_in(("retrying",), 10)}
    assert {sid: (j.failures, j.last_error, j.retry_at) for sid, j in jobs.items()} == {
        "s1": (2, "cause_unknown", 1000), "s2": (3, "cause_unknown", 1000),
        "s3": (4, "timeout", 700)}
    assert store.job("s4") is None and store.bad_jobs == set()


def test_lease_token_guards_settling_and_late_results_are_ignored(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add_jobs([REF], 0)
    first = store.lease("s1", "A", 10, 160)
    assert first is not None and first.attempt == 1
    assert store.lease("s1", "B", 20, 170) is None  # someone holds it
    assert store.holds(first, 100) and not store.holds(first, 160)
    assert store.expire_leases(200, lambda failures: 200 + 60_000 * failures) == 1
    job = store.job("s1")
    assert job is not None and (job.state, job.last_error, job.failures) == (
        "retrying", "interrupted", 1)
    assert job.retry_at == 60_200
    second = store.lease("s1", "B", 60_200, 60_350)
    assert second is not None and second.attempt == 2
    assert store.settle(first, "applied", 60_300) is False  # the old owner's late result
    assert store.settle(second, "applied", 60_300) is True
    assert store.job("s1").state == "settled"  # type: ignore[union-attr]
    assert store.lease("s1", "C", 99_999, 100_000, forced=True) is None  # never reruns


def test_shared_hourly_ceiling_and_per_source_caps(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add_jobs([REF, SourceRef("s2", "/a", "normal", "t2")], 0)
    lease = store.lease("s1", "A", 0, 150_000)
    assert lease is not None
    caps = {"hourly_cap": 2, "source_calls": 4, "source_models": 1, "daily_usd": None}
    assert isinstance(store.reserve_call(lease, "p", "m1", 1, **caps), int)
    assert store.reserve_call(lease, "p", "m2", 2, **caps) == "source_models"  # models: 1
    assert isinstance(store.reserve_call(lease, "p", "m1", 3, **caps), int)
    other = store.lease("s2", "A", 4, 150_000)
    assert other is not None
    assert store.reserve_call(other, "p", "m1", 5, **caps) == "hourly_cap"
    assert store.reserve_call(other, "p", "m1", 6, **caps, forced=True) == "hourly_cap"
    # an hour later the window has moved on
    assert isinstance(store.reserve_call(other, "p", "m1", 3_600_002, **caps), int)


def test_a_call_refused_unanswered_gives_the_source_its_budget_back(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add_jobs([REF], 0)
    lease = store.lease("s1", "A", 0, 150_000)
    assert lease is not None
    caps = {"hourly_cap": 3, "source_calls": 4, "source_models": 1, "daily_usd": None}
    limited = store.reserve_call(lease, "p", "m1", 1, **caps)
    assert isinstance(limited, int)
    store.finish_call(limited, "rate_limited", 2, 5)
    store.refund_call(limited)
    assert (store.job("s1").calls, store.job("s1").models) == (0, ())  # type: ignore[union-attr]
    answered = store.reserve_call(lease, "p", "m2", 3, **caps)  # m1 spent no model slot
    assert isinstance(answered, int)
    store.finish_call(answered, "timeout", 4, 5)
    store.refund_call(answered)  # a timeout is no refusal: nothing given back
    assert (store.job("s1").calls, store.job("s1").models) == (  # type: ignore[union-attr]
        1, (route_key("p", "m2"),))
    assert store.reserve_call(lease, "p", "m1", 5, **caps) == "source_models"
    assert store.calls_since(0) == 2  # the shared hourly ceiling still counts the refusal


def test_daily_ceiling_counts_estimated_cost(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add_jobs([REF], 0)
    lease = store.lease("s1", "A", 0, 150_000)
    assert lease is not None
    call = store.reserve_call(lease, "p", "m", 1, hourly_cap=20, source_calls=4,
                              source_models=2, daily_usd=0.01)
    assert isinstance(call, int)
    store.finish_call(call, "ok", 2, 1500, input_tokens=10, output_tokens=5,
                      estimated_usd=0.02)
    assert store.job("s1").spent_ms == 1500  # type: ignore[union-attr]
    assert store.reserve_call(lease, "p", "m", 3, hourly_cap=20, source_calls=4,
                              source_models=2, daily_usd=0.01) == "daily_budget"


def test_daily_ceiling_counts_calls_in_flight_and_the_calls_own_worst_case(
        tmp_path: Path) -> None:
    """A review: only finished calls counted, and not the call about to be made: two calls
    in a row spent $0.80 of a $0.50 ceiling, and concurrent ones more."""
    store = _store(tmp_path)
    store.add_jobs([REF, SourceRef("s2", "/a", "normal", "t2")], 0)
    caps = {"hourly_cap": 20, "source_calls": 4, "source_models": 2, "daily_usd": 0.5}
    first, second = store.lease("s1", "A", 0, 150_000), store.lease("s2", "B", 0, 150_000)
    assert first is not None and second is not None
    call = store.reserve_call(first, "p", "m", 1, **caps, worst_usd=0.3)
    assert isinstance(call, int)
    assert store.usd_since(0) == pytest.approx(0.3)  # in flight: counted at its worst
    # 0.3 in flight + 0.3 would pass 0.5: another process waits, forced or not
    assert store.reserve_call(second, "p", "m", 2, **caps, worst_usd=0.3) == "daily_budget"
    assert store.reserve_call(second, "p", "m", 2, **caps, worst_usd=0.3,
                              forced=True) == "daily_budget"
    store.finish_call(call, "ok", 3, 10, input_tokens=100, output_tokens=50,
                      estimated_usd=0.15)
    assert store.usd_since(0) == pytest.approx(0.15)  # what it cost replaces the worst
    assert isinstance(store.reserve_call(second, "p", "m", 4, **caps, worst_usd=0.3), int)
    # 0.45 spent: a call whose own worst case would pass the ceiling is not made
    assert store.reserve_call(first, "p", "m", 5, **caps, worst_usd=0.1) == "daily_budget"
    assert [c["outcome"] for c in store.recent_calls(5)] == ["reserved", "ok"]


def test_a_call_under_an_expired_lease_ends_interrupted_keeping_its_worst_case(
        tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add_jobs([REF], 0)
    lease = store.lease("s1", "A", 0, 100)
    assert lease is not None
    call = store.reserve_call(lease, "p", "m", 1, hourly_cap=20, source_calls=4,
                              source_models=2, daily_usd=1.0, worst_usd=0.25)
    assert isinstance(call, int)
    assert store.expire_leases(100, lambda f: 200) == 1
    [row] = store.recent_calls(1)
    assert (row["outcome"], row["estimatedUsd"]) == ("interrupted", 0.25)
    assert store.check().bad_calls == ()


def test_migration_to_five_ends_calls_an_earlier_release_left_reserved(
        tmp_path: Path) -> None:
    """A killed worker's call stayed ``reserved`` for good; once the schema knows
    ``interrupted``, one whose lease is gone ends so, one under a live lease is kept."""
    path = tmp_path / "home" / "evolution.db"
    old = _at_version(path, 4)
    for source, state, owner in (("dead", "retrying", None), ("live", "leased", "o")):
        old.execute("INSERT INTO jobs (source_id, origin, classification, captured_at, "
                    "state, attempt, owner, lease_until, created_at, updated_at) VALUES "
                    "(?, '/a', 'normal', 't', ?, 1, ?, 9, 1, 1)", (source, state, owner))
        old.execute("INSERT INTO model_calls (source_id, owner, attempt, provider, model, "
                    "reserved_at, outcome) VALUES (?, 'o', 1, 'p', 'm', 5, 'reserved')",
                    (source,))
    old.close()
    store = JobStore(path)
    assert store.schema_version() == 5
    outcomes = dict(store.db.execute("SELECT source_id, outcome FROM model_calls"))
    assert outcomes == {"dead": "interrupted", "live": "reserved"}
    assert store.check().bad_calls == ()


def test_only_allowlisted_codes_are_stored(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add_jobs([REF], 0)
    lease = store.lease("s1", "A", 0, 150_000)
    assert lease is not None
    with pytest.raises(ValueError, match="allowlisted"):
        store.fail(lease, "HTTP 500: sk-secret in body", 1, output=False, pause=False,
                   retry_at=lambda n: 2)
    with pytest.raises(ValueError, match="allowlisted"):
        store.mark_waiting("s1", "because the provider said so", 1)
    with pytest.raises(ValueError, match="allowlisted"):
        store.cool_down("p", "m", 10, "Traceback ...", 1)
    assert store.job("s1").last_error is None  # type: ignore[union-attr]


def test_cooldowns_never_shorten_and_cover_the_provider(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.cool_down("p", "*", 5000, "auth", 0)
    store.cool_down("p", "*", 1000, "unavailable", 0)
    blocking = store.cooling("p", "any-model", 10)
    assert blocking is not None and (blocking.until_ms, blocking.reason) == (5000, "auth")
    assert store.cooling("p", "m", 5000) is None and store.cooling("q", "m", 10) is None
    assert store.transport_failure("p", "m", 1) == 1
    assert store.transport_failure("p", "m", 2) == 2
    store.route_ok("p", "m", 3)
    assert store.transport_failure("p", "m", 4) == 1


def test_an_expired_lease_has_no_say_even_before_the_sweep(tmp_path: Path) -> None:
    """give_up / fail / settle from a holder whose lease ran out are refused (item 59),
    before the sweep or a new owner touched the row, and change nothing."""
    store = _store(tmp_path)
    store.add_jobs([REF], 0)
    lease = store.lease("s1", "A", 10, 160)
    assert lease is not None
    before = store.job("s1")
    assert store.settle(lease, "applied", 160) is False
    assert store.give_up(lease, "budget_spent", 161) is False
    assert store.fail(lease, "overloaded", 170, output=False, pause=False,
                      retry_at=lambda f: 999) is False
    assert store.fail(lease, "write_rejected", 170, output=False, pause=True,
                      retry_at=lambda f: 999) is False
    assert store.job("s1") == before  # still the expired lease, for the sweep to handle
    assert store.expire_leases(200, lambda f: 200 + 60_000 * f) == 1
    job = store.job("s1")
    assert job is not None and (job.state, job.last_error, job.failures) == (
        "retrying", "interrupted", 1)
    # while the lease is live the same calls work
    live = store.lease("s1", "B", 60_200, 60_350)
    assert live is not None and store.give_up(live, "budget_spent", 60_349) is True


def test_a_models_list_of_an_earlier_release_counts_its_routes_once(tmp_path: Path) -> None:
    """A job's list named models (["m1","m2"]) before it named routes; read against route
    keys, the names never matched and still counted: with sourceModels 2, every model,
    m1 and m2 included, was past the budget, and the source waited for ever. Schema step
    4 keys each name the source's calls give a provider; one they do not is matched by
    its name."""
    path = tmp_path / "home" / "evolution.db"
    old = _at_version(path, 3)
    old.execute("INSERT INTO jobs (source_id, origin, classification, captured_at, state, "
                "calls, models, created_at, updated_at) VALUES ('s1', '/a', 'normal', 't', "
                "'pending', 2, '[\"m1\", \"m2\"]', 1, 1)")
    old.execute("INSERT INTO model_calls (source_id, owner, attempt, provider, model, "
                "reserved_at, outcome) VALUES ('s1', 'o', 1, 'openai', 'm1', 5, 'ok')")
    old.close()
    store = JobStore(path)
    job = store.job("s1")
    assert job is not None and job.models == ('["openai", "m1"]', "m2")
    lease = store.lease("s1", "w", 10, 150_000)
    assert lease is not None

    def reserve(provider: str, model: str) -> int | str:
        return store.reserve_call(lease, provider, model, 20, hourly_cap=20, source_calls=9,
                                  source_models=2, daily_usd=None)

    assert isinstance(reserve("openai", "m1"), int)
    assert isinstance(reserve("gw", "m2"), int)  # the unkeyed name, whichever provider
    assert reserve("openai", "m3") == "source_models"
