"""A learned claim that contradicts the person's own pin or claim is not planned (seed 004:
learned claims are never above what a person confirmed). Only a learned copy of the same
sentence was left out: a learned "port 8080" went out beside the confirmed "port 5432", and
alone, as the answer, where the confirmed claim was classified above what the provider
may receive. Real home, real SQLite, the real CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.evolution.test_aging import learn
from tests.evolution.test_lifecycle_review import _remote_sees_only_normal
from tests.opaque import content

AT = "2099-01-01T00:00:00.000Z"
ASK = "what is the staging database port and the staging cache ttl"


def _learned(plan: dict) -> dict[str, str]:
    return {e["id"]: e["reason"] for e in plan["manifest"]["entries"]
            if e["kind"] == "learned" and e["decision"] == "excluded"}


def test_a_learned_claim_contradicting_a_confirmed_one_is_not_planned(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    _remote_sees_only_normal(home)
    with (home / "config.toml").open("a") as config:  # (privacy's table, extended)
        config.write('localProviders = ["ollama"]\n')
    mine = cli("memory", "add", "--classification", "sensitive", "--",
               "The staging database port is 5432.")["id"]
    elsewhere = str(tmp_path / "elsewhere")
    port = learn(home, elsewhere, {"kind": "fact", "content": "The staging database port "
                                   "is 8080", "searchTerms": ["staging"]}, AT)
    ttl = learn(home, elsewhere, {"kind": "fact", "content": "The staging cache ttl is 60 "
                                  "seconds", "searchTerms": ["staging"]}, AT)
    plan = cli("plan", "--", ASK)  # remote: the confirmed claim may not go
    block = "\n".join(m["content"] for m in plan["messages"] if m["kind"] == "learned")
    assert "port is 8080" not in block and ttl in block  # another subject still goes
    says_otherwise = f"you hold {mine[:8]}, which says otherwise"
    assert _learned(plan) == {port: says_otherwise}
    explained = cli("evolution", "explain", ASK)  # as the plan chose
    assert explained["selected"] == [ttl]
    assert [s["verdict"] for s in explained["scored"] if s["id"] == port] == [says_otherwise]
    local = cli("plan", "--provider", "ollama", "--", ASK)  # both may go: not side by side
    shown = "\n".join(m["content"] for m in local["messages"])
    assert "port is 5432" in shown and "port is 8080" not in shown


def test_memory_recall_and_recall_leave_out_a_learned_claim_the_person_holds_or_denies(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path) -> None:
    """The plan left such a learned claim out; ``memory_recall`` (the MCP tool a model
    calls) and ``recall`` still answered with it: for a remote model, where the person's
    sensitive claim is withheld, the learned "8080" was the answer, and a learned copy of
    their sensitive sentence went out in its place."""
    from tests.mcp_server.test_recall_tool import call
    from waymarks.service.app import Waymarks

    _remote_sees_only_normal(home)
    cli("memory", "add", "--classification", "sensitive", "--",
        "The staging database port is 5432.")
    cli("memory", "add", "--classification", "sensitive", "--",
        "The staging vault path is /srv/vault-7.")
    elsewhere = str(tmp_path / "elsewhere")
    for said in ("The staging database port is 8080", "The staging vault path is "
                 "/srv/vault-7", "The staging cache ttl is 60 seconds"):
        learn(home, elsewhere, {"kind": "fact", "content": said,
                                "searchTerms": ["staging"]}, AT)
    ask = "staging database port, vault path and cache ttl"
    answer = call(Waymarks(home=home, cwd=str(project)), {"query": ask})
    recalled = cli("recall", ask)
    for rows in (answer["learned"], recalled["learned"]):
        assert [r["excerpt"] for r in rows] == ["The staging cache ttl is 60 seconds"]
    assert "vault-7" not in json.dumps(answer) and "port is 8080" not in json.dumps(answer)


def test_the_learned_memory_tool_leaves_them_out_too(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path) -> None:
    """A re-read: ``learned_memory`` (list, search, show: the model's read-only tool) still
    answered with the learned copy of the person's sensitive sentence and the learned
    contradiction that ``recall`` and ``memory_recall`` now leave out."""
    from waymarks.mcp.tools.learned_memory import read
    from waymarks.service.app import Waymarks

    _remote_sees_only_normal(home)
    for said in ("The staging database port is 5432.", "The staging vault path is "
                 "/srv/vault-7."):
        cli("memory", "add", "--classification", "sensitive", "--", said)
    elsewhere = str(tmp_path / "elsewhere")
    ids = [learn(home, elsewhere, {"kind": "fact", "content": said,
                                   "searchTerms": ["staging"]}, AT)
           for said in ("The staging database port is 8080", "The staging vault path is "
                        "/srv/vault-7", "The staging cache ttl is 60 seconds")]
    app = Waymarks(home=home, cwd=str(project))
    listed = read(app, {"action": "list", "scope": "all"})
    found = read(app, {"action": "search", "query": "staging vault path database port ttl"})
    for answer in (listed, found):
        text = content(answer, str(tmp_path))  # (random hex IDs: "8080" 1 run in 500)
        assert "vault-7" not in text and "8080" not in text, text
    assert set(listed["withheld"]) == set(ids[:2])  # a search matches them not at all
    assert [c["id"] for c in found["claims"]] == [ids[2]]
    assert [c["content"] for c in listed["claims"]] == ["The staging cache ttl is 60 seconds"]
    for held in ids[:2]:
        assert read(app, {"action": "show", "id": held})["outcome"] == "rejected"
    assert read(app, {"action": "show", "id": ids[2]})["outcome"] == "ok"


def test_a_learned_claim_contradicting_a_personal_entry_is_not_planned(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """Personal memory is the person's own, as a pin is: a learned "port 8080" went out
    beside their personal entry saying 5432 (the index line the plan carries)."""
    cli("personal", "save", "--name", "Staging DB", "--description",
        "The staging database port is 5432.", "--", "The staging database port is 5432.")
    elsewhere = str(tmp_path / "elsewhere")
    port = learn(home, elsewhere, {"kind": "fact", "content": "The staging database port "
                                   "is 8080", "searchTerms": ["staging"]}, AT)
    ttl = learn(home, elsewhere, {"kind": "fact", "content": "The staging cache ttl is 60 "
                                  "seconds", "searchTerms": ["staging"]}, AT)
    plan = cli("plan", "--", ASK)
    shown = "\n".join(m["content"] for m in plan["messages"])
    assert "port is 5432" in shown and "port is 8080" not in shown and ttl in shown
    says_otherwise = "you hold personal:staging-db, which says otherwise"
    assert _learned(plan) == {port: says_otherwise}
    explained = cli("evolution", "explain", ASK)  # as the plan chose
    assert explained["selected"] == [ttl]
    assert [s["verdict"] for s in explained["scored"] if s["id"] == port] == [says_otherwise]


def test_a_learned_claim_a_local_write_would_conflict_with_by_its_key_is_not_planned(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """The replay rule refuses a local write sharing a claim's derived key with another
    value ("The package manager is pnpm" beside "The package manager is npm", whose
    signatures find no value to compare); the learned claim saying so was planned beside
    the confirmed one, and recalled and explained as the answer."""
    mine = cli("memory", "add", "--", "The package manager is npm")["id"]
    ask = "which package manager do we use?"
    pnpm = learn(home, str(tmp_path / "elsewhere"), {
        "kind": "preference", "content": "The package manager is pnpm",
        "searchTerms": ["package manager"]}, AT)
    plan = cli("plan", "--", ask)
    shown = "\n".join(m["content"] for m in plan["messages"])
    assert "manager is npm" in shown and "manager is pnpm" not in shown
    says_otherwise = f"you hold {mine[:8]}, which says otherwise"
    assert _learned(plan) == {pnpm: says_otherwise}
    assert "learned" not in cli("recall", ask)  # (and no key when none is left)
    explained = cli("evolution", "explain", ask)
    assert [s["verdict"] for s in explained["scored"] if s["id"] == pnpm] == [says_otherwise]
