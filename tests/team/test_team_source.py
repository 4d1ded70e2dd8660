"""The team ledger as a source: incremental reads, anchors across processes
(truncation, rewrite, repair), missing files, exclusion, trust, and the plan block."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import waymarks.ledger.team as ledger_team
from tests.inprocess import edit_in_place, waymarks
from waymarks.core.team import genesis, make_line
from waymarks.service import team, team_views
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import ServiceError
from waymarks.service.planning import plan_request


class Writer:
    """Appends well-formed entries to one contributor file, as another clone would."""

    def __init__(self, directory: Path, contributor: str, author: str) -> None:
        self.path = directory / f"{contributor}.jsonl"
        self.contributor, self.author = contributor, author
        self.seq, self.prev, self.at = 0, genesis(contributor), 1_000

    def line(self, text: str, kind: str = "pin", key: str | None = None) -> bytes:
        self.seq += 1
        self.at += 10
        item = {"id": f"{self.contributor}-{self.seq}", "text": text}
        if key:
            item["key"] = key
        line, self.prev = make_line(contributor=self.contributor, seq=self.seq,
                                    prev=self.prev, entry_id=f"e-{self.contributor}-{self.seq}",
                                    at=self.at, author=self.author, op="add", kind=kind,  # type: ignore[arg-type]
                                    item=item)
        return line

    def add(self, text: str, kind: str = "pin", key: str | None = None) -> str:
        with self.path.open("ab") as handle:
            handle.write(self.line(text, kind, key))
        return f"{self.contributor}-{self.seq}"


@pytest.fixture
def trusted(make_app: Callable[..., Waymarks], project: Path) -> Waymarks:
    team.forget_process_state()
    app = make_app()
    app.trust(str(project))
    (project / ".waymarks" / "team").mkdir(parents=True)
    return app


def active_ids(app: Waymarks) -> list[str]:
    return [i.state.id for i in team_views.team_items(app, team.refresh(app), active_only=True,
                                               provenance=False)]


def test_growth_is_read_incrementally_and_equals_a_fresh_read(trusted: Waymarks,
                                                              project: Path) -> None:
    ann = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    first = [ann.add(f"Rule number {n}") for n in range(3)]
    state = team.refresh(trusted)
    refolds = state.fold.refolds
    assert active_ids(trusted) == first
    later = ann.add("Rule number 3")
    with ann.path.open("ab") as handle:  # a line still being written does not count
        handle.write(ann.line("Rule number 4")[:-10])
    assert active_ids(trusted) == [*first, later]
    assert team.refresh(trusted).fold.refolds == refolds, "appended entries fold in place"
    assert team.refresh(trusted).sources["ann-00000001"].status == "available"
    team.forget_process_state()
    assert active_ids(trusted) == [*first, later]


def test_anchors_catch_truncation_and_rewrites_across_processes(trusted: Waymarks,
                                                                project: Path) -> None:
    ann = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    kept = [ann.add("Deploy to staging first"), ann.add("Run the migrations check")]
    assert active_ids(trusted) == kept
    original = ann.path.read_bytes()
    team.forget_process_state()  # a new process: only the home's anchor remembers
    ann.path.write_bytes(original.splitlines(keepends=True)[0])
    source = team.refresh(trusted).sources["ann-00000001"]
    assert (source.status, source.detail) == ("truncated", "1 entries, 2 seen before")
    assert active_ids(trusted) == []
    # a rewrite that recomputed the chain: valid on its own, not what was seen
    forger = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    ann.path.write_bytes(b"")
    forger.add("Deploy to staging first")
    forger.add("Skip the migrations check")
    team.forget_process_state()
    assert team.refresh(trusted).sources["ann-00000001"].status == "rewritten"
    assert active_ids(trusted) == []
    ann.path.write_bytes(original)  # repaired (restored from git)
    assert team.refresh(trusted).sources["ann-00000001"].status == "available"
    assert active_ids(trusted) == kept


def test_missing_files_exclusion_and_trust(trusted: Waymarks, project: Path) -> None:
    directory = project / ".waymarks" / "team"
    ann = Writer(directory, "ann-00000001", "Ann")
    bob = Writer(directory, "bob-00000002", "Bob")
    a, b = ann.add("Use tabs"), bob.add("Write ADRs for schema changes")
    assert active_ids(trusted) == [a, b]
    assert team.set_excluded(trusted, "bob-00000002", True, "test") is True
    assert active_ids(trusted) == [a]
    team.forget_process_state()  # the exclusion is the home's, not the process's
    assert active_ids(trusted) == [a]
    rows = {r["contributor"]: r for r in team_views.source_json(team.refresh(trusted), trusted.cwd)}
    assert rows["bob-00000002"]["excluded"] and rows["bob-00000002"]["withdrawn"] == 1
    assert team.set_excluded(trusted, "bob-00000002", False) is True
    assert active_ids(trusted) == [a, b]
    ann.path.unlink()
    assert team.refresh(trusted).sources["ann-00000001"].status == "missing"
    assert active_ids(trusted) == [b]
    trusted.untrust(str(project))
    assert active_ids(trusted) == []
    with pytest.raises(ServiceError) as refused:
        team.set_excluded(trusted, "bob-00000002", True)
    assert refused.value.code == "untrusted"
    trusted.trust(str(project))
    assert active_ids(trusted) == [b], "trusted again: read again"


def test_team_items_are_planned_after_the_persons_pins_with_provenance(
        trusted: Waymarks, project: Path) -> None:
    Writer(project / ".waymarks" / "team", "ann-00000001", "Ann <script>").add(
        "Run the migrations check before every commit")
    trusted.pin("Prefer small commits", scope="project")
    plan = plan_request(trusted, "what should I run before committing?")
    kinds = [m.kind for m in plan.messages]
    assert kinds.index("pins") < kinds.index("team") < kinds.index("request")
    block = next(m.content for m in plan.messages if m.kind == "team")
    assert 'Author: "Ann <script>"' in block and "Contributor: ann-00000001" in block
    assert "Commit: uncommitted" in block
    assert '"Run the migrations check before every commit"' in block
    entry = next(e for e in plan.manifest if e.kind == "team")
    assert entry.decision == "included" and entry.id == "ann-00000001-1"


def _cli(home: Path, project: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--cwd", str(project), "--json", *args],
                          capture_output=True, text=True, timeout=120, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_a_long_lived_process_follows_an_exclusion_made_by_another(
        trusted: Waymarks, home: Path, project: Path) -> None:
    # the Claude Code helper, the MCP server or `waymarks ui` stay up while the person
    # runs `waymarks team exclude` in a terminal: the very next read must withdraw them
    directory = project / ".waymarks" / "team"
    a = Writer(directory, "ann-00000001", "Ann").add("Use tabs")
    b = Writer(directory, "bob-00000002", "Bob").add("Write ADRs for schema changes")
    assert active_ids(trusted) == [a, b]
    _cli(home, project, "team", "exclude", "bob-00000002", "left the team")
    assert active_ids(trusted) == [a]
    _cli(home, project, "team", "include", "bob-00000002")
    assert active_ids(trusted) == [a, b]


def test_unreadable_and_linked_files_are_withdrawn_never_a_traceback(
        trusted: Waymarks, project: Path, tmp_path: Path) -> None:
    directory = project / ".waymarks" / "team"
    a = Writer(directory, "ann-00000001", "Ann").add("Use tabs")
    bob = Writer(directory, "bob-00000002", "Bob")
    b = bob.add("Write ADRs for schema changes")
    assert active_ids(trusted) == [a, b]
    # a pushed commit turned Bob's file into a link to a file elsewhere on this machine
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(bob.path.read_bytes())
    bob.path.unlink()
    bob.path.symlink_to(outside)
    source = team.refresh(trusted).sources["bob-00000002"]
    assert (source.status, source.detail) == ("unreadable", "a symbolic link (never followed)")
    assert active_ids(trusted) == [a]
    # a file that cannot be opened (mode 000; root reads anyway, so simulate the error)
    bob.path.unlink()
    bob.path.write_bytes(outside.read_bytes())
    assert active_ids(trusted) == [a, b]
    real_read = ledger_team._opened  # (the file opened to be read, a line at a time)
    ledger_team._opened = lambda path, offset: (  # type: ignore[assignment]
        (_ for _ in ()).throw(PermissionError(13, "denied")) if path.endswith("bob-00000002.jsonl")
        else real_read(path, offset))
    try:
        os.utime(bob.path, ns=(1, 1))  # changed: read again
        source = team.refresh(trusted).sources["bob-00000002"]
        assert (source.status, source.detail) == ("unreadable", "cannot be read (EACCES)")
        assert active_ids(trusted) == [a]
    finally:
        ledger_team._opened = real_read  # type: ignore[assignment]
    assert active_ids(trusted) == [a, b], "readable again: tried again without a new mtime"


@pytest.mark.slow
def test_the_owners_file_is_never_appended_through_a_link(
        make_app: Callable[..., Waymarks], home: Path, project: Path, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _cli(home, project, "trust", str(project))
    _cli(home, project, "team", "init")
    _cli(home, project, "pin", "--scope", "project", "--", "Prefer small commits")
    directory = project / ".waymarks" / "team"
    mine = next(directory.glob("*.jsonl"), None)
    me = mine.stem if mine is not None else None
    if me is None:  # init made no file yet: share once to learn the contributor's name
        pins = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                               "--cwd", str(project), "--json", "pins"],
                              capture_output=True, text=True, check=True)
        pin_id = json.loads(pins.stdout)["items"][0]["id"]
        _cli(home, project, "team", "share", pin_id, "--yes")
        me = next(directory.glob("*.jsonl")).stem
    target = tmp_path / "elsewhere.jsonl"
    own = directory / f"{me}.jsonl"
    own.unlink()
    own.symlink_to(target)  # dangling: an append through it would create a file elsewhere
    team.forget_process_state()
    second = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                             "--cwd", str(project), "--json", "pin", "--scope", "project",
                             "--", "Write ADRs"], capture_output=True, text=True, check=True)
    refused = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                              "--cwd", str(project), "--json", "team", "share",
                              json.loads(second.stdout)["id"], "--yes"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert not target.exists()


def test_oversized_lines_and_files_are_bounded(trusted: Waymarks, project: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    directory = project / ".waymarks" / "team"
    a = Writer(directory, "ann-00000001", "Ann").add("Use tabs")
    bob = Writer(directory, "bob-00000002", "Bob")
    b = bob.add("Write ADRs for schema changes")
    assert active_ids(trusted) == [a, b]
    monkeypatch.setattr(ledger_team, "MAX_LINE_BYTES", 64)
    os.utime(bob.path, ns=(5, 5))
    team.forget_process_state()
    source = team.refresh(trusted).sources["bob-00000002"]
    assert source.status == "tampered" and source.detail == "line 1: longer than 64 bytes"
    monkeypatch.undo()
    monkeypatch.setattr(ledger_team, "MAX_FILE_BYTES", 16)
    team.forget_process_state()
    source = team.refresh(trusted).sources["bob-00000002"]
    assert (source.status, source.detail) == ("unreadable", "larger than 0 MiB (not read)")
    assert active_ids(trusted) == []  # Ann's file is larger than 16 bytes too


def test_a_deeply_nested_line_is_tampering_not_a_traceback(trusted: Waymarks,
                                                           project: Path) -> None:
    """A ~2 KB line nested a thousand deep made the decoder raise RecursionError, which
    took status, plan and the prompt hook down for every teammate."""
    directory = project / ".waymarks" / "team"
    a = Writer(directory, "ann-00000001", "Ann").add("Run the migrations check first")
    deep = directory / "deep-00000003.jsonl"
    deep.write_bytes(b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    trusted.pin("Prefer small commits", scope="project")
    team.forget_process_state()
    source = team.refresh(trusted).sources["deep-00000003"]
    assert source.status == "tampered" and source.detail.startswith("line 1")
    assert active_ids(trusted) == [a]
    plan = plan_request(trusted, "what should I run before committing?")
    kinds = [m.kind for m in plan.messages]
    assert "pins" in kinds and "team" in kinds
    status = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(trusted.home), "--cwd",
         str(project), "--json", "team", "status"], capture_output=True, text=True,
        timeout=120, cwd=project, check=False)
    assert "Traceback" not in status.stderr and status.returncode == 0, status.stderr
    assert "deep-00000003" in status.stdout


# -- hostile repositories (a helper's review, each reproduced first) ----------------------


def test_thousands_of_claims_under_one_key_fold_in_linear_space(trusted: Waymarks,
                                                                project: Path) -> None:
    """Each refused claim named every claim it conflicts with, and a row was listed per
    pair: 2,000 + 2,000 claims under one key took 28.6 s and 5.2 GB for `team status`."""
    ann = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    with ann.path.open("ab") as handle:
        for _ in range(300):
            handle.write(ann.line("The deploy target is staging", "memory", "deploy.target"))
        for n in range(300):
            handle.write(ann.line(f"The deploy target is prod{n}", "memory", "deploy.target"))
    state = team.refresh(trusted)
    named = [len(s.conflicts_with) for s in state.fold.view.items.values()
             if s.status == "invalid"]
    assert len(named) == 300 and max(named) == 16  # the earliest few, not all 300
    assert len(team_views.conflicts_json(trusted, state)) == 300 * 16


def test_a_linked_team_directory_is_neither_read_nor_written(
        make_app: Callable[..., Waymarks], project: Path, tmp_path: Path) -> None:
    team.forget_process_state()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    Writer(elsewhere, "ann-00000001", "Ann").add("Planted through a link")
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "team").symlink_to(elsewhere)
    app = make_app()
    app.trust(str(project))
    assert active_ids(app) == [] and team_views.team_blocks(app) == []
    from waymarks.service.team_init import init
    from waymarks.service.team_write import TeamRefused

    with pytest.raises(TeamRefused, match="symbolic link"):
        init(app)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["ann-00000001.jsonl"]
    (project / ".waymarks" / "team").unlink()
    (project / ".waymarks" / "team").write_text("a file in its place")
    assert active_ids(app) == []  # not a directory: nothing read, no traceback


def test_a_replaced_contributor_file_is_read_whole_again(trusted: Waymarks,
                                                          project: Path) -> None:
    """A long-lived process read a file past its checkpoint whenever the line there
    still held: an earlier line rewritten (same length) then went unseen, while a fresh
    process found the chain broken. A file replaced (a new inode: git, editors) is read
    whole again."""
    ann = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    ann.add("Rule number 0")
    ann.add("Rule number 1")
    assert len(active_ids(trusted)) == 2
    data = ann.path.read_bytes().replace(b"Rule number 0", b"Rule number X")
    replacement = ann.path.with_name("replacement")
    replacement.write_bytes(data)
    os.replace(replacement, ann.path)  # a new file at the path, as git writes one
    ann.add("Rule number 2")
    kept = active_ids(trusted)
    team.forget_process_state()
    assert kept == active_ids(trusted)  # what a new process finds (the chain breaks)
    assert team.refresh(trusted).sources["ann-00000001"].status != "available"


def test_adr_files_are_read_within_the_project_and_bounded(project: Path,
                                                          tmp_path: Path) -> None:
    """`team status` lists the ADRs: it read them whole through any link (/dev/zero ate
    the memory; a file outside the project had its front matter shown)."""
    from waymarks.personal.docs import doc_rows

    decisions = project / "docs" / "engineering" / "decisions"
    decisions.mkdir(parents=True)
    outside = tmp_path / "secret.md"
    outside.write_text("---\nid: ADR-9\nstatus: leaked\n---\nbody\n")
    (decisions.parent / "ADR-0001-big.md").write_text(  # as /dev/zero was read: whole
        "---\nid: ADR-1\nstatus: huge\n---\n" + "x" * 2_000_000)
    (decisions.parent / "ADR-0002-out.md").symlink_to(outside)
    (decisions / "ADR-0003-ok.md").write_text("---\nid: ADR-3\nstatus: accepted\n---\nx\n")
    rows = {Path(r["path"]).name: (r["id"], r["status"]) for r in doc_rows(project)}
    assert rows == {"ADR-0001-big.md": (None, None), "ADR-0002-out.md": (None, None),
                    "ADR-0003-ok.md": ("ADR-3", "accepted")}


def test_team_status_escapes_what_the_repository_wrote(make_app: Callable[..., Waymarks],
                                                       project: Path, home: Path) -> None:
    team.forget_process_state()
    app = make_app()
    app.trust(str(project))
    directory = project / ".waymarks" / "team"
    directory.mkdir(parents=True)
    ann = Writer(directory, "ann-00000001", "Ann")
    ann.contributor = "ann-00000001"
    with ann.path.open("ab") as handle:
        ann.seq += 1
        line, ann.prev = make_line(contributor=ann.contributor, seq=ann.seq, prev=ann.prev,
                                   entry_id="e-1", at=1_010, author="Ann", op="add",
                                   kind="memory", item={"id": "\x1b[31mRED\x1b[0m",
                                                        "text": "Port is 1", "key": "port"})
        handle.write(line)
    ann.add("Port is 2", "memory", "port")
    (project / "docs" / "engineering").mkdir(parents=True)
    (project / "docs" / "engineering" / "ADR-1.md").write_text(
        "---\nid: ADR-1\x1b[2J\nstatus: accepted\x1b]0;HI\x07\n---\n")
    # in this process: what the command prints is the question, not a process
    done = waymarks("--home", str(home), "team", "status", cwd=project,
                    env={"WAYMARKS_SEMANTIC": "off"})
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "RED" in done.stdout and "ADR-1" in done.stdout


def test_a_contributor_file_edited_in_place_keeping_size_and_mtime_is_read_again(
        trusted: Waymarks, project: Path) -> None:
    """A line rewritten in place (the same inode and size, the mtime set back): a new
    process finds the chain broken; the long-lived one skipped the file as unchanged and
    kept serving the forged line's original."""
    ann = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    ann.add("Rule number 0")
    ann.add("Rule number 1")
    assert len(active_ids(trusted)) == 2
    edit_in_place(ann.path, "Rule number 0", "Rule number X")
    kept = active_ids(trusted)
    team.forget_process_state()
    assert kept == active_ids(trusted)  # what a new process finds
    assert team.refresh(trusted).sources["ann-00000001"].status == "tampered"


