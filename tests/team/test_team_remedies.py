"""What ``team status`` and team writes tell the person to do: the remedy named for each
damaged file, and the write contract's keys (each test failed before its fix)."""

from __future__ import annotations

from pathlib import Path

from tests.inprocess import waymarks
from tests.team.test_team_hostile import run
from tests.team.test_team_review import _own_file, _shared_pin, repo  # noqa: F401
from tests.team.test_team_source import Writer
from waymarks.core.team import make_line
from waymarks.service import team


def _status_text(home: Path, repo: Path) -> str:  # noqa: F811
    team.forget_process_state()
    done = waymarks("--home", str(home), "team", "status", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_status_names_team_accept_for_a_teammates_shorter_history(
        repo: Path, home: Path) -> None:  # noqa: F811
    """A teammate's file ``truncated`` (their agreed rewrite, a branch switch) cannot be
    "restored from git" when it is what git has: the way out, ``team accept``, was never
    named, though README tells a teammate to run it."""
    run(home, repo, "team", "init")
    bob = Writer(repo / ".waymarks" / "team", "bob-00000001", "Bob")
    bob.add("Tag releases by date")
    whole = bob.path.read_bytes()
    bob.add("Squash before merging")
    run(home, repo, "team", "status")  # both entries seen
    bob.path.write_bytes(whole)
    text = _status_text(home, repo)
    assert "truncated" in text and "waymarks team accept bob-00000001" in text, text
    assert "restored from git" in text


def test_status_names_team_accept_for_ones_own_foreign_file(repo: Path,  # noqa: F811
                                                            home: Path) -> None:
    _shared_pin(home, repo)
    own = _own_file(home, repo)
    line, _ = make_line(contributor=own.stem, seq=2,
                        prev=own.read_text().splitlines()[-1].split('"hash":"')[1][:64],
                        entry_id="e-other", at=2, author="Dana", op="add", kind="pin",
                        item={"id": "f0f0f0f0f0f0", "text": "Deploy on Fridays"})
    with own.open("ab") as handle:
        handle.write(line)
    text = _status_text(home, repo)
    assert "foreign" in text and f"waymarks team accept {own.stem}" in text, text


def test_status_does_not_offer_accept_for_a_broken_chain(repo: Path,  # noqa: F811
                                                         home: Path) -> None:
    """``team accept`` refuses a chain that does not verify: only restoring is named."""
    run(home, repo, "team", "init")
    bob = Writer(repo / ".waymarks" / "team", "bob-00000001", "Bob")
    bob.add("Tag releases by date")
    bob.add("Squash before merging")
    lines = bob.path.read_bytes().splitlines(keepends=True)
    bob.path.write_bytes(lines[1] + lines[0])
    text = _status_text(home, repo)
    assert "tampered" in text and "restored from git" in text, text
    assert "team accept" not in text


def test_the_team_folders_readme_names_team_accept(repo: Path, home: Path) -> None:  # noqa: F811
    """The README ``team init`` writes for teammates named only "restored from git" for a
    file reported damaged, though a branch switch or an agreed rewrite is settled by
    ``team accept`` (which ``team status`` offers), never by restoring."""
    run(home, repo, "team", "init")
    text = " ".join((repo / ".waymarks" / "team" / "README.md").read_text().split())
    assert "restored from git" in text and "waymarks team accept CONTRIBUTOR" in text, text


#: the keys README promises every write's and every failure's --json
WRITE_KEYS = {"outcome", "id", "code", "conflicts", "notices"}


def test_team_writes_answer_in_the_write_contract(repo: Path, home: Path) -> None:  # noqa: F811
    """``team share --json`` lacked ``code``, ``conflicts`` and ``notices``; ``team
    accept``, ``exclude`` and ``include`` had no ``outcome``."""
    run(home, repo, "team", "init")
    pin = run(home, repo, "pin", "--scope", "project", "--", "Tag releases by date")["id"]
    shared = run(home, repo, "team", "share", pin, "--yes")
    assert shared.keys() >= WRITE_KEYS and shared["outcome"] == "committed", shared
    assert (shared["code"], shared["conflicts"], shared["notices"]) == (None, [], [])
    again = run(home, repo, "team", "share", pin, "--yes")
    assert again.keys() >= WRITE_KEYS and again["outcome"] == "duplicate", again
    bob = Writer(repo / ".waymarks" / "team", "bob-00000001", "Bob")
    bob.add("Squash before merging")
    whole = bob.path.read_bytes()
    bob.add("Run the linter")
    run(home, repo, "team", "status")
    bob.path.write_bytes(whole)
    for argv, outcome in ((["accept", bob.contributor], "committed"),
                          (["accept", bob.contributor], "unchanged"),
                          (["exclude", bob.contributor], "committed"),
                          (["exclude", bob.contributor], "unchanged"),
                          (["include", bob.contributor], "committed")):
        done = run(home, repo, "team", *argv)
        assert done.keys() >= WRITE_KEYS and done["outcome"] == outcome, (argv, done)
        assert done["contributor"] == bob.contributor and "changed" in done, done


def test_status_in_a_new_process_names_ones_own_file_gone(repo: Path,  # noqa: F811
                                                          home: Path) -> None:
    """Two clones of a bare repository: a teammate force-pushed a history without the
    commit that added your file, and you reset to it. Your next share was refused
    ("your team file is missing … `waymarks team accept ID`"), but `team status`, a new
    process that never listed the file, said nothing of it: the file is listed
    `missing` there with the same way out, which then lets the share through."""
    _shared_pin(home, repo)
    own = _own_file(home, repo)
    me = own.stem
    own.unlink()  # (what `git reset --hard` to a history without it leaves)
    team.forget_process_state()  # (a new process: the file never listed in it)
    data = run(home, repo, "team", "status")
    rows = [s for s in data["sources"] if s["contributor"] == me]
    assert [(s["status"], s["withdrawn"]) for s in rows] == [("missing", None)], data
    assert rows[0]["path"] == f".waymarks/team/{me}.jsonl"
    text = _status_text(home, repo)
    assert f"waymarks team accept {me}" in text and "missing" in text, text
    pin = run(home, repo, "pin", "--scope", "project", "--", "Tag releases by date")["id"]
    assert run(home, repo, "team", "share", pin, "--yes",
               expect=2)["code"] == "own_file_damaged"
    run(home, repo, "team", "accept", me)
    assert not [s for s in run(home, repo, "team", "status")["sources"]
                if s["status"] != "available"]
    assert run(home, repo, "team", "share", pin, "--yes")["outcome"] == "committed"
