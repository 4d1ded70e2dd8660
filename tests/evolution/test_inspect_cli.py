"""Inspection and edits of learned memory through the real CLI entry point: list, search,
show, history, learning, explain; feedback (incorrect quarantines, undo brings back),
correct, conflict/resolve, forget; the database deleted brings every event back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evolution.test_aging import days_ago, learn
from waymarks.service.evolution import Evolution

PAST = days_ago(30)  # a decision dormant on the real clock is never injected


def test_inspect_feedback_undo_correct_conflict_and_rebuild(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path) -> None:
    kamal = learn(home, str(project), {"kind": "decision",
                                       "content": "Deployments use Kamal, not Capistrano",
                                       "searchTerms": ["deploy tool", "kamal"]}, PAST)
    other = learn(home, str(tmp_path / "elsewhere"), {
        "kind": "fact", "content": "The staging port is 8080", "searchTerms": ["staging"]}, PAST)
    listed = cli("evolution", "list")
    assert [c["id"] for c in listed["claims"]] == sorted([kamal, other]) or {
        c["id"] for c in listed["claims"]} == {kamal, other}
    assert [c["id"] for c in cli("evolution", "list", "here")["claims"]] == [kamal]
    assert cli("evolution", "list", "legacy")["claims"] == []
    assert [c["id"] for c in cli("evolution", "search", "which", "deploy", "tool")["claims"]] \
        == [kamal]
    shown = cli("evolution", "show", kamal)
    assert shown["provenance"]["basis"] == "user_statement" and shown["aging"]["ageDays"] > 0
    assert shown["events"][0]["op"] == "claim" and shown["events"][0]["actor"] == "model"
    assert cli("evolution", "show", "f" * 24, expect=2)["code"] == "not_found"

    # incorrect (natural wording through the command's verdict) quarantines; undo restores
    marked = cli("feedback", kamal, "incorrect")
    assert marked["changed"] and marked["event"]
    assert "learned" not in cli("recall", "which deploy tool do we use?")
    plan = cli("plan", "--", "which deploy tool do we use?")
    assert "learned" not in [m["kind"] for m in plan["messages"]]
    assert cli("evolution", "history")["events"][0]["event"] == marked["event"]
    assert cli("evolution", "undo", str(marked["event"]))["undone"] == marked["event"]
    assert [r["id"] for r in cli("recall", "which deploy tool do we use?")["learned"]] == [kamal]
    assert cli("feedback", kamal, "bogus", expect=2)["code"] == "bad_input"

    fixed = cli("evolution", "correct", kamal, "--", "Deployments use Kamal 2 via GitHub")
    new_id = fixed["correctedBy"]
    assert cli("evolution", "show", new_id)["evidence"]["basis"] == "manual_correction"
    assert cli("evolution", "show", kamal)["state"] == "superseded"
    assert cli("evolution", "correct", new_id, "--", "no", expect=2)["code"] == "bad_input"
    pair = cli("evolution", "conflict", new_id, other)
    assert {cli("evolution", "show", i)["state"] for i in (new_id, other)} == {"conflicted"}
    assert cli("evolution", "resolve", other)["ok"]
    assert cli("evolution", "undo", str(pair["event"]), expect=2)["code"] == "changed_since"

    learning = cli("evolution", "learning")
    assert {s["decision"] for s in learning["sources"]} == {"applied"}
    assert "Kamal" not in json.dumps(learning)
    explained = cli("evolution", "explain", "which", "deploy", "tool")
    assert "Kamal 2 via" not in json.dumps(explained) and "candidates" in explained

    history = cli("evolution", "history", "--limit", "50")
    (home / "waymarks.db").unlink()
    for extra in home.glob("waymarks.db-*"):
        extra.unlink()
    assert cli("evolution", "history", "--limit", "50") == history
    gone = cli("evolution", "forget", other)
    assert gone["event"] and cli("evolution", "show", other)["state"] == "forgotten"
    assert cli("evolution", "forget", other, expect=2)["code"] == "not_active"


def test_feedback_through_the_installed_script_refuses_an_unknown_id(
        home: Path, project: Path, tmp_path: Path) -> None:
    learn(home, str(project), {"kind": "fact", "content": "The build uses uv",
                               "searchTerms": ["uv"]}, PAST)
    script = Path(sys.executable).parent / "waymarks"
    done = subprocess.run([str(script), "--json", "feedback", "a" * 24, "useful"], cwd=project,
                          env={**os.environ, "WAYMARKS_HOME": str(home)}, capture_output=True,
                          text=True, check=False, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert json.loads(done.stdout)["code"] == "not_found"


def test_one_hash_mismatched_row_never_disables_recall_and_is_named(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    from waymarks.core.evolution.model import SCHEMA_VERSION, ClaimRecord, Evidence

    good = learn(home, str(project), {"kind": "decision",
                                      "content": "Deployments use Kamal, not Capistrano",
                                      "searchTerms": ["deploy tool", "kamal"]}, PAST)
    forged = "0123456789abcdef01234567"  # not the hash of its (origin, kind, content)
    with Evolution(home) as evo, evo.ledger.locked():
        evo._append([ClaimRecord(SCHEMA_VERSION, forged, str(project), "decision",
                                 "Deployments use Kamal via a forged row",
                                 Evidence("user_statement", "model", "s", PAST))])
    assert [r["id"] for r in cli("recall", "which deploy tool do we use?")["learned"]] == [good]
    assert cli("learn", "status")["badRows"] == [forged]
    listed = cli("evolution", "list")
    assert listed["badRows"] == [forged] and [c["id"] for c in listed["claims"]] == [good]
    assert cli("evolution", "forget", forged)["outcome"] == "done"  # forget accepts it
    assert cli("evolution", "show", forged)["state"] == "forgotten"


def test_explain_without_a_query_shows_the_last_automatic_recall_of_the_process(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    good = learn(home, str(project), {"kind": "decision",
                                      "content": "Deployments use Kamal, not Capistrano",
                                      "searchTerms": ["deploy tool", "kamal"]}, PAST)
    cli("plan", "--", "which deploy tool do we use?")
    snapshot = cli("evolution", "explain")
    assert snapshot["selected"] == [good], json.dumps(snapshot)[:1500]
    assert "Capistrano" not in json.dumps(snapshot)
    fresh = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "evolution",
                            "explain"], cwd=project, env={**os.environ,
                                                         "WAYMARKS_HOME": str(home)},
                           capture_output=True, text=True, check=False, timeout=60)
    assert fresh.returncode == 2 and json.loads(fresh.stdout)["code"] == "not_found"


def test_an_unknown_id_is_named_briefly_and_history_of_one_is_not_found(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    """A 120 KB argument came back whole in the refusal, and `evolution history --claim`
    of no such claim answered 0 with no events, as for a claim nothing changed."""
    kamal = learn(home, str(project), {"kind": "decision", "content": "Deployments use Kamal",
                                       "searchTerms": ["kamal"]}, PAST)
    big = "a" * 120_000
    refused = cli("learn", "forget", big, expect=2)
    assert refused["code"] == "not_found" and len(refused["message"]) < 300
    assert "a" * 64 + "…" in refused["message"] and "a" * 65 not in refused["message"]
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    unknown = cli("evolve", "\x1b[31m" + big, expect=2)  # an unknown ID, as everywhere
    assert (unknown["outcome"], unknown["code"]) == ("rejected", "not_found")
    assert unknown["sourceId"] == "\\u001b[31m" + "a" * 59 + "…"
    assert unknown["sourceId"] in unknown["message"] and len(unknown["message"]) < 300
    missing = cli("evolution", "history", "--claim", "nope", expect=2)
    assert (missing["code"], missing["message"].split(";")[0]) == (
        "not_found", "no learned claim 'nope' in this home")
    assert cli("evolution", "history", "--claim", kamal)["events"][0]["op"] == "claim"


def test_explain_prints_text_for_people_and_json_with_json(
        home: Path, project: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """``evolution explain`` printed its JSON document as its text too, where ``recall
    --explain`` prints lines for people and every other command keeps JSON for --json."""
    from waymarks.cli.main import main

    kamal = learn(home, str(project), {"kind": "decision",
                                       "content": "Deployments use Kamal, not Capistrano",
                                       "searchTerms": ["deploy tool", "kamal"]}, PAST)
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["evolution", "explain", "which", "deploy", "tool"]) == 0
    text = capsys.readouterr().out
    first, second, *scored = text.strip().splitlines()
    assert first.startswith("mode ") and "focus " in first
    assert second.startswith("1 candidates, 1 eligible")
    assert scored[0].startswith(f"  {kamal[:8]} + rel ")
    assert "Kamal" not in text and not text.lstrip().startswith("{")
    assert main(["--json", "evolution", "explain", "which", "deploy", "tool"]) == 0
    assert json.loads(capsys.readouterr().out)["scored"][0]["id"] == kamal


def test_learned_claim_and_source_ids_are_taken_in_either_case(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    """docs/cli.md accepts IDs in either case; a learned claim's ID and a source's given in
    capitals were refused as unknown (``not_found``)."""
    claim = learn(home, str(project), {"kind": "fact", "content": "The staging port is 8080",
                                       "searchTerms": ["staging"]}, PAST)
    assert cli("evolution", "show", claim.upper())["id"] == claim
    assert cli("feedback", f" {claim.upper()} ", "useful")["id"] == claim
    assert cli("evolution", "history", "--claim", claim.upper())["events"]
    assert cli("evolution", "pin", claim.upper())["id"] == claim
    with Evolution(home) as evo:
        source = evo.capture(str(project), "statement", "Remember the cache is Redis 7",
                             session="s", key="k")
    assert source is not None
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    tried = cli("evolve", source.source_id[:8].upper(), expect=1)  # no route: it waits
    assert (tried["sourceId"], tried["reason"]) == (source.source_id, "no_route")


def test_an_empty_page_says_where_the_claims_are(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`evolution list --page 5` with 1 claim, and `evolution list legacy`, both said "No
    learned claims here." (the claim was on page 1; `legacy` lists imported ones only)."""
    from waymarks.cli.main import main

    learn(home, str(project), {"kind": "fact", "content": "The staging port is 8080"}, PAST)
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["evolution", "list", "--page", "5"]) == 0
    assert capsys.readouterr().out.strip() == "No learned claims on page 5: 1 in all, on page 1."
    assert main(["evolution", "list", "legacy"]) == 0
    assert "No legacy" in capsys.readouterr().out