def test_an_exclusion_written_in_place_keeping_size_and_mtime_is_followed(
        trusted: Waymarks, home: Path, project: Path) -> None:
    directory = project / ".waymarks" / "team"
    a = Writer(directory, "ann-00000001", "Ann").add("Use tabs")
    b = Writer(directory, "bob-00000002", "Bob").add("Write ADRs for schema changes")
    team.set_excluded(trusted, "bob-00000002", True)
    team.set_excluded(trusted, "bob-00000002", False)  # the row says so: excluded false
    assert active_ids(trusted) == [a, b]
    edit_in_place(team.anchors_path(trusted), '"excluded": false', '"excluded": true ')
    assert active_ids(trusted) == [a]


def test_a_process_serving_many_projects_keeps_a_bounded_team_state(
        make_app: Callable[..., Waymarks], tmp_path: Path) -> None:
    """Every project a long-lived process served (the Claude Code helper serves them all)
    kept its team state, the whole fold of a trusted one's ledger, for as long as the
    process ran; an untrusted one an empty state each."""
    team.forget_process_state()
    projects = []
    for n in range(40):
        project = tmp_path / f"p{n}"
        (project / ".waymarks" / "team").mkdir(parents=True)
        Writer(project / ".waymarks" / "team", "ann-00000001", "Ann").add(f"Rule {n}")
        app = make_app(cwd=str(project))
        if n % 2:
            app.trust(str(project))
        assert len(active_ids(app)) == n % 2
        projects.append(app)
    assert len(team._STATES) <= 16
    again = projects[-1]  # the most recently read is still held, and answers the same
    assert team.refresh(again) is team.refresh(again)
    assert active_ids(again) == ["ann-00000001-1"]


