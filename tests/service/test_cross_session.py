"""Cross-session project memory against real files in Pi's documented session format."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CountingIds
from waymarks.cli.main import main
from waymarks.ledger.discovery import canonical_project_path, session_dir, session_file_name
from waymarks.ledger.session_file import SessionFile
from waymarks.service.app import Waymarks
from waymarks.service.sources import list_sources, set_source_excluded

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def iso(ms: int) -> str:
    from datetime import UTC, datetime

    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class PiSession:
    """A session file written the way Pi writes one: header, messages, custom entries."""

    def __init__(self, directory: Path, cwd: Path | str, start_ms: int,
                 session_id: str | None = None) -> None:
        self.id = session_id or str(uuid.uuid4())
        self.cwd = str(cwd)
        self.clock = start_ms
        self.leaf: str | None = None
        self.count = 0
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / session_file_name(iso(start_ms), self.id)
        self._write({"type": "session", "version": 3, "id": self.id,
                     "timestamp": iso(start_ms), "cwd": self.cwd})

    def _write(self, line: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")

    def _entry(self, body: dict[str, Any]) -> str:
        self.count += 1
        self.clock += 1000
        entry_id = f"{self.count:08x}"
        self._write({**body, "id": entry_id, "parentId": self.leaf,
                     "timestamp": iso(self.clock)})
        self.leaf = entry_id
        return entry_id

    def say(self, text: str) -> str:
        return self._entry({"type": "message", "message": {
            "role": "user", "content": [{"type": "text", "text": text}]}})

    def memory(self, claim: str, *, scope: str = "project", key: str | None = None,
               project: str | None = None, supersedes: str | None = None) -> str:
        item_id = str(uuid.uuid4())
        item: dict[str, Any] = {"id": item_id, "scope": scope, "claim": claim,
                                "sourceEntryIds": [self.leaf] if self.leaf else [],
                                "createdAt": self.clock + 1000}
        if scope == "project":
            item["projectPath"] = project or canonical_project_path(self.cwd)
        if key:
            item["key"] = key
        data: dict[str, Any] = {"schemaVersion": 1, "mutationId": str(uuid.uuid4()),
                                "createdAt": self.clock + 1000,
                                "operation": "supersede" if supersedes else "add",
                                "item": item}
        if supersedes:
            data["previousId"] = supersedes
        self._entry({"type": "custom", "customType": "ds4-context-memory-v1", "data": data})
        return item_id


@pytest.fixture
def today(make_app: Callable[..., Waymarks], project: Path) -> Waymarks:
    app = make_app(ids=CountingIds(9))
    app.trust(str(project))
    app.session_new()
    app.session_say("good morning")
    return app


def sibling_dir(home: Path, project: Path) -> Path:
    return session_dir(home, canonical_project_path(str(project)))


def claims(app: Waymarks) -> list[str]:
    """The memory in effect for the app's session."""
    return sorted(v.text for v in app.items("memory") if v.applies)


def status_of(app: Waymarks, session_id: str) -> str:
    return next(v.status for v in list_sources(app) if v.session_id == session_id)


def test_yesterdays_project_memory_is_there_today(today: Waymarks, home: Path,
                                                  project: Path) -> None:
    yesterday = PiSession(sibling_dir(home, project), project, T0 - 86_400_000)
    yesterday.say("remember the release rule")
    yesterday.memory("Releases are tagged vX.Y.Z")
    yesterday.memory("My scratch note", scope="session")
    assert claims(today) == ["Releases are tagged vX.Y.Z"]  # the session note never leaks


def test_pi_session_roots_are_read_when_configured(today: Waymarks, home: Path,
                                                   project: Path, tmp_path: Path) -> None:
    pi_root = tmp_path / "pi-sessions"
    (home / "config.toml").write_text(f'[memory]\nsessionRoots = ["{pi_root}"]\n')
    pi = PiSession(pi_root / sibling_dir(home, project).name, project, T0)  # Pi's layout
    pi.memory("CI runs on every push")
    assert claims(today) == ["CI runs on every push"]