@pytest.mark.parametrize("given", ["abc", "-3", "1.5", "99999999999999999999"])
def test_undo_of_what_is_not_an_event_number_says_what_is_wanted(
        cli: Callable[..., dict], given: str) -> None:
    """``evolution undo abc`` said "'abc' is not a valid integer range" (click's words for
    its range type), and ``-3`` "is not in the range 1<=x<=9223372036854775807"."""
    refused = cli("evolution", "undo", "--", given, expect=2)
    assert refused["code"] == "usage"
    assert f"'{given}' is not a whole number from 1 to " in refused["message"]
    assert "an event's number, as `waymarks evolution history` lists them" in \
        refused["message"]
    assert "integer range" not in refused["message"]


def test_history_names_a_claim_that_did_not_exist_in_words_not_as_python(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`evolution history`'s CHANGES read `… None->provisional` for a claim an event made
    (Python's word for "no state"); `--json` keeps ``null``."""
    from waymarks.cli.main import main

    claim = learn(home, str(project), {"kind": "fact", "content": "The staging port is 8080",
                                       "searchTerms": ["staging"]}, PAST)
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["evolution", "history"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if claim in line]
    assert "None" not in row and f"{claim} none->provisional" in row, row
    assert main(["--json", "evolution", "history"]) == 0
    changes = [c for e in json.loads(capsys.readouterr().out)["events"]
               for c in e["changes"] if c["claim"] == claim]
    assert changes and changes[0]["before"] is None
