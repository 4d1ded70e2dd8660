"""Team memory through real git: a bare remote, three clones, three contributors.

Every step runs the real ``waymarks`` entry point in a subprocess (its own home per
clone) and real ``git``: concurrent shares pushed and pulled in different orders (a
merge, a rebase, a fast-forward), a same-key conflict, a force-push that rewrites one
contributor's file, and one that truncates another's. After each round every clone's
``team status --json`` must be the same bytes: the same items, the same conflict, the
same tampering.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # about forty subprocesses

WAYMARKS = str(Path(sys.executable).with_name("waymarks"))


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


class Clone:
    def __init__(self, root: Path, remote: Path, name: str) -> None:
        self.name = name
        self.path = root / name.lower()
        self.home = root / f"home-{name.lower()}"
        git(root, "clone", "-q", str(remote), str(self.path))
        git(self.path, "config", "user.name", name)
        git(self.path, "config", "user.email", f"{name.lower()}@example.test")
        git(self.path, "config", "pull.rebase", "false")

    def run(self, *args: str, expect: int = 0) -> dict:
        done = subprocess.run([WAYMARKS, "--home", str(self.home), "--json", *args],
                              cwd=self.path, capture_output=True, text=True, check=False)
        assert done.returncode == expect, (args, done.stdout, done.stderr)
        return json.loads(done.stdout)

    def text(self, *args: str) -> str:
        done = subprocess.run([WAYMARKS, "--home", str(self.home), *args], cwd=self.path,
                              capture_output=True, text=True, check=True)
        return done.stdout

    def status_bytes(self) -> str:
        done = subprocess.run([WAYMARKS, "--home", str(self.home), "--json", "team",
                               "status"], cwd=self.path, capture_output=True, text=True,
                              check=True)
        return done.stdout

    def share_pin(self, text: str) -> str:
        local = self.run("pin", "--scope", "project", "--", text)["id"]
        return self.run("team", "share", local, "--yes")["id"]

    def share_claim(self, key: str, text: str) -> str:
        local = self.run("memory", "add", "--scope", "project", "--key", key, "--",
                         text)["id"]
        return self.run("team", "share", local, "--yes")["id"]

    def commit(self, message: str) -> None:
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "-m", message)


def converged(clones: list[Clone]) -> dict:
    outputs = [c.status_bytes() for c in clones]
    assert outputs[0] == outputs[1] == outputs[2], "clones disagree"
    return json.loads(outputs[0])


def three_clones(tmp_path: Path) -> list[Clone]:
    """Alice, Bob and Carol's clones of one remote, each trusted, the team ledger made by
    Alice and pulled by the others."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    alice = Clone(tmp_path, remote, "Alice")
    (alice.path / "app.py").write_text("print('hi')\n")
    alice.commit("code")
    git(alice.path, "push", "-q", "-u", "origin", "main")
    bob, carol = Clone(tmp_path, remote, "Bob"), Clone(tmp_path, remote, "Carol")
    for clone in (alice, bob, carol):
        clone.run("trust", ".")
    assert alice.run("team", "init")["created"] == ["README.md", ".gitattributes"]
    alice.commit("team ledger")
    git(alice.path, "push", "-q")
    git(bob.path, "pull", "-q")
    git(carol.path, "pull", "-q")
    return [alice, bob, carol]


