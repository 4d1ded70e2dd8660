"""Team memory where git stands in the way: a team file two branches wrote, in a merge
git left unresolved (README, Team memory: one home's file written on two branches;
``merge=binary`` keeps this side's file in place, no marker in it: it read as available,
and committing the merge dropped the other branch's entries unnoticed), a merge
committed with its markers, and a checkout git refuses for its owner or cannot run in."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from tests.team.test_team_source import Writer
from waymarks.service import team, team_git


def _git(project: Path, *args: str, check: bool = True) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=check, capture_output=True)


def test_team_status_names_a_team_file_a_merge_left_unmerged(project: Path, home: Path
                                                             ) -> None:
    team.forget_process_state()
    _git(project, "init", "-q", "-b", "main")
    _git(project, "config", "user.name", "Dana")
    _git(project, "config", "user.email", "dana@example.com")
    (project / "README").write_text("app\n")
    _git(project, "add", "README")
    _git(project, "commit", "-qm", "start")
    for args in (("trust", "."), ("team", "init")):
        assert waymarks("--home", str(home), *args, cwd=project).returncode == 0
    directory = project / ".waymarks" / "team"
    dana = Writer(directory, "dana-00000001", "Dana")
    dana.add("Run the migrations check")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "share")
    before, other = directory.joinpath("dana-00000001.jsonl").read_bytes(), copy.copy(dana)
    _git(project, "checkout", "-qb", "feat")
    dana.add("Deploy on Tuesdays")
    _git(project, "commit", "-qam", "share on feat")
    _git(project, "checkout", "-q", "main")
    assert dana.path.read_bytes() == before
    other.add("Review every schema change")
    _git(project, "commit", "-qam", "share on main")
    _git(project, "merge", "-q", "feat", check=False)

    path = ".waymarks/team/dana-00000001.jsonl"
    done = waymarks("--home", str(home), "--json", "team", "status", cwd=project)
    data = json.loads(done.stdout)
    assert data["unmerged"] == [{"path": path, "keep": f"git checkout --ours -- {path}"}]
    # the file as it stands (this side's) is what is read
    assert {i["text"] for i in data["items"]} == {"Run the migrations check",
                                                 "Review every schema change"}
    text = waymarks("--home", str(home), "team", "status", cwd=project).stdout
    assert f"{path}: unmerged" in text and f"git checkout --ours -- {path}" in text

    _git(project, "checkout", "--ours", "--", path)
    _git(project, "add", path)
    _git(project, "commit", "-qm", "merge feat")
    done = waymarks("--home", str(home), "--json", "team", "status", cwd=project)
    assert json.loads(done.stdout)["unmerged"] == []


def test_a_merge_conflicts_markers_committed_in_a_team_file_are_named(project: Path,
                                                                      home: Path) -> None:
    """A merge without the ledger's ``.gitattributes`` (deleted, or a file made before it)
    writes git's markers into the file, and a hurried ``git add`` commits them: the file
    was "tampered (line 1: not a waymarks-team-v1 entry)", sending the person looking for
    an attacker; the detail names the marker and the way out."""
    team.forget_process_state()
    _git(project, "init", "-q")
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    directory = project / ".waymarks" / "team"
    directory.mkdir(parents=True)
    ours, theirs = Writer(directory, "dana-00000001", "Dana"), None
    first = ours.line("Run the migrations check")
    theirs = copy.copy(ours)
    mine, other = ours.line("Review every schema change"), theirs.line("Deploy on Tuesdays")
    ours.path.write_bytes(first + b"<<<<<<< HEAD\n" + mine + b"=======\n" + other
                          + b">>>>>>> feat\n")
    data = json.loads(waymarks("--home", str(home), "--json", "team", "status",
                               cwd=project).stdout)
    [source] = data["sources"]
    assert source["status"] == "tampered"
    assert source["detail"].startswith("line 2: a merge conflict's marker"), source
    assert "Team memory" in source["detail"]


def test_init_in_a_repository_git_refuses_for_its_owner_names_safe_directory(
        project: Path, home: Path) -> None:
    """A clone another user owns (a shared checkout, a container's volume): git refuses
    it (``detected dubious ownership``) and `team init` said it was no repository, "run
    `git init` first", which fixes nothing. The refusal names git's reason and
    ``safe.directory``; nothing is created."""
    team.forget_process_state()
    _git(project, "init", "-q")
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    done = waymarks("--home", str(home), "--json", "team", "init", cwd=project,
                    env={"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})
    refused = json.loads(done.stdout)
    assert (done.returncode, refused["code"]) == (2, "git_refused"), refused
    assert "git init" not in refused["message"]
    assert f"git config --global --add safe.directory {project}" in refused["message"]
    assert not (project / ".waymarks").exists()


def test_a_first_share_where_git_cannot_name_the_person_makes_no_contributor_id(
        project: Path, home: Path) -> None:
    """This home's contributor ID is made once, at its first write, from `git config
    user.name`: in a checkout git refuses for its owner, or with no git to run, the first
    share made ``contributor-…`` for good (its file, its author, in every repository this
    home shares to), and said "Commit and push it", which that git cannot. Refused as
    `team init` is, nothing made; once git answers, the ID is the person's."""
    team.forget_process_state()
    _git(project, "init", "-q")
    _git(project, "config", "user.name", "Dana")
    (project / ".waymarks" / "team").mkdir(parents=True)  # as a clone brings it
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    pin = json.loads(waymarks("--home", str(home), "--json", "pin", "--scope", "project",
                              "--", "Run the migrations check", cwd=project).stdout)["id"]
    for env, code in (({"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}, "git_refused"),
                      ({"PATH": str(project / "nowhere")}, "git_missing")):
        done = waymarks("--home", str(home), "--json", "team", "share", pin, "--yes",
                        cwd=project, env=env)
        assert (done.returncode, json.loads(done.stdout)["code"]) == (2, code), done.stdout
        assert not (home / "team" / "contributor.json").exists()
        assert list((project / ".waymarks" / "team").iterdir()) == []
    shared = json.loads(waymarks("--home", str(home), "--json", "team", "share", pin,
                                 "--yes", cwd=project).stdout)
    assert shared["contributor"].startswith("dana-"), shared


def test_team_status_says_why_no_item_shows_its_commit(project: Path, home: Path) -> None:
    """Committed items showed as "uncommitted", every one, with no word of why, when git
    refuses the checkout for its owner or cannot be run: `team status` says so, with
    the fix, under ``git`` in --json; with git working it says nothing."""
    from tests.team.test_team_source import Writer

    team.forget_process_state()
    _git(project, "init", "-q")
    _git(project, "config", "user.name", "Dana")
    _git(project, "config", "user.email", "dana@example.com")
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    (project / ".waymarks" / "team").mkdir(parents=True)
    Writer(project / ".waymarks" / "team", "ann-00000001", "Ann").add("Use tabs")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "share")

    def status(env: dict[str, str] | None = None) -> tuple[dict, str]:
        team.forget_process_state()
        data = json.loads(waymarks("--home", str(home), "--json", "team", "status",
                                   cwd=project, env=env).stdout)
        text = waymarks("--home", str(home), "team", "status", cwd=project, env=env).stdout
        return data, text

    data, _text = status()
    assert data["git"] is None and data["items"][0]["commit"] is not None
    data, text = status({"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})
    assert f"git config --global --add safe.directory {project}" in data["git"]
    assert data["git"] in text
    data, text = status({"PATH": str(project / "nowhere")})
    assert "git cannot be run here" in data["git"] and data["git"] in text


def test_a_later_share_without_git_keeps_the_author_git_names(project: Path,
                                                             home: Path) -> None:
    """With no git to run, a share after the first wrote the contributor ID as its author
    ("dana-…" under items "Dana" wrote before, for everyone) and said "Commit and push
    it": refused, ``git_missing``, nothing appended."""
    team.forget_process_state()
    _git(project, "init", "-q")
    _git(project, "config", "user.name", "Dana")
    (project / ".waymarks" / "team").mkdir(parents=True)
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    pins = [json.loads(waymarks("--home", str(home), "--json", "pin", "--scope", "project",
                                "--", text, cwd=project).stdout)["id"]
            for text in ("Run the migrations check", "Use tabs")]
    first = json.loads(waymarks("--home", str(home), "--json", "team", "share", pins[0],
                                "--yes", cwd=project).stdout)
    [own] = (project / ".waymarks" / "team").iterdir()
    before = own.read_bytes()
    assert json.loads(before)["author"] == "Dana", first
    done = waymarks("--home", str(home), "--json", "team", "share", pins[1], "--yes",
                    cwd=project, env={"PATH": str(project / "nowhere")})
    assert (done.returncode, json.loads(done.stdout)["code"]) == (2, "git_missing")
    assert own.read_bytes() == before


def test_the_safe_directory_fix_team_status_names_shows_the_commits_at_once(
        project: Path, home: Path, tmp_path: Path) -> None:
    """A blame git refused is kept for a while (each prompt's hook ran two failing blames
    a file), and `team status` names the fix, the ``safe.directory`` line. Run, it changed
    nothing for up to five minutes: every item still showed "uncommitted", now with no
    word of why (git answered). The refusal is kept only while the git configuration that
    can name ``safe.directory`` is unchanged."""
    import shlex

    team.forget_process_state()
    config = tmp_path / "gitconfig"
    config.write_bytes((Path(__file__).parents[1] / "gitconfig").read_bytes())
    env = {"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1", "GIT_CONFIG_GLOBAL": str(config)}
    _git(project, "init", "-q")
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    (project / ".waymarks" / "team").mkdir(parents=True)
    Writer(project / ".waymarks" / "team", "ann-00000001", "Ann").add("Use tabs")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "share")
    commit = subprocess.run(["git", "-C", str(project), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()

    def status() -> dict:
        team.forget_process_state()  # a new process: the refusal is read from the home
        team_git._BLAME.clear()
        team_git._LOADED.clear()
        return json.loads(waymarks("--home", str(home), "--json", "team", "status",
                                   cwd=project, env=env).stdout)

    refused = status()
    assert refused["items"][0]["commit"] is None
    fix = refused["git"].split("`")[1]
    assert fix.startswith("git config --global --add safe.directory "), fix
    subprocess.run(shlex.split(fix), check=True, capture_output=True,
                   env={**os.environ, **env})
    fixed = status()
    assert fixed["git"] is None
    assert fixed["items"][0]["commit"] == commit[:12], fixed["items"]


def test_a_write_while_the_own_file_is_unmerged_is_refused(project: Path, home: Path
                                                           ) -> None:
    """One home's file written on two branches conflicts when they merge; while that merge
    is unresolved a share was appended to the file as it stands and reported "Shared …
    Commit and push it", and the step `team status` then names, `git checkout --ours`,
    put back the index's copy without it: the share lost, the file `truncated`, every own
    item withdrawn. Refused before asking (``own_file_unmerged``, with the way to finish
    the merge), nothing appended; once the merge is committed the share goes in."""
    team.forget_process_state()
    _git(project, "init", "-q", "-b", "main")
    _git(project, "config", "user.name", "Dana")
    _git(project, "config", "user.email", "dana@example.com")

    def run(*args: str) -> dict:
        done = waymarks("--home", str(home), "--json", *args, cwd=project)
        return {"rc": done.returncode, **json.loads(done.stdout)}

    run("trust", ".")
    run("team", "init")
    pins = [run("pin", "--scope", "project", "--", f"Rule {n}")["id"] for n in range(4)]
    mine = run("team", "share", pins[0], "--yes")["contributor"]
    path = f".waymarks/team/{mine}.jsonl"
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "share")
    _git(project, "checkout", "-qb", "feat")
    run("team", "share", pins[1], "--yes")
    _git(project, "commit", "-qam", "share on feat")
    _git(project, "checkout", "-q", "main")
    assert run("team", "accept", mine)["rc"] == 0
    run("team", "share", pins[2], "--yes")
    _git(project, "commit", "-qam", "share on main")
    _git(project, "merge", "-q", "feat", check=False)
    before = (project / path).read_bytes()

    for rehearsed in ((), ("--yes",)):
        refused = run("team", "share", pins[3], *rehearsed)
        assert (refused["rc"], refused["code"]) == (2, "own_file_unmerged"), refused
        assert f"git checkout --ours -- {path}" in refused["message"]
        assert (project / path).read_bytes() == before
    _git(project, "checkout", "--ours", "--", path)
    _git(project, "add", path)
    _git(project, "commit", "-qm", "merge feat")
    assert run("team", "share", pins[3], "--yes")["outcome"] == "committed"


