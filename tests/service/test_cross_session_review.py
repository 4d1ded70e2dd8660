"""Defects a review found in cross-session memory, personal memory and docs: each one
reproduced here against real files, and fixed."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from tests.service.test_cross_session import PiSession, claims, sibling_dir, status_of
from waymarks.personal.docs import DOCS_DIR, EngineeringDocs, load_chunks
from waymarks.personal.notes import add_note, promote_prompt
from waymarks.personal.store import PersonalStore
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.sources import set_source_excluded

T0 = 1_767_225_600_000


def today_app(make_app: Callable[..., Waymarks], project: Path) -> Waymarks:
    app = make_app(ids=CountingIds(9))
    app.trust(str(project))
    app.session_new()
    app.session_say("good morning")
    return app


def test_another_projects_session_cannot_change_this_projects_items(
        make_app: Callable[..., Waymarks], home: Path, project: Path, tmp_path: Path) -> None:
    today = today_app(make_app, project)
    claim = today.remember("Releases are tagged vX.Y.Z", scope="project")
    assert isinstance(claim, Committed)
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    foreign = PiSession(sibling_dir(home, elsewhere), elsewhere, T0)
    foreign._entry({"type": "custom", "customType": "ds4-context-memory-v1", "data": {
        "schemaVersion": 1, "mutationId": str(uuid.uuid4()), "createdAt": T0,
        "operation": "status", "memoryId": claim.id, "status": "invalid"}})
    today.rebuild_index()  # reads every ledger in the home, the foreign one included
    assert [v.status for v in today.items("memory")] == ["active"]


def test_a_repeated_entry_id_in_a_sibling_does_not_wipe_local_policy(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    today = today_app(make_app, project)
    sibling = PiSession(sibling_dir(home, project), project, T0)
    sibling.memory("Releases are tagged vX.Y.Z")
    assert claims(today) == ["Releases are tagged vX.Y.Z"]
    assert set_source_excluded(today, sibling.id, True, "noise")
    last = sibling.path.read_text().splitlines()[-1]
    with sibling.path.open("a") as handle:
        handle.write(last + "\n")  # the same entry again
    assert claims(today) == []  # still excluded: no damage, no rebuilt database
    assert not list(home.glob("waymarks.db.damaged-*"))


def test_the_active_session_is_available_again_once_it_is_read(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    first = make_app(ids=CountingIds(1))
    first.trust(str(project))
    first.session_new()
    first.session_say("hello")
    first_id = first.current_session().session_id  # type: ignore[union-attr]
    path = first.current_session().path  # type: ignore[union-attr]
    original = path.read_bytes()
    first.items("pin")  # projected: its checkpoint is in the database
    second = today_app(make_app, project)
    claims(second)
    path.write_bytes(original[:-10])  # the header survives: only the tail is cut
    assert status_of(second, first_id) == "truncated"
    path.write_bytes(original)
    resumed = make_app(ids=CountingIds(3), session=first_id)
    pinned = resumed.pin("Project pin from the restored session", scope="project")
    assert isinstance(pinned, Committed)
    assert [v.text for v in resumed.items("pin") if v.applies] == [
        "Project pin from the restored session"]


def test_a_session_item_that_names_a_project_is_refused(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    today = today_app(make_app, project)
    smuggler = PiSession(sibling_dir(home, project), project, T0)
    item_id = str(uuid.uuid4())
    smuggler._entry({"type": "custom", "customType": "ds4-context-pin-v1", "data": {
        "schemaVersion": 1, "mutationId": str(uuid.uuid4()), "createdAt": T0,
        "operation": "add", "item": {"id": item_id, "scope": "session", "content": "SMUGGLED",
                                     "createdAt": T0, "projectPath": today.cwd}}})
    today.rebuild_index()
    assert [v.text for v in today.items("pin")] == []


def test_a_file_wide_marker_classifies_every_chunk_of_the_file(project: Path) -> None:
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "secrets.md").write_text("[ds4:sensitive]\n# Deploy\nThe deploy password is "
                                     "hunter2.\n\n# Rollback\nRun the rollback job.\n")
    assert {c.level for c in load_chunks(project)} == {"sensitive"}


def test_only_decisions_in_force_retire_others(project: Path,
                                               make_app: Callable[..., Waymarks]) -> None:
    decisions = project / "docs" / "engineering" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "ADR-0001-tabs.md").write_text(
        "---\nid: ADR-0001\ntitle: Indent with tabs\nstatus: Active\n---\nTabs.\n")
    (decisions / "ADR-0002-spaces.md").write_text(
        "---\nid: ADR-0002\ntitle: Indent with spaces\nstatus: Rejected\n"
        "supersedes: ADR-0001\n---\nSpaces.\n")
    (decisions / "ADR-0003-width.md").write_text(
        "---\nid: ADR-0003\ntitle: Line width 80\nstatus: Superseded by ADR-0004\n---\n80.\n")
    sources = {c.source for c in load_chunks(project)}
    assert any("ADR-0001" in s for s in sources)
    assert not any("ADR-0002" in s or "ADR-0003" in s for s in sources)
    app = make_app()
    app.trust(str(project))
    app.session_say("hi")
    assert EngineeringDocs().candidates(app, "indent with tabs")


def test_promotion_withholds_what_the_provider_may_not_see(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app()
    app.session_say("hi")
    add_note(app, "Rotate keys [ds4:local-only]on the vault host prod-db7[/ds4:local-only] monthly")
    add_note(app, "[ds4:local-only]entirely private lesson[/ds4:local-only]")
    add_note(app, "Run the migrations before the tests")
    prompt, lessons = promote_prompt(app)
    # a note above what the provider may receive is left out whole, as a plan leaves it
    assert prompt is not None and len(lessons) == 1 and "Run the migrations" in prompt
    assert "prod-db7" not in prompt and "entirely private" not in prompt
    assert "Rotate keys" not in prompt


def test_a_derived_slug_never_replaces_another_entry(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    first = store.save("Prefer small PRs\nbecause reviews are faster")
    second = store.save("Prefer small PRs\nbecause CI is faster")
    assert (first.slug, second.slug) == ("prefer-small-prs", "prefer-small-prs-2")
    assert not second.replaced and len(store.entries()) == 2
    replaced = store.save("Prefer small PRs, always", slug="prefer-small-prs")
    assert replaced.replaced and len(store.entries()) == 2


def test_an_unreadable_legacy_file_breaks_nothing(make_app: Callable[..., Waymarks],
                                                  home: Path) -> None:
    home.mkdir(exist_ok=True)
    (home / "memory.md").write_bytes(b"- 2026-01-01 \xff\xfe broken\n")
    from waymarks.personal.setup import plan_with_memory

    app = make_app()
    app.session_say("hi")
    plan = plan_with_memory(app, "anything")
    assert plan.messages[-1].kind == "request"
    assert (home / "memory.md").exists() and not (home / "memory.md.bak").exists()
    assert json.dumps([m.kind for m in plan.messages])


def test_health_reports_an_unreadable_active_session_instead_of_failing(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    app = make_app()
    app.session_say("hello")
    path = app.current_session().path  # type: ignore[union-attr]
    app.close()
    path.write_bytes(b"garbage header\n" + path.read_bytes().split(b"\n", 1)[1])
    fresh = make_app(ids=CountingIds(4))
    report = fresh.health()  # a file without a header is never picked as the session...
    assert fresh.current_session() is None and report["activeSessionProblem"] is None
    # ...but the file is reported: its entries are never read
    assert report["ok"] is False
    assert [p for p in report["problems"] if str(path) in p and "not a session file" in p]
    named = make_app(ids=CountingIds(5), session=str(path))  # naming it is an error, reported
    report = named.health()
    assert report["ok"] is False and "header" in report["activeSessionProblem"]


def test_engineering_docs_linked_out_of_the_project_are_never_walked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file leading out of the project was skipped, but the walk itself followed a
    ``docs/engineering`` linked elsewhere: linked to ``/`` by a checkout, every plan of
    that project walked the whole disk. The folder itself must be inside the project."""
    import pathlib

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "docs").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "notes.md").write_text("# Deploys\n\nDeploys go to staging first.\n")
    (project / DOCS_DIR).symlink_to(elsewhere, target_is_directory=True)
    walked: list[Path] = []
    rglob = pathlib.Path.rglob

    def spy(self: Path, pattern: str) -> object:
        walked.append(self)
        return rglob(self, pattern)

    monkeypatch.setattr(pathlib.Path, "rglob", spy)
    assert load_chunks(project) == []
    assert walked == []
