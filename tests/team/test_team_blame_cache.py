"""Which commit added each team item is blamed once per file and kept (a review: past
256 contributor files the cache was cleared whole, so every plan ran `git blame` on
every file, and the cache file was rewritten after each blame)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks
from tests.team.test_team_review import repo  # noqa: F401 (a fixture)
from tests.team.test_team_source import Writer
from waymarks.service import team, team_git
from waymarks.service.app import Waymarks
from waymarks.service.team_git import SHALLOW, TIMED_OUT
from waymarks.service.team_views import team_items

FILES = 300


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_every_file_of_a_large_team_is_blamed_once(repo: Path, home: Path,  # noqa: F811
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    for n in range(FILES):
        Writer(directory, f"member{n:03d}-{n:08x}", f"Member {n}").add(f"Item number {n}")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "team"], cwd=repo, check=True)
    blames, saves = [], []
    real_git, real_save = team_git._git, team_git._save

    def git(directory: Path, *args: str, **kwargs: Any) -> bytes | None:
        if args[0] == "blame":
            blames.append(args[-1])
        return real_git(directory, *args, **kwargs)

    def save(cache: Path | None, directory: Path) -> None:
        saves.append(directory)
        real_save(cache, directory)

    monkeypatch.setattr(team_git, "_git", git)
    monkeypatch.setattr(team_git, "_save", save)
    with Waymarks(home, cwd=str(repo)) as app:
        for _ in range(3):  # a long-lived process: three plans' worth of listings
            items = team_items(app, team.refresh(app))
            assert len(items) == FILES and all(i.commit for i in items)
    assert len(blames) == FILES and len(set(blames)) == FILES
    assert len(saves) == 1
    cache = json.loads(next((home / "team").glob("*.commits.json")).read_text())
    assert len(cache) == FILES
    team_git._BLAME.clear()  # a new process reads the cache: no blame at all
    team_git._LOADED.clear()
    with Waymarks(home, cwd=str(repo)) as app:
        assert all(i.commit for i in team_items(app, team.refresh(app)))
    assert len(blames) == FILES


def test_a_team_of_more_files_than_the_cache_holds_is_blamed_once(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Past :data:`team_git.BLAMED_FILES` files in one ledger (4,200 files made by one
    pushed commit), each new blame dropped the oldest kept one, the very file the next
    plan asked for first: every plan, each prompt's hook, blamed every file again (2 min
    a prompt at 4,200 files, measured). A project's own files are kept whole; only other
    projects' give way."""
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    for n in range(8):
        Writer(directory, f"member{n:03d}-{n:08x}", f"Member {n}").add(f"Item number {n}")
    _commit(repo, "team")
    monkeypatch.setattr(team_git, "BLAMED_FILES", 5)
    blames: list[str] = []
    real_git = team_git._git

    def git(directory: Path, *args: str, **kwargs: Any) -> bytes | None:
        if args[0] == "blame":
            blames.append(args[-1])
        return real_git(directory, *args, **kwargs)

    monkeypatch.setattr(team_git, "_git", git)
    team.forget_process_state()
    for _ in range(2):  # a first process, then the next one reading the cache
        team_git._BLAME.clear()
        team_git._LOADED.clear()
        with Waymarks(home, cwd=str(repo)) as app:
            app.trust(str(repo))
            for _ in range(2):  # and a long-lived one's second plan
                assert all(i.commit for i in team_items(app, team.refresh(app)))
    assert sorted(blames) == sorted(p.name for p in directory.glob("*.jsonl"))


def _commit(where: Path, message: str) -> str:
    subprocess.run(["git", "add", "-A"], cwd=where, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=where, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, check=True,
                          capture_output=True, text=True).stdout.strip()[:12]


def test_a_shallow_clone_credits_no_line_to_its_cut_off_commit(
        repo: Path, home: Path, tmp_path: Path) -> None:  # noqa: F811
    """In a shallow clone ``git blame`` credits every older line to the commit where the
    history is cut (a ``boundary``): each item was shown as added there, and kept so
    after ``git fetch --unshallow`` (the cache's stamp did not change)."""
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    bob = Writer(directory, "bob-00000001", "Bob")
    commits = []
    for text in ("Tag releases by date", "Squash before merging", "Run the linter"):
        bob.add(text)
        commits.append(_commit(repo, text))
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo}", str(clone)],
                   check=True)
    assert (clone / ".git" / "shallow").is_file()
    team.forget_process_state()
    with Waymarks(home, cwd=str(clone)) as app:
        app.trust(str(clone))

        def credited() -> list[str | None]:
            return [i.commit for i in team_items(app, team.refresh(app))]

        # the cut-off commit: unknown, said so (a re-read: shown as "uncommitted" it read
        # as never committed; the cut commit's own line is as unknown to blame)
        assert credited() == [SHALLOW, SHALLOW, commits[2]]
        shown = waymarks("--home", str(home), "team", "status", cwd=clone).stdout
        assert "unknown" in shown and "uncommitted" not in shown
        subprocess.run(["git", "fetch", "-q", "--unshallow"], cwd=clone, check=True)
        assert credited() == commits


