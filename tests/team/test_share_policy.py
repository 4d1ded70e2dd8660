"""What may never reach the team ledger: sensitive and local-only items, marked text and
credentials. Through the real entry point; every refusal must leave the ledger's bytes as
they were and must not echo the refused text."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from waymarks.cli.main import main
from waymarks.core.egress import Egress
from waymarks.core.team_sharing import share_problem
from waymarks.service.app import Waymarks

SECRET = "ghp_" + "Abcdefghijklmnopqrstuvwxyz0123456789AB"


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "config", "user.name", "Dana"], check=True)
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)

    def run(*args: str, expect: int = 0) -> dict:
        code = main(["--json", *args])
        captured = capsys.readouterr()
        assert code == expect, captured.out + captured.err
        run.seen += captured.out + captured.err  # type: ignore[attr-defined]
        return json.loads(captured.out)

    run.seen = ""  # type: ignore[attr-defined]
    return run


def ledger_bytes(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (project / ".waymarks" / "team").glob("*.jsonl")}


def test_sensitive_local_only_marked_and_credentials_are_never_shared(cli, project: Path
                                                                      ) -> None:  # type: ignore[no-untyped-def]
    cli("trust", ".")
    cli("team", "init")
    shared = cli("pin", "--scope", "project", "--", "Use the shared staging cluster")["id"]
    first = cli("team", "share", shared, "--yes")
    before = ledger_bytes(project)
    assert len(before) == 1

    cases = [
        (["pin", "--scope", "project", "--classification", "sensitive", "--",
          "Customer Zed pays late"], "classification"),
        (["pin", "--scope", "project", "--classification", "local-only", "--",
          "My home directory layout is odd"], "classification"),
        (["memory", "add", "--scope", "project", "--classification", "sensitive", "--",
          "The audit finding is unresolved"], "classification"),
        (["pin", "--scope", "project", "--",
          "Deploy via [ds4:sensitive]the back door host[/ds4:sensitive]"], "classification"),
        (["pin", "--scope", "project", "--",
          "Release notes [ds4:internal]draft in the wiki[/ds4:internal]"], "marked"),
    ]
    for args, code in cases:
        local = cli(*args)["id"]
        refused = cli("team", "share", local, "--yes", expect=2)
        assert refused["code"] == code, args
        assert ledger_bytes(project) == before
    # a credential can only arrive as replacement text (local writes refuse it already)
    refused = cli("team", "supersede", first["id"][:12], "--yes", "--",
                  f"the token is {SECRET}", expect=2)
    assert refused["code"] == "credential"
    assert ledger_bytes(project) == before
    # no refusal echoed what it refused: not the credential, not the restricted text
    refusals = [line for line in cli.seen.splitlines() if '"rejected"' in line]
    assert len(refusals) == len(cases) + 1
    assert not any(text in r for r in refusals for text in (
        SECRET, "back door", "pays late", "draft in the wiki", "home directory"))


@pytest.mark.slow
def test_a_share_needs_confirmation_trust_and_an_initialized_ledger(cli, project: Path
                                                                   ) -> None:  # type: ignore[no-untyped-def]
    cli("trust", ".")
    local = cli("pin", "--scope", "project", "--", "Prefer small commits")["id"]
    cli("untrust", ".")
    assert cli("team", "share", local, "--yes", expect=2)["code"] == "untrusted"
    cli("trust", ".")
    assert cli("team", "share", local, "--yes", expect=2)["code"] == "not_initialized"
    cli("team", "init")
    # standard input is not a terminal: no prompt, a refusal that names --yes
    asked = cli("team", "share", local, expect=2)
    assert asked["code"] == "confirmation_required" and "--yes" in asked["message"]
    assert ledger_bytes(project) == {}
    session = cli("pin", "--", "Only for this session")["id"]
    assert cli("team", "share", session, "--yes", expect=2)["code"] == "not_shareable"
    assert cli("team", "share", local, "--yes")["outcome"] == "committed"
    assert cli("team", "share", local, "--yes")["outcome"] == "duplicate"
    assert len(ledger_bytes(project)) == 1
    # an untrusted project reads no team memory at all
    cli("untrust", ".")
    status = cli("team", "status")
    assert status["trusted"] is False and status["items"] == []


def test_a_same_key_claim_is_refused_at_share_time(cli) -> None:  # type: ignore[no-untyped-def]
    cli("trust", ".")
    cli("team", "init")
    first = cli("memory", "add", "--scope", "project", "--key", "db-port", "--",
                "The database port is 5433")["id"]
    kept = cli("team", "share", first, "--yes")["id"]
    cli("memory", "supersede", first, "--", "The database port is 5434")
    newer = cli("memory", "list")["items"][-1]["id"]
    refused = cli("team", "share", newer, "--yes", expect=2)
    assert refused["code"] == "conflict"
    assert f"waymarks team supersede {kept[:12]}" in refused["message"]


@pytest.mark.parametrize("level", ["sensitive", "local-only"])
def test_no_policy_can_open_the_team_ledger_to_restricted_levels(level: str) -> None:
    # even an egress that admits everything keeps the team ledger to normal and internal
    wide = Egress("team", frozenset({"normal", "internal", "sensitive", "local-only"}))
    problem = share_problem(wide, "anything at all", None, level)
    assert problem is not None and problem[0] == "classification"
    assert "anything at all" not in problem[1]
    assert share_problem(wide, "fine text", None, "internal") is None
    assert share_problem(wide, f"key {SECRET}", None, None) == (
        "credential", "the text holds a credential-like value; share a version without it")
    assert share_problem(wide, "claim", SECRET, None) is not None


def test_an_unshare_reason_is_checked_like_shared_text(cli, project: Path
                                                      ) -> None:  # type: ignore[no-untyped-def]
    # the reason is written to the shared ledger and shown by `team status`: a credential
    # or a marked span in it must be refused as in a shared item, leaving the bytes as they were
    cli("trust", ".")
    cli("team", "init")
    local = cli("pin", "--scope", "project", "--", "Use the shared staging cluster")["id"]
    shared = cli("team", "share", local, "--yes")["id"]
    before = ledger_bytes(project)
    refused = cli("team", "unshare", shared[:12], "--yes", "--", "rotated", SECRET, expect=2)
    assert refused["code"] == "credential" and SECRET not in cli.seen
    refused = cli("team", "unshare", shared[:12], "--yes", "--",
                  "see [ds4:sensitive]the incident[/ds4:sensitive]", expect=2)
    assert refused["code"] in ("classification", "marked")
    assert ledger_bytes(project) == before
    assert cli("team", "unshare", shared[:12], "--yes", "--", "moved to prod")["outcome"] == (
        "committed")
    assert ledger_bytes(project) != before



def test_commits_follow_a_git_commit_and_a_new_process_reuses_them_without_git(
        cli, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    # provenance names the commit that added a line: an unchanged file after `git commit`
    # must show it (the cache is keyed by HEAD), and a hook (a new process each prompt)
    # reads it from the home instead of running `git blame` again
    cli("trust", ".")
    cli("team", "init")
    local = cli("pin", "--scope", "project", "--", "Use the shared staging cluster")["id"]
    cli("team", "share", local, "--yes")
    assert [i["commit"] for i in cli("team", "status")["items"]] == [None]
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(project), "-c", "user.email=d@example.com", "commit",
                    "-q", "-m", "share"], check=True)
    head = subprocess.run(["git", "-C", str(project), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    assert [i["commit"] for i in cli("team", "status")["items"]] == [head[:12]]
    # a new process with no git on its PATH: the commit still comes from the home's cache
    import os
    import sys
    env = {k: v for k, v in os.environ.items() if k != "PATH"}
    env["PATH"] = str(Path(sys.executable).parent)  # python only: `git` is not found
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "team",
                           "status"], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert [i["commit"] for i in json.loads(done.stdout)["items"]] == [head[:12]]


def test_own_shares_undone_with_git_reset_can_be_accepted_not_a_dead_end(
        cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    git = ["git", "-C", str(project), "-c", "user.email=d@example.com"]
    cli("trust", ".")
    cli("team", "init")
    first = cli("pin", "--scope", "project", "--", "Use the shared staging cluster")["id"]
    cli("team", "share", first, "--yes")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one share"], check=True)
    second = cli("pin", "--scope", "project", "--", "Run the migrations check")["id"]
    cli("team", "share", second, "--yes")
    subprocess.run([*git, "reset", "-q", "--hard", "HEAD"], check=True)  # undo the second
    third = cli("pin", "--scope", "project", "--", "Prefer small commits")["id"]
    refused = cli("team", "share", third, "--yes", expect=2)
    me = next((project / ".waymarks" / "team").glob("*.jsonl")).stem
    assert refused["code"] == "own_file_damaged"
    assert f"waymarks team accept {me}" in refused["message"]
    assert cli("team", "accept", me)["changed"] is True
    assert cli("team", "accept", me)["changed"] is False
    assert cli("team", "share", third, "--yes")["outcome"] == "committed"
    texts = [i["text"] for i in cli("team", "status")["items"]]
    assert texts == ["Use the shared staging cluster", "Prefer small commits"]
    # a chain that does not verify is never accepted
    path = project / ".waymarks" / "team" / f"{me}.jsonl"
    path.write_bytes(path.read_bytes().replace(b"small", b"large"))
    assert cli("team", "accept", me, expect=2)["code"] == "not_acceptable"
    assert cli("team", "accept", "nobody-00000000", expect=2)["code"] == "not_found"


def _race_once(monkeypatch: pytest.MonkeyPatch, home: Path, project: Path,
               other: Callable[[Waymarks], object]) -> list[object]:
    """Run ``other`` as another process of this person would: after this command checked
    the team ledger and before it appends (the window two terminals share)."""
    from waymarks.service import team_write

    real, seen = team_write.append_entry, []

    def racing(path: Path, contributor: str, make: Callable[[int, str], bytes],
               after: Callable[[Any], None] | None = None) -> object:
        if not seen:
            seen.append("raced")
            app = Waymarks(home, cwd=str(project))
            try:
                seen.append(other(app))
            finally:
                app.close()
        return real(path, contributor, make, after)

    monkeypatch.setattr(team_write, "append_entry", racing)
    return seen


def test_one_item_shared_from_two_terminals_at_once_is_published_once(
        cli, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Both commands found the item unshared, then both appended it: the team held it
    twice. What was checked must still hold under the append's lock."""
    from waymarks.service import team_write

    cli("trust", ".")
    cli("team", "init")
    local = cli("memory", "add", "--scope", "project", "--", "Deploys go to staging first")["id"]
    seen = _race_once(monkeypatch, home, project,
                      lambda app: team_write.share(app, local).outcome)
    second = cli("team", "share", local, "--yes")
    assert seen == ["raced", "committed"]
    assert second["outcome"] == "duplicate", second
    [lines] = [data.splitlines() for data in ledger_bytes(project).values()]
    assert len(lines) == 1 and second["id"] == json.loads(lines[0])["item"]["id"]
    assert len(cli("team", "status")["items"]) == 1