def test_nothing_is_shared_when_disabled_or_untrusted(make_app: Callable[..., Waymarks],
                                                      home: Path, project: Path) -> None:
    sibling = PiSession(sibling_dir(home, project), project, T0)
    sibling.memory("Releases are tagged vX.Y.Z")
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text("[memory]\ncrossSession = false\n")
    app = make_app(ids=CountingIds(4))
    app.session_new()  # the database is new: the fill reads the home once
    app.trust(str(project))
    assert claims(app) == ["Releases are tagged vX.Y.Z"]
    later = PiSession(sibling_dir(home, project), project, T0 + 5000)
    later.memory("Deploys need two approvals")
    assert claims(app) == ["Releases are tagged vX.Y.Z"]  # no discovery while disabled
    app.untrust(str(project))
    (home / "config.toml").write_text("")
    assert claims(app) == []  # untrusted: project memory does not apply at all


def test_foreign_headers_and_foreign_payloads_never_contribute(today: Waymarks, home: Path,
                                                               project: Path,
                                                               tmp_path: Path) -> None:
    elsewhere = tmp_path / "other-project"
    elsewhere.mkdir()
    foreign = PiSession(sibling_dir(home, project), elsewhere, T0)  # wrong cwd in header
    foreign.memory("Foreign claim from another project's header", project=str(project))
    smuggler = PiSession(sibling_dir(home, project), project, T0 + 10)
    smuggler.memory("Smuggled claim", project=canonical_project_path(str(elsewhere)))
    smuggler.memory("Honest claim")
    assert claims(today) == ["Honest claim"]