def test_the_commit_shown_is_the_one_that_added_the_line_whatever_the_repository_lists(
        repo: Path, home: Path) -> None:  # noqa: F811
    """``blame.ignoreRevsFile`` set as GitHub suggests names a file the repository holds
    (``.git-blame-ignore-revs``): it applied to the team ledger too, so a commit the
    repository listed was not shown, its line credited to an earlier commit (the
    repository chose the provenance a model reads)."""
    subprocess.run(["git", "config", "blame.ignoreRevsFile", ".git-blame-ignore-revs"],
                   cwd=repo, check=True)
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    (repo / ".git-blame-ignore-revs").write_text("# formatting commits\n")
    bob = Writer(directory, "bob-00000001", "Bob")
    commits = []
    for text in ("Tag releases by date", "Squash before merging"):
        bob.add(text)
        commits.append(_commit(repo, text))
    (repo / ".git-blame-ignore-revs").write_text(
        subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                       capture_output=True, text=True).stdout)
    _commit(repo, "ignore the second share")
    team.forget_process_state()
    with Waymarks(home, cwd=str(repo)) as app:
        app.trust(str(repo))
        assert [i.commit for i in team_items(app, team.refresh(app))] == commits


def test_an_ignore_list_naming_a_missing_file_hides_no_commit(
        repo: Path, home: Path, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``blame.ignoreRevsFile`` set in the user's git configuration (as often advised,
    once for every repository) names a file this repository does not hold: git then
    refuses every blame, ``--ignore-revs-file=`` or not, and each committed team item
    showed as ``uncommitted``."""
    config = tmp_path / "user.gitconfig"
    config.write_text("[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n")
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    Writer(directory, "bob-00000001", "Bob").add("Tag releases by date")
    commit = _commit(repo, "share")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    team.forget_process_state()
    with Waymarks(home, cwd=str(repo)) as app:
        app.trust(str(repo))
        assert [i.commit for i in team_items(app, team.refresh(app))] == [commit]


def test_a_blame_that_failed_is_not_kept_for_the_next_process(
        repo: Path, home: Path, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A blame git could not give (git missing from a hook's PATH, a repository git
    refuses for its owner until ``safe.directory`` names it) answered no commit, and that
    was kept in the home's cache as the file's provenance: every committed item showed as
    ``uncommitted`` in every later process, git working again, until the next commit."""
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    Writer(directory, "bob-00000001", "Bob").add("Tag releases by date")
    commit = _commit(repo, "share")
    team.forget_process_state()
    with monkeypatch.context() as without_git:
        without_git.setenv("PATH", str(tmp_path / "no-git-here"))
        with Waymarks(home, cwd=str(repo)) as app:
            app.trust(str(repo))
            assert [i.commit for i in team_items(app, team.refresh(app))] == [None]
    team_git._BLAME.clear()  # a new process, git found again
    team_git._LOADED.clear()
    team.forget_process_state()
    with Waymarks(home, cwd=str(repo)) as app:
        assert [i.commit for i in team_items(app, team.refresh(app))] == [commit]