def test_three_clones_converge_on_items_conflicts_and_tampering(tmp_path: Path) -> None:
    clones = three_clones(tmp_path)
    alice, bob, carol = clones

    # concurrent shares, nobody has pulled the others' yet; Alice and Bob disagree on a key
    migrations = alice.share_pin("Run the migrations check before every commit")
    staging = alice.share_claim("deploy-target", "Deploys go to staging first")
    production = bob.share_claim("deploy-target", "Deploys go straight to production")
    lint = carol.share_pin("Run ruff before pushing")
    for clone in clones:
        clone.commit(f"{clone.name}'s team memory")
    git(alice.path, "push", "-q")                         # first
    git(bob.path, "pull", "-q", "--no-rebase")            # merges Alice's
    git(bob.path, "push", "-q")
    git(carol.path, "pull", "-q", "--rebase")             # rebases onto both
    git(carol.path, "push", "-q")
    git(alice.path, "pull", "-q")
    git(bob.path, "pull", "-q")

    status = converged(clones)
    by_id = {item["id"]: item for item in status["items"]}
    assert {by_id[migrations]["author"], by_id[lint]["author"]} == {"Alice", "Carol"}
    assert all(item["commit"] for item in status["items"]), "every entry is committed"
    # the DS4 rule: the earlier claim stays, the later conflicting one is invalid
    assert by_id[staging]["status"] == "active"
    assert by_id[production]["status"] == "invalid"
    assert by_id[production]["conflictsWith"] == [staging]
    assert status["conflicts"] == [{
        "rule": "key", "key": "deploy-target", "kept": staging, "keptAuthor": "Alice",
        "keptContributor": by_id[staging]["contributor"], "invalid": production,
        "invalidAuthor": "Bob", "invalidContributor": by_id[production]["contributor"],
        "resolve": f"waymarks team supersede {staging[:12]} -- TEXT"}]
    assert {s["status"] for s in status["sources"]} == {"available"}
    shown = bob.text("team", "status")
    assert (f"conflict on key deploy-target: kept {staging[:12]} (Alice), invalid "
            f"{production[:12]} (Bob); settle with `waymarks team supersede {staging[:12]} "
            "-- TEXT`") in shown

    # Carol settles the conflict as the status says; everyone sees it settled
    settled = carol.run("team", "supersede", staging[:12], "--yes", "--",
                        "Deploys go to staging, then production")
    assert settled["previousId"] == staging
    carol.commit("settle deploy target")
    git(carol.path, "push", "-q")
    good = git(carol.path, "rev-parse", "HEAD").strip()
    git(alice.path, "pull", "-q")
    git(bob.path, "pull", "-q")
    status = converged(clones)
    assert status["conflicts"] == []
    assert {i["id"]: i["status"] for i in status["items"]}[staging] == "superseded"

    # a force-push rewrites Bob's file (an edited line): every clone reports it and
    # withdraws Bob's items
    bob_file = next(alice.path.glob(".waymarks/team/bob-*.jsonl"))
    bob_file.write_text(bob_file.read_text().replace("straight to production",
                                                     "straight to prod, no review"))
    git(alice.path, "commit", "-q", "-a", "--amend", "--no-edit")
    git(alice.path, "push", "-q", "--force")
    for clone in (bob, carol):
        git(clone.path, "fetch", "-q")
        git(clone.path, "reset", "-q", "--hard", "origin/main")
    status = converged(clones)
    bob_source = next(s for s in status["sources"] if s["contributor"].startswith("bob-"))
    assert bob_source["status"] == "tampered"
    assert bob_source["detail"] == "line 1: its hash does not match its content"
    # its one line no longer verifies: withdrawn as an unverified line, not as an item
    assert (bob_source["withdrawn"], bob_source["unverified"]) == (0, 1)
    assert production not in {i["id"] for i in status["items"]}
    assert "prod, no review" not in json.dumps(status)

    # a force-push truncates Carol's file (chain intact, last entries gone): every clone
    # saw them, so every clone reports it
    carol_file = next(alice.path.glob(".waymarks/team/carol-*.jsonl"))
    kept = carol_file.read_text().splitlines(keepends=True)[:1]
    carol_file.write_text("".join(kept))
    git(alice.path, "commit", "-q", "-a", "--amend", "--no-edit")
    git(alice.path, "push", "-q", "--force")
    for clone in (bob, carol):
        git(clone.path, "fetch", "-q")
        git(clone.path, "reset", "-q", "--hard", "origin/main")
    status = converged(clones)
    carol_source = next(s for s in status["sources"] if s["contributor"].startswith("carol-"))
    assert (carol_source["status"], carol_source["detail"]) == (
        "truncated", "1 entries, 2 seen before")
    assert lint not in {i["id"] for i in status["items"]}
    # tampered and truncated sources refuse new writes from their owners
    refused = carol.run("team", "share", carol.run("pins")["items"][0]["id"], "--yes",
                        expect=2)
    assert refused["code"] == "own_file_damaged"

    # repaired from git (both files restored): the items come back everywhere
    git(carol.path, "checkout", good, "--", ".waymarks/team")
    carol.commit("restore the team ledger")
    git(carol.path, "push", "-q")
    git(alice.path, "fetch", "-q")
    git(alice.path, "reset", "-q", "--hard", "origin/main")
    git(bob.path, "pull", "-q")
    status = converged(clones)
    assert {s["status"] for s in status["sources"]} == {"available"}
    assert {lint, production} <= {i["id"] for i in status["items"]}