def test_each_projects_provenance_cache_holds_only_its_own_files(
        make_app: Callable[..., Waymarks], tmp_path: Path) -> None:
    """Which commit added each team line is cached in the home, one file per project. A
    process serving several projects (the Claude Code helper) wrote everything it had
    blamed in any project into each project's file: one repository's file paths and
    commits in another's cache, rewritten whole on every change of either."""
    team.forget_process_state()
    apps = []
    for name in ("alpha", "beta"):
        project = tmp_path / name
        (project / ".waymarks" / "team").mkdir(parents=True)
        Writer(project / ".waymarks" / "team", "ann-00000001", "Ann").add(f"{name} rule")
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", name]):
            subprocess.run(["git", *command], cwd=project, check=True)
        app = make_app(cwd=str(project))
        app.trust(str(project))
        assert all(i.commit for i in team_views.team_items(app, team.refresh(app)))
        apps.append(app)
    for app in apps:
        cache = team.anchors_path(app).with_name(
            team.anchors_path(app).name.replace(".anchors.jsonl", ".commits.json"))
        named = list(json.loads(cache.read_text()))
        assert named and all(path.startswith(app.cwd + os.sep) for path in named), named


def test_a_teammates_file_whose_last_line_has_no_final_newline_counts_whole(
        trusted: Waymarks, project: Path) -> None:
    """A teammate's file arrives whole through git: one whose last line lost its final
    newline (a web UI's edit, an editor that strips it) had that line's item dropped in
    a fresh clone, the file still ``available``; a clone that had seen it called it
    ``truncated``. A last line that is a complete entry counts; one that is not is left
    out and said (not silently), the lines before it kept."""
    ann = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    kept = [ann.add("Deploy to staging first"), ann.add("Run the migrations check")]
    assert active_ids(trusted) == kept  # a clone that has seen it with its newline
    ann.path.write_bytes(ann.path.read_bytes()[:-1])
    [row] = team_views.source_json(team.refresh(trusted), str(project))
    assert (row["status"], row["detail"], row["entries"]) == ("available", None, 2)
    assert active_ids(trusted) == kept and row["partial"] is None
    team.forget_process_state()
    (trusted.home / "team").rename(trusted.home / "team-seen")  # a fresh clone's home
    assert active_ids(trusted) == kept
    later = ann.add("Squash before merging")  # the teammate's next commit: a line after it
    ann.path.write_bytes(ann.path.read_bytes().replace(b"}{", b"}\n{"))
    assert active_ids(trusted) == [*kept, later]

    with ann.path.open("ab") as handle:  # a last line that is no entry
        handle.write(b'{"seq": 4, "damaged')
    state = team.refresh(trusted)
    assert active_ids(trusted) == [*kept, later]
    [row] = team_views.source_json(state, str(project))
    assert (row["status"], row["entries"]) == ("available", 3)
    assert row["partial"].startswith("line 4 has no final newline and is no complete entry")


@pytest.mark.parametrize("at", [-10**15, 10**30], ids=["before-1970", "past-year-9999"])
def test_an_entry_dated_outside_any_time_is_tampering(trusted: Waymarks, project: Path,
                                                      at: int) -> None:
    """A hand-written line's ``at`` is what the fold orders by: dated at -10**15 (31,000
    years before 1970) a teammate's claim came first on every clone for ever, and a claim
    of its key by anyone else was the invalid one; dated at 10**30 every supersede of it
    was stamped after it, a 31-digit time in the person's own file (a JSON number past
    2**53 that a JavaScript reader of the ledger rounds, its hash then no longer right).
    Such a line is no time at all: its file is tampered, its items not planned."""
    directory = project / ".waymarks" / "team"
    ann = Writer(directory, "ann-00000001", "Ann")
    kept = ann.add("The deploy window is Tuesday", kind="memory", key="deploy-window")
    bob = Writer(directory, "bob-00000002", "Bob")
    bob.at = at
    bob.add("The deploy window is Friday night", kind="memory", key="deploy-window")
    source = team.refresh(trusted).sources["bob-00000002"]
    assert source.status == "tampered" and "time" in source.detail, source.detail
    assert active_ids(trusted) == [kept]