def test_one_team_item_superseded_from_two_terminals_at_once_is_replaced_once(
        cli, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Both supersedes found the item active: two replacements of one item were appended,
    and both stood. The later one is refused, with nothing appended."""
    from waymarks.service import team_write

    cli("trust", ".")
    cli("team", "init")
    local = cli("memory", "add", "--scope", "project", "--", "The port is 5433")["id"]
    shared = cli("team", "share", local, "--yes")["id"]
    seen = _race_once(monkeypatch, home, project,
                      lambda app: team_write.supersede(app, shared, "The port is 5434").outcome)
    before = ledger_bytes(project)
    refused = cli("team", "supersede", shared, "--yes", "--", "The port is 5435", expect=2)
    assert seen == ["raced", "committed"]
    assert refused["code"] == "inactive", refused
    after = ledger_bytes(project)
    assert [len(v.splitlines()) for v in after.values()] == \
        [len(v.splitlines()) + 1 for v in before.values()]  # the other terminal's only
    items = cli("team", "status")["items"]
    assert [i["text"] for i in items if i["status"] == "active"] == ["The port is 5434"], items


def test_every_refusal_comes_before_the_question(cli) -> None:  # type: ignore[no-untyped-def]
    """``team unshare`` and ``supersede`` asked first and checked after (an unknown item,
    a credential in the new text), and ``share`` checked a conflicting claim only after
    the yes: a person confirmed a write that was then refused. Without ``--yes`` (no
    terminal here) the answer is the refusal itself, not the question."""
    cli("trust", ".")
    cli("team", "init")
    first = cli("memory", "add", "--scope", "project", "--key", "db-port", "--",
                "The database port is 5433")["id"]
    kept = cli("team", "share", first, "--yes")["id"]
    assert cli("team", "unshare", "ffffffff", expect=2)["code"] == "not_found"
    assert cli("team", "supersede", kept, "--", f"The key is {SECRET}",
               expect=2)["code"] == "credential"
    cli("memory", "supersede", first, "--", "The database port is 5434")
    newer = cli("memory", "list")["items"][-1]["id"]
    assert cli("team", "share", newer, expect=2)["code"] == "conflict"
    assert cli("team", "unshare", kept, expect=2)["code"] == "confirmation_required"


def test_a_team_item_superseded_by_its_own_text_appends_nothing(cli, project: Path
                                                                 ) -> None:  # type: ignore[no-untyped-def]
    """``team supersede ID -- <its text>`` appended a replacement that changed nothing to
    the shared ledger (and asked to confirm it, without ``--yes``), where ``memory
    supersede`` says the memory exists; ``team share`` of an item shared already asked
    too. Both answer the duplicate, ask nothing and append nothing."""
    cli("trust", ".")
    cli("team", "init")
    local = cli("memory", "add", "--scope", "project", "--key", "db-port", "--",
                "The database port is 5433")["id"]
    shared = cli("team", "share", local, "--yes")["id"]
    before = ledger_bytes(project)
    for args in (["team", "supersede", shared[:12], "--", "The database port is 5433"],
                 ["team", "supersede", shared, "--yes", "--", " The  database port is 5433 "],
                 ["team", "share", local]):
        answer = cli(*args)
        assert (answer["outcome"], answer["id"]) == ("duplicate", shared), (args, answer)
        assert ledger_bytes(project) == before, args
    items = cli("team", "status")["items"]
    assert [(i["id"], i["status"]) for i in items] == [(shared, "active")], items


def test_superseding_the_kept_item_by_its_own_text_settles_its_conflict(
        cli, home: Path, project: Path, tmp_path: Path,  # type: ignore[no-untyped-def]
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``team status`` says to settle a conflict with ``team supersede <kept> -- TEXT``;
    the kept item's own text is how one says "the kept one is right". Since an item's
    own text answered "duplicate", that left the conflict open for good."""
    cli("trust", ".")
    cli("team", "init")
    mine = cli("memory", "add", "--scope", "project", "--key", "deploy-port", "--",
               "The deploy port is 5432")["id"]
    kept = cli("team", "share", mine, "--yes")["id"]
    # a teammate shared another port under the key before either pulled
    other_home, other = tmp_path / "other-home", tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    monkeypatch.setenv("WAYMARKS_HOME", str(other_home))
    monkeypatch.chdir(other)
    cli("trust", ".")
    cli("team", "init")
    theirs = cli("memory", "add", "--scope", "project", "--key", "deploy-port", "--",
                 "The deploy port is 5433")["id"]
    lost = cli("team", "share", theirs, "--yes")["id"]
    for path in (other / ".waymarks" / "team").glob("*.jsonl"):
        (project / ".waymarks" / "team" / path.name).write_bytes(path.read_bytes())
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    [conflict] = cli("team", "status")["conflicts"]
    assert (conflict["kept"], conflict["invalid"]) == (kept, lost)
    settled = cli("team", "supersede", kept[:12], "--yes", "--", "The deploy port is 5432")
    assert settled["outcome"] == "committed" and settled["previousId"] == kept
    status = cli("team", "status")
    assert status["conflicts"] == []
    # settled: the same text again is a duplicate, nothing appended
    before = ledger_bytes(project)
    again = cli("team", "supersede", settled["id"][:12], "--yes", "--",
                "The deploy port is 5432")
    assert again["outcome"] == "duplicate" and ledger_bytes(project) == before


def test_a_teammates_key_holding_a_credential_is_named_as_the_key_with_the_way_out(
        cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    """A teammate's claim whose key holds a credential (a hand-written line): `team
    supersede` keeps the key, and was refused with "the text holds a credential-like
    value; share a version without it", of a text that held none; the person rewrote the
    text again and again. The refusal names the key, and the way out (unshare it, share
    anew); nothing is appended, and the key is never repeated in the answer."""
    from tests.team.test_team_source import Writer

    cli("trust", ".")
    cli("team", "init")
    item = Writer(project / ".waymarks" / "team", "bob-00000001", "Bob").add(
        "The deploy token lives in the vault", kind="memory", key=SECRET)
    before = ledger_bytes(project)
    refused = cli("team", "supersede", item, "--yes", "--",
                  "The deploy token lives in Vault under ci/deploy", expect=2)
    assert refused["code"] == "credential"
    assert "key" in refused["message"] and "text holds" not in refused["message"]
    assert SECRET.lower() not in json.dumps(refused).lower()
    assert ledger_bytes(project) == before
    # the way out names the item (it said `waymarks team unshare ID`), and it works
    [command] = re.findall(r"`(waymarks team unshare [^`]*)`", refused["message"])
    assert command == f"waymarks team unshare {item[:12]}"
    assert cli(*command.split()[1:], "--yes")["outcome"] == "committed"


@pytest.mark.parametrize("verb", ["unshare", "supersede"])
def test_a_write_on_a_teammates_item_dated_at_the_last_time_is_refused_unwritten(
        cli, project: Path, verb: str) -> None:  # type: ignore[no-untyped-def]
    """A teammate's line may be dated up to the last millisecond of the year 9999 (a
    clock gone wrong, a hand-written line); a write on its item is stamped just after it,
    past the last time a line may hold. `team unshare` of such an item ended in a
    TeamFormatError traceback after its line was appended: the person's own file then read
    `tampered` on every clone. The write is refused, said why, and nothing is appended."""
    from tests.team.test_team_source import Writer
    from waymarks.core.team import LAST_AT

    cli("trust", ".")
    cli("team", "init")
    bob = Writer(project / ".waymarks" / "team", "bob-00000001", "Bob")
    bob.at = LAST_AT - 10  # (the writer adds 10: the item is dated at LAST_AT itself)
    item = bob.add("Deploys go out on Friday nights", kind="memory", key="deploy-day")
    before = ledger_bytes(project)
    args = (("unshare", item, "not true", "--yes") if verb == "unshare" else
            ("supersede", item, "--yes", "--", "Deploys go out on Tuesday mornings"))
    refused = cli("team", *args, expect=2)
    assert refused["code"] == "undatable", refused
    assert "9999" in refused["message"] and "team exclude bob-00000001" in refused["message"]
    assert ledger_bytes(project) == before
    [source] = [s for s in cli("team", "status")["sources"]
                if s["contributor"] == "bob-00000001"]
    assert source["status"] == "available"