def test_a_git_that_does_not_answer_is_named_and_makes_no_contributor_id(
        project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git that hangs (a wrapper waiting on a network filesystem or a credential prompt,
    say) is given up on after a timeout, and its silence was read as answers: `team init`
    said the checkout was no repository, "run `git init` first", and a home's first share
    made its contributor ID without `user.name`, `contributor-…` for good, the author
    that ID (what docs/team.md says a missing git no longer does), 16 timeouts later. Each is
    refused as a missing git is, ``git_timeout``, nothing made; once git answers, the
    share goes in under the person's name."""
    team.forget_process_state()
    _git(project, "init", "-q")
    _git(project, "config", "user.name", "Dana")
    directory = project / ".waymarks" / "team"
    directory.mkdir(parents=True)  # as a clone brings it
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    pin = json.loads(waymarks("--home", str(home), "--json", "pin", "--scope", "project",
                              "--", "Run the migrations check", cwd=project).stdout)["id"]
    hanging = tmp_path / "hanging"
    hanging.mkdir()
    asked = tmp_path / "asked"
    (hanging / "git").write_text(f"#!/bin/sh\necho \"$*\" >> '{asked}'\nexec sleep 30\n")
    (hanging / "git").chmod(0o755)
    monkeypatch.setattr(team_git, "_TIMEOUT_S", 0.5)
    monkeypatch.setattr(team_git, "_HUNG", [])  # (this test's timeout, no later test's)
    env = {"PATH": f"{hanging}{os.pathsep}{os.environ['PATH']}"}
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    _git(fresh, "init", "-q")
    assert waymarks("--home", str(home), "trust", ".", cwd=fresh).returncode == 0
    for cwd, args in ((project, ("team", "share", pin, "--yes")), (fresh, ("team", "init"))):
        done = waymarks("--home", str(home), "--json", *args, cwd=cwd, env=env)
        refused = json.loads(done.stdout)
        assert (done.returncode, refused["code"]) == (2, "git_timeout"), refused
        assert "git init" not in refused["message"]
    assert not (home / "team" / "contributor.json").exists()
    assert list(directory.iterdir()) == [] and not (fresh / ".waymarks").exists()
    shared = json.loads(waymarks("--home", str(home), "--json", "team", "share", pin,
                                 "--yes", cwd=project).stdout)
    assert shared["contributor"].startswith("dana-"), shared
    # `team status` says why, and what the items' commits then show
    team.forget_process_state()
    asked.unlink()
    data = json.loads(waymarks("--home", str(home), "--json", "team", "status",
                               cwd=project, env=env).stdout)
    assert [i["commit"] for i in data["items"]] == [team_git.TIMED_OUT]
    # each question waited the timeout: whether this is a working tree is asked once
    assert asked.read_text().count("rev-parse") == 1, asked.read_text()
    assert "did not answer" in data["git"] and "as unknown" in data["git"], data["git"]


def test_a_git_hanging_on_user_name_makes_no_nameless_contributor_id(
        project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git that answers `rev-parse` but hangs on `git config user.name` (a wrapper
    reading a name from a slow directory service, say): its silence was read as no
    name, so a home's first `team init` made its ID `contributor-…` for good, and a
    share wrote the contributor ID as its author. Both are refused ``git_timeout``,
    nothing made or appended; once git answers, the ID and author carry the name."""
    team.forget_process_state()
    _git(project, "init", "-q")
    _git(project, "config", "user.name", "Dana")
    assert waymarks("--home", str(home), "trust", ".", cwd=project).returncode == 0
    real = shutil.which("git")
    hanging = tmp_path / "hanging"
    hanging.mkdir()
    (hanging / "git").write_text(
        "#!/bin/sh\ncase \"$*\" in *'config user.name'*) exec sleep 30;; esac\n"
        f"exec '{real}' \"$@\"\n")
    (hanging / "git").chmod(0o755)
    monkeypatch.setattr(team_git, "_TIMEOUT_S", 0.5)
    env = {"PATH": f"{hanging}{os.pathsep}{os.environ['PATH']}"}
    done = waymarks("--home", str(home), "--json", "team", "init", cwd=project, env=env)
    refused = json.loads(done.stdout)
    assert (done.returncode, refused["code"]) == (2, "git_timeout"), refused
    assert "user.name" in refused["message"]
    assert not (home / "team" / "contributor.json").exists()
    made = json.loads(waymarks("--home", str(home), "--json", "team", "init",
                               cwd=project).stdout)
    assert made["contributor"].startswith("dana-"), made
    pin = json.loads(waymarks("--home", str(home), "--json", "pin", "--scope", "project",
                              "--", "Run the migrations check", cwd=project).stdout)["id"]
    done = waymarks("--home", str(home), "--json", "team", "share", pin, "--yes",
                    cwd=project, env=env)
    refused = json.loads(done.stdout)
    assert (done.returncode, refused["code"]) == (2, "git_timeout"), refused
    assert not list((project / ".waymarks" / "team").glob("*.jsonl"))