def test_a_blame_that_timed_out_is_kept_and_tried_once(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A blame that ran out of time (a huge file, a long history) is an answer to keep:
    asked again by every new process (each hook), each would wait the timeout again,
    twice (the second try, without the user's git configuration, waited as long). It says
    that the commit is unknown: kept as no line committed, a committed item showed as
    ``uncommitted`` in every process, git answering again, until the next commit."""
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    Writer(directory, "bob-00000001", "Bob").add("Tag releases by date")
    _commit(repo, "share")
    blames = []
    real_run = subprocess.run

    def slow(command: list[str], *args: object, **kwargs: object) -> object:
        if command[3:4] == ["blame"]:
            blames.append(command)
            raise subprocess.TimeoutExpired(command, 10)
        return real_run(command, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(team_git.subprocess, "run", slow)
    monkeypatch.setattr(team_git, "_HUNG", [])  # (this test's timeout, no later test's)
    team.forget_process_state()
    with Waymarks(home, cwd=str(repo)) as app:
        app.trust(str(repo))
        assert [i.commit for i in team_items(app, team.refresh(app))] == [TIMED_OUT]
    team_git._BLAME.clear()  # a new process
    team_git._LOADED.clear()
    team.forget_process_state()
    with Waymarks(home, cwd=str(repo)) as app:
        assert [i.commit for i in team_items(app, team.refresh(app))] == [TIMED_OUT]
    assert len(blames) == 1
    monkeypatch.setattr(team_git.subprocess, "run", real_run)
    done = waymarks("--home", str(home), "--json", "team", "status", cwd=repo)
    assert json.loads(done.stdout)["items"][0]["commit"] == TIMED_OUT
    shown = waymarks("--home", str(home), "team", "status", cwd=repo).stdout
    assert "unknown" in shown and "uncommitted" not in shown, shown


def test_after_a_blame_times_out_the_other_files_wait_no_more(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """With git hanging, each file's blame waited the whole timeout: after a pull that
    changed five teammates' files, one plan (a prompt's hook) waited 50 s, past a host's
    hook timeout, and a hook stopped there saved none of them, so the next prompt waited
    as long again. Once one blame has timed out, the others of the listing are not asked
    (shown unknown, not kept: asked once git may answer again)."""
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    for n, name in enumerate(("ann", "bob", "cyd")):
        Writer(directory, f"{name}-0000000{n}", name.title()).add(f"Item number {n}")
    commit = _commit(repo, "share")
    blames: list[str] = []
    real_run = subprocess.run

    def hanging(command: list[str], *args: object, **kwargs: object) -> object:
        if command[3:4] == ["blame"]:
            blames.append(command[-1])
            raise subprocess.TimeoutExpired(command, 10)
        return real_run(command, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(team_git.subprocess, "run", hanging)
    monkeypatch.setattr(team_git, "_HUNG", [])  # (this test's timeout, no later test's)
    team.forget_process_state()
    with Waymarks(home, cwd=str(repo)) as app:
        app.trust(str(repo))
        assert [i.commit for i in team_items(app, team.refresh(app))] == [TIMED_OUT] * 3
    assert blames == ["ann-00000000.jsonl"]
    monkeypatch.setattr(team_git.subprocess, "run", real_run)
    monkeypatch.setattr(team_git, "HUNG_S", 0)  # git answers again, later
    with Waymarks(home, cwd=str(repo)) as app:
        assert [i.commit for i in team_items(app, team.refresh(app))] == [
            TIMED_OUT, commit, commit]


def test_a_team_file_not_yet_added_to_git_is_blamed_once_not_by_every_process(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Between ``team share`` and ``git add`` (or for a file ``.gitignore`` hides) ``git
    blame`` answers "no such path in HEAD": an answer about the file (none of its lines is
    committed, as a blame of it once added would say), kept as one. Not kept, every new
    process (each prompt's hook) ran two failing blames (the second without the user's
    git configuration) for each such file; a German git says it in German."""
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    (repo / "README").write_text("a project\n")
    _commit(repo, "start")
    Writer(directory, "bob-00000001", "Bob").add("Tag releases by date")
    monkeypatch.setenv("LANGUAGE", "de")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    blames = []
    real_run = subprocess.run

    def counted(command: list[str], *args: object, **kwargs: object) -> object:
        if command[3:4] == ["blame"]:
            blames.append(command)
        return real_run(command, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(team_git.subprocess, "run", counted)
    for _ in range(2):  # two processes
        team_git._BLAME.clear()
        team_git._LOADED.clear()
        team.forget_process_state()
        with Waymarks(home, cwd=str(repo)) as app:
            app.trust(str(repo))
            assert [i.commit for i in team_items(app, team.refresh(app))] == [None]
    assert len(blames) == 1
    _commit(repo, "share")  # a new HEAD: blamed again, and now committed
    team_git._BLAME.clear()
    team_git._LOADED.clear()
    team.forget_process_state()
    with Waymarks(home, cwd=str(repo)) as app:
        assert all(i.commit for i in team_items(app, team.refresh(app)))


def test_a_blame_git_refuses_is_kept_for_a_while_not_asked_by_every_process(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A repository git refuses (``detected dubious ownership``: a clone mounted into a
    container under another user) answers no blame until ``safe.directory`` names it.
    Asked again by every new process, each prompt's hook ran two failing blames for each
    team file (~9 ms each: 20 files, ~360 ms a prompt); kept for good, a person who then
    named the repository saw every item ``uncommitted`` until the next commit. Kept for
    :data:`~waymarks.service.team_git.REFUSED_KEPT_S`, then asked again."""
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    Writer(directory, "bob-00000001", "Bob").add("Tag releases by date")
    commit = _commit(repo, "share")
    blames = []
    real_run = subprocess.run
    refusing = [True]

    def run(command: list[str], *args: object, **kwargs: object) -> object:
        if command[3:4] == ["blame"]:
            blames.append(command)
            if refusing[0]:
                return subprocess.CompletedProcess(command, 128, b"",
                                                   b"fatal: detected dubious ownership")
        return real_run(command, *args, **kwargs)  # type: ignore[call-overload]

    now = [1_000_000.0]
    monkeypatch.setattr(team_git.subprocess, "run", run)
    monkeypatch.setattr(team_git, "_now", lambda: now[0])

    def new_process() -> list[str | None]:
        team_git._BLAME.clear()
        team_git._LOADED.clear()
        team.forget_process_state()
        with Waymarks(home, cwd=str(repo)) as app:
            app.trust(str(repo))
            return [i.commit for i in team_items(app, team.refresh(app))]

    assert new_process() == [None]
    assert len(blames) == 2  # (the second try, without the user's git configuration)
    assert new_process() == [None]
    assert len(blames) == 2
    refusing[0] = False  # safe.directory named
    now[0] += team_git.REFUSED_KEPT_S
    assert new_process() == [commit]
    assert len(blames) == 3