def test_appended_lines_are_read_from_the_checkpoint_only(
        today: Waymarks, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sibling = PiSession(sibling_dir(home, project), project, T0)
    for n in range(50):
        sibling.say(f"filler message number {n} " + "x" * 200)
    sibling.memory("First claim")
    assert claims(today) == ["First claim"]
    reads: list[tuple[str, int]] = []
    real = SessionFile._read_from

    def counting(self: SessionFile, offset: int, limit: int) -> bytes:
        data = real(self, offset, limit)
        if self.path == sibling.path:
            reads.append(("read", len(data)))
        return data

    monkeypatch.setattr(SessionFile, "_read_from", counting)
    assert claims(today) == ["First claim"]
    assert reads == []  # unchanged: not even opened
    sibling.memory("Second claim")
    assert claims(today) == ["First claim", "Second claim"]
    size = sibling.path.stat().st_size
    assert 0 < sum(n for _k, n in reads) < size / 2  # header, fingerprint and the new tail


def test_a_supersede_in_a_later_discovered_session_resolves(today: Waymarks, home: Path,
                                                            project: Path) -> None:
    first = PiSession(sibling_dir(home, project), project, T0)
    old = first.memory("The staging port is 5433", key="staging-port")
    assert claims(today) == ["The staging port is 5433"]
    second = PiSession(sibling_dir(home, project), project, T0 + 60_000)
    second.memory("The staging port is 6543", key="staging-port", supersedes=old)
    assert claims(today) == ["The staging port is 6543"]
    states = {v.text: v.status for v in today.items("memory")}
    assert states["The staging port is 5433"] == "superseded"


def test_conflicts_across_sessions_resolve_the_same_whatever_the_discovery_order(
        make_app: Callable[..., Waymarks], home: Path, project: Path, tmp_path: Path) -> None:
    results = []
    for order in ("early-first", "late-first"):
        root = tmp_path / order
        early_at, late_at = (T0, T0 + 1000)
        dirs = sibling_dir(root / "home", project)
        if order == "early-first":
            PiSession(dirs, project, early_at, "a" * 8 + "-0000-4000-8000-" + "0" * 12
                      ).memory("Retention is 7 days", key="retention")
        late = PiSession(dirs, project, late_at, "b" * 8 + "-0000-4000-8000-" + "0" * 12)
        late.memory("Retention is 30 days", key="retention")
        app = make_app(cwd=str(project), ids=CountingIds(6))
        app.home = root / "home"
        app.trust_store.__init__(app.home)  # type: ignore[misc]
        app.trust(str(project))
        app.session_new()
        claims(app)
        if order == "late-first":  # the earlier record arrives after the later one
            PiSession(dirs, project, early_at, "a" * 8 + "-0000-4000-8000-" + "0" * 12
                      ).memory("Retention is 7 days", key="retention")
        results.append({v.text: v.status for v in app.items("memory")})
        app.close()
    assert results[0] == results[1]
    assert results[0]["Retention is 7 days"] == "active"
    assert results[0]["Retention is 30 days"] == "invalid"


def test_unavailable_sources_stop_contributing_until_restored(today: Waymarks, home: Path,
                                                              project: Path) -> None:
    sibling = PiSession(sibling_dir(home, project), project, T0)
    for n in range(20):
        sibling.say(f"padding {n} " + "y" * 100)
    sibling.memory("Releases are tagged vX.Y.Z")
    assert claims(today) == ["Releases are tagged vX.Y.Z"]
    original = sibling.path.read_bytes()

    aside = sibling.path.with_suffix(".bak")
    sibling.path.rename(aside)
    assert claims(today) == [] and status_of(today, sibling.id) == "missing"
    aside.rename(sibling.path)
    assert claims(today) == ["Releases are tagged vX.Y.Z"]
    assert status_of(today, sibling.id) == "available"

    sibling.path.write_bytes(original[: len(original) // 2])
    assert claims(today) == [] and status_of(today, sibling.id) == "truncated"
    sibling.path.write_bytes(original)
    assert claims(today) == ["Releases are tagged vX.Y.Z"]

    header, rest = original.split(b"\n", 1)
    sibling.path.write_bytes(b"x" * len(header) + b"\n" + rest)  # same length, no header
    assert claims(today) == [] and status_of(today, sibling.id) == "corrupt"
    sibling.path.write_bytes(original)
    assert claims(today) == ["Releases are tagged vX.Y.Z"]

    other_id = str(uuid.uuid4())
    sibling.path.write_bytes(original.replace(sibling.id.encode(), other_id.encode(), 1))
    assert claims(today) == [] and status_of(today, sibling.id) == "identity-mismatch"
    sibling.path.write_bytes(original)
    assert claims(today) == ["Releases are tagged vX.Y.Z"]

    moved = sibling.path.with_name("renamed_" + sibling.path.name)
    sibling.path.rename(moved)  # renamed in place: followed, as a rebuild reads it there
    assert claims(today) == ["Releases are tagged vX.Y.Z"]
    assert status_of(today, sibling.id) == "available"
    assert today.rebuild_index()["unreadable"] == []  # the old path is no loss
    assert claims(today) == ["Releases are tagged vX.Y.Z"]
    moved.unlink()  # gone for good: missing, and its claim no longer counts
    assert claims(today) == [] and status_of(today, sibling.id) == "missing"


def test_a_replaced_active_header_keeps_the_last_projection(today: Waymarks) -> None:
    today.remember("Builds use Python 3.11")
    session = today.current_session()
    assert session is not None
    data = session.path.read_bytes()
    session.path.write_bytes(b'{"type":"garbage"}\n' + data.split(b"\n", 1)[1])
    assert claims(today) == ["Builds use Python 3.11"]
    health = today.health()
    assert health["ok"] is False and "header changed" in health["activeSessionProblem"]


def test_the_bound_counts_siblings_not_the_active_session(today: Waymarks, home: Path,
                                                          project: Path) -> None:
    (home / "config.toml").write_text("[memory]\nmaxProjectSessions = 1\n")
    assert claims(today) == []  # the database exists: what follows is discovery
    older = PiSession(sibling_dir(home, project), project, T0)
    older.memory("Older claim")
    newer = PiSession(sibling_dir(home, project), project, T0 + 1000)
    newer.memory("Newer claim")
    os.utime(older.path, ns=(1, 1))  # discovery goes by file modification time
    assert claims(today) == ["Newer claim"]


def test_exclusion_from_the_cli_is_local_policy(today: Waymarks, home: Path, project: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    sibling = PiSession(sibling_dir(home, project), project, T0)
    sibling.memory("Releases are tagged vX.Y.Z")
    sibling.memory("A session-scoped note", scope="session")
    assert claims(today) == ["Releases are tagged vX.Y.Z"]
    before = sibling.path.read_bytes()
    active = today.current_session()
    assert active is not None
    today.close()
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)

    def run(*argv: str) -> tuple[int, Any]:
        code = main(["--json", "--session", active.session_id, *argv])
        return code, json.loads(capsys.readouterr().out)

    code, listed = run("memory", "sources")
    assert code == 0 and {s["sessionId"] for s in listed["sources"]} >= {sibling.id}
    # a review: the reason had no limit, and was never shown anywhere
    code, long_reason = run("memory", "exclude", sibling.id[:8], "r" * 501)
    assert code == 2 and long_reason["code"] == "too_long"
    assert not any(s["excluded"] for s in run("memory", "sources")[1]["sources"])
    assert run("memory", "exclude", sibling.id[:8], "noisy")[0] == 0
    assert run("memory", "list")[1]["items"] == []
    code, refused = run("memory", "exclude", active.session_id)
    assert code == 2 and refused["code"] == "active_source"
    code, sources = run("memory", "sources")
    mine = next(s for s in sources["sources"] if s["sessionId"] == sibling.id)
    assert mine["excluded"] is True and mine["heldBack"] == 1
    assert mine["excludedReason"] == "noisy"
    assert run("memory", "include", sibling.id)[0] == 0
    assert [i["text"] for i in run("memory", "list")[1]["items"]] == [
        "Releases are tagged vX.Y.Z"]
    assert sibling.path.read_bytes() == before  # no session file is ever rewritten


def test_the_active_session_may_restore_an_earlier_exclusion_and_the_db_forgets(
        make_app: Callable[..., Waymarks], home: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    first, second = two_sessions()
    first.remember("First session project claim", scope="project")
    first_id = first.current_session().session_id  # type: ignore[union-attr]
    assert set_source_excluded(second, first_id, True, "for now")
    assert claims(second) == []
    resumed = make_app(ids=CountingIds(3), session=first_id)
    assert set_source_excluded(resumed, first_id, False)  # restoring is allowed
    assert claims(second) == ["First session project claim"]
    assert set_source_excluded(second, first_id, True)
    for app in (first, second, resumed):
        app.close()
    for name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
        (home / name).unlink(missing_ok=True)
    fresh = make_app(ids=CountingIds(4))
    fresh.session_new()
    assert claims(fresh) == ["First session project claim"]  # the policy went with the db


def test_the_sources_plan_is_decided_before_any_file_is_opened() -> None:
    """The pure half of a sources pass (issue 15): unchanged files are skipped, new ones
    get their header read, changed ones are checked, unlisted ones are looked for."""
    from waymarks.service.sources import plan_refresh
    from waymarks.store.reads import KnownSource

    def known(sid: str, path: str, size: int, status: str = "available") -> KnownSource:
        return KnownSource(sid, path, size, 1, 1, "f", size, 7, status)

    rows = [known("same", "/s/a", 10), known("grew", "/s/b", 10),
            known("gone", "/s/c", 10), known("was-missing", "/s/d", 10, "missing"),
            known("active", "/s/e", 10), known("moved", "/s/f", 10, "moved")]
    plan = plan_refresh(rows, [("/s/a", 10, 7, 0), ("/s/b", 20, 8, 0), ("/s/d", 10, 7, 0),
                               ("/s/new", 5, 9, 0)], "active")
    assert plan.new == (("/s/new", 5, 9, 0),)
    assert [(c[0], r.session_id) for c, r in plan.changed] == [("/s/b", "grew"),
                                                              ("/s/d", "was-missing")]
    assert [r.session_id for r in plan.unlisted] == ["gone"]


def test_a_later_line_reusing_an_earlier_entry_id_is_a_duplicate_as_in_a_rebuild(
        today: Waymarks, home: Path, project: Path) -> None:
    """Another session's file, indexed to a checkpoint, then appended a project claim
    whose entry ID is an earlier message's: a reader of the whole file skips it as a
    duplicate. The reader of the tail applied it (without the IDs before the
    checkpoint), so the claim was in effect until a rebuild dropped it, and its entry
    row replaced the message's in the entry index."""
    sibling = PiSession(sibling_dir(home, project), project, T0)
    first = sibling.say("hello")
    sibling.memory("Releases are tagged vX.Y.Z")
    assert claims(today) == ["Releases are tagged vX.Y.Z"]  # indexed to its checkpoint
    sibling.count = int(first, 16) - 1  # the next entry reuses the message's ID
    assert sibling.memory("Deploys need two approvals") and sibling.leaf == first
    incremental = claims(today)
    entries = today.projection.db.execute(
        "SELECT idx, id FROM entries WHERE session_id = ? ORDER BY idx",
        (sibling.id,)).fetchall()
    today.rebuild_index()
    assert incremental == claims(today) == ["Releases are tagged vX.Y.Z"]
    assert [idx for idx, _id in entries] == list(range(len(entries)))  # contiguous
    assert entries[0][1] == first


def test_an_earlier_copy_of_a_session_never_stands_for_it_in_a_rebuild(
        today: Waymarks, home: Path, project: Path) -> None:
    """A copy taken earlier ("... (copy).jsonl" sorts before its original) holds the same
    session ID: the incremental pass keeps the original it indexed first, and a rebuild
    took the copy (the first by path) and forgot what was written after it."""
    sibling = PiSession(sibling_dir(home, project), project, T0)
    sibling.memory("Releases are tagged vX.Y.Z")
    copy = sibling.path.with_name(sibling.path.stem + " (copy).jsonl")
    assert sorted([copy, sibling.path])[0] == copy
    assert claims(today) == ["Releases are tagged vX.Y.Z"]  # the original, indexed
    copy.write_bytes(sibling.path.read_bytes())
    sibling.memory("Deploys need two approvals")
    incremental = claims(today)
    report = today.rebuild_index()
    assert incremental == claims(today) == ["Deploys need two approvals",
                                            "Releases are tagged vX.Y.Z"]
    assert [note for note in report["unreadable"] if "same session ID" in note] == [
        f"{copy}: same session ID as {sibling.path}; skipped"]


def test_a_session_and_its_earlier_copy_met_together_index_the_session(
        today: Waymarks, home: Path, project: Path) -> None:
    """Both files new to the projection in one pass: the copy's older changes were applied
    first and the original was skipped as a second file of the same session."""
    sibling = PiSession(sibling_dir(home, project), project, T0)
    sibling.memory("Releases are tagged vX.Y.Z")
    copy = sibling.path.with_name(sibling.path.stem + " (copy).jsonl")
    copy.write_bytes(sibling.path.read_bytes())
    sibling.memory("Deploys need two approvals")
    os.utime(copy, ns=(10**18, 10**18))  # older than the original: met first
    incremental = claims(today)
    today.rebuild_index()
    assert incremental == claims(today) == ["Deploys need two approvals",
                                            "Releases are tagged vX.Y.Z"]


def excluded_then_damaged(two_sessions: Callable[[], tuple[Waymarks, Waymarks]],
                          home: Path, memory: str,
                          damage: Callable[[Path], None]) -> tuple[str, str]:
    """A session holding the project claim ``memory``, excluded from another; the
    database then damaged. Returns (the excluded session's ID, the other's)."""
    first, second = two_sessions()
    first.remember(memory, scope="project")
    first_id = first.current_session().session_id  # type: ignore[union-attr]
    second_id = second.current_session().session_id  # type: ignore[union-attr]
    assert set_source_excluded(second, first_id, True, "experiments, not facts")
    assert claims(second) == []
    first.close()
    second.close()
    damage(home / "waymarks.db")
    return first_id, second_id


def _excluded_then_damaged(make_app: Callable[..., Waymarks], home: Path,
                           two_sessions: Callable[[], tuple[Waymarks, Waymarks]],
                           damage: Callable[[Path], None]) -> Waymarks:
    _excluded, second_id = excluded_then_damaged(two_sessions, home,
                                                 "Experimental flag FOO is enabled", damage)
    return make_app(ids=CountingIds(3), session=second_id)


def test_recovering_a_damaged_database_keeps_its_exclusions(
        make_app: Callable[..., Waymarks], home: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    # a rebuild after damage started from a new database and dropped the exclusions: the
    # excluded session's project memory reached the model again, and the note said nothing
    import sqlite3

    def changed_cell(db: Path) -> None:
        con = sqlite3.connect(db)
        assert con.execute("UPDATE mutations SET note = 'changed'").rowcount
        con.commit()
        con.close()

    again = _excluded_then_damaged(make_app, home, two_sessions, changed_cell)
    assert claims(again) == []
    assert again.recovered is not None and again.recovered["caveats"] == []
    report = again.health()
    assert report["ok"], report["problems"]


def test_exclusions_that_cannot_be_read_are_named_by_the_repair(
        make_app: Callable[..., Waymarks], home: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    def truncated(db: Path) -> None:
        with open(db, "r+b") as handle:
            handle.truncate(8192)

    again = _excluded_then_damaged(make_app, home, two_sessions, truncated)
    assert claims(again) == ["Experimental flag FOO is enabled"]  # included again: said so
    assert_loss_said(again, "exclusions")


def assert_loss_said(app: Waymarks, caveat: str) -> None:
    """The repair said its exclusions were lost (``caveat`` in its note), and ``health``
    says so until they are set again."""
    assert app.recovered is not None and caveat in app.recovered["caveats"][0]
    report = app.health()
    assert not report["ok"]
    assert any("memory exclude" in problem for problem in report["problems"])


def test_lost_exclusions_stay_a_health_problem_in_every_process_until_set_again(
        make_app: Callable[..., Waymarks], home: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    # the repair's note lived only in the process that repaired: the next `waymarks
    # health` said OK while the excluded session counted again (found in a README review)
    def truncated(db: Path) -> None:
        with open(db, "r+b") as handle:
            handle.truncate(8192)

    repairing = _excluded_then_damaged(make_app, home, two_sessions, truncated)
    assert claims(repairing) == ["Experimental flag FOO is enabled"]
    session_id = repairing.current_session().session_id  # type: ignore[union-attr]
    repairing.close()

    def problems() -> list[str]:
        later = make_app(ids=CountingIds(9), session=session_id)
        try:
            assert later.recovered is None  # another process: it repaired nothing
            return [p for p in later.health()["problems"] if "exclusions" in p]
        finally:
            later.close()

    [lost] = problems()
    assert lost.startswith("repair: the source exclusions it held could not all be read")
    later = make_app(ids=CountingIds(9), session=session_id)
    later.rebuild_index()  # local policy's note: kept as the exclusions are
    later.close()
    assert len(problems()) == 1
    import sqlite3  # damaged again, readably: the copy's note is taken over with its rows

    con = sqlite3.connect(home / "waymarks.db")
    assert con.execute("UPDATE mutations SET note = 'changed'").rowcount
    con.commit()
    con.close()
    [again] = problems()
    assert again.startswith("repair: the source exclusions it held could not all be read")
    assert "in an earlier repair" in again
    later = make_app(ids=CountingIds(9), session=session_id)
    [first] = [s for s in list_sources(later) if s.session_id != session_id]
    assert set_source_excluded(later, first.session_id, True, "experiments, not facts")
    assert claims(later) == []
    later.close()
    assert problems() == []


def test_a_home_that_never_excluded_a_session_is_not_told_to_check_them(
        make_app: Callable[..., Waymarks], home: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    # an unreadable copy's exclusions cannot be known; where none was ever set there were
    # none to lose, and a note nothing could end (no exclusion to set again) was noise
    first, second = two_sessions()
    first.remember("Experimental flag FOO is enabled", scope="project")
    second_id = second.current_session().session_id  # type: ignore[union-attr]
    first.close()
    second.close()
    with open(home / "waymarks.db", "r+b") as handle:
        handle.truncate(8192)
    again = make_app(ids=CountingIds(3), session=second_id)
    assert claims(again) == ["Experimental flag FOO is enabled"]
    assert again.recovered is not None and again.recovered["caveats"] == []
    assert again.health()["ok"]


def test_listing_sources_marks_a_home_that_excluded_before_the_mark_existed(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]], home: Path) -> None:
    from waymarks.service.recovery import EXCLUSIONS_USED

    first, second = two_sessions()
    first.remember("Experimental flag FOO is enabled", scope="project")
    first_id = first.current_session().session_id  # type: ignore[union-attr]
    assert set_source_excluded(second, first_id, True, "experiments")
    assert (home / EXCLUSIONS_USED).exists()
    (home / EXCLUSIONS_USED).unlink()  # as in a home that excluded under an older version
    assert [v.excluded for v in list_sources(second) if v.session_id == first_id] == [True]
    assert (home / EXCLUSIONS_USED).exists()


def test_the_repairing_process_ends_the_note_too_once_an_exclusion_is_set(
        make_app: Callable[..., Waymarks], home: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    # a long-lived process (the inspector, the MCP server) kept its repair's caveat for
    # ever, after the database's note had ended (found in a review)
    def truncated(db: Path) -> None:
        with open(db, "r+b") as handle:
            handle.truncate(8192)

    app = _excluded_then_damaged(make_app, home, two_sessions, truncated)
    session_id = app.current_session().session_id  # type: ignore[union-attr]
    assert len([p for p in app.health()["problems"] if "exclusions" in p]) == 1
    [first] = [s for s in list_sources(app) if s.session_id != session_id]
    assert set_source_excluded(app, first.session_id, True, "again")
    assert [p for p in app.health()["problems"] if "exclusions" in p] == []
