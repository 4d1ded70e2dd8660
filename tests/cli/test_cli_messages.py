"""Everyday CLI messages and shapes read against docs/cli.md (each failing before its fix)."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks


def _json(home: Path, project: Path, *args: str, expect: int = 0) -> Any:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def _text(home: Path, project: Path, *args: str, expect: int = 0) -> str:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return done.stdout + done.stderr


def test_a_personal_entry_over_a_length_limit_is_refused_too_long(home: Path,
                                                                  project: Path) -> None:
    for args in (("--name", "n" * 81, "--", "hello"),
                 ("--description", "d" * 301, "--", "hello"),
                 ("--", "x" * 2001)):
        refused = _json(home, project, "personal", "save", *args, expect=2)
        assert refused["code"] == "too_long", refused
    assert _json(home, project, "personal", "list")["entries"] == []


def test_memory_sources_in_an_untrusted_project_names_the_command_to_run(
        home: Path, project: Path) -> None:
    out = _text(home, project, "memory", "sources")
    assert f"(`waymarks trust {shlex.quote(str(project.resolve()))}`)" in out, out
    assert "PATH" not in out


def test_index_semantic_with_the_switch_off_says_the_switch_and_its_fix(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    out = _text(home, project, "index", "--semantic", expect=1)
    assert "WAYMARKS_SEMANTIC is off" in out and "unset it" in out, out
    assert "not installed" not in out


def test_a_listing_takes_only_the_statuses_its_kind_has(home: Path, project: Path) -> None:
    out = _text(home, project, "memory", "list", "--status", "deleted", expect=2)
    assert "'deleted' is not one of 'active', 'superseded', 'invalid', 'expired'" in out, out
    out = _text(home, project, "pins", "--status", "expired", expect=2)
    assert "'expired' is not one of 'active', 'superseded', 'deleted'" in out, out
    assert _json(home, project, "memory", "list", "--status", "invalid")["items"] == []
    from waymarks.commands.options import KIND_STATUSES
    from waymarks.core.model import MEMORY_STATUS_TARGETS, PIN_STATUS_TARGETS

    ending = {"pin": PIN_STATUS_TARGETS, "memory": MEMORY_STATUS_TARGETS}
    assert {k: set(v) for k, v in KIND_STATUSES.items()} == {
        k: {"active", "superseded", *v} for k, v in ending.items()}


def test_evolution_show_of_an_unknown_id_says_what_the_other_commands_say(
        home: Path, project: Path) -> None:
    shown = _json(home, project, "evolution", "show", "3f2a9c0d", expect=2)
    history = _json(home, project, "evolution", "history", "--claim", "3f2a9c0d", expect=2)
    assert shown["code"] == history["code"] == "not_found"
    assert shown["message"] == history["message"], (shown, history)
    assert "'3f2a9c0d'" in shown["message"] and "24 hex digits" in shown["message"]
    added = _json(home, project, "memory", "add", "--", "The cache dir is /c.")
    named = _json(home, project, "evolution", "show", added["id"], expect=2)
    assert "is a memory, not a learned claim" in named["message"], named


def test_tokens_after_a_fallback_reports_the_fixed_tokens_given(home: Path,
                                                                project: Path) -> None:
    planned = _json(home, project, "plan", "--model-limit", "1000", "--fixed-tokens",
                    "2000", "--prompt", "hi")
    assert planned["manifest"]["fallback"]
    shown = _json(home, project, "tokens")
    assert shown["fallback"] and shown["blocks"] == []
    assert shown["fixedTokens"] == 2000, shown


def test_tokens_after_a_fallback_add_up(home: Path, project: Path) -> None:
    """After a plan that fell back, `tokens --json` said fixedTokens 2000 and totalTokens
    0: a total smaller than one of its rows. The plan added nothing, so the total is the
    host's own part, as the rows say (blocks none, fixed 2000); the text lists them."""
    _json(home, project, "pin", "--", "Run the tests before every commit.")
    _json(home, project, "plan", "--model-limit", "1000", "--fixed-tokens", "2000",
          "--prompt", "hi")
    shown = _json(home, project, "tokens")
    assert shown["fallback"] and shown["blocks"] == [] and shown["fixedTokens"] == 2000
    assert shown["totalTokens"] == 2000 and shown["addedTokens"] == 0, shown
    lines = _text(home, project, "tokens").splitlines()
    assert lines[0].startswith("The last plan fell back and added nothing: system, tools,")
    assert [line.split() for line in lines[1:]] == [["fixed", "2000"], ["total", "2000"]]


def test_manifest_after_a_fallback_agrees_with_tokens(home: Path, project: Path) -> None:
    """After a plan that fell back under ``--fixed-tokens 2000``, ``manifest --json`` said
    ``totalTokens`` 0 (and its text "0 tokens") while ``tokens`` said 2000: the plan
    added nothing, so its total is the host's own part in every document."""
    _json(home, project, "pin", "--", "Run the tests before every commit.")
    planned = _json(home, project, "plan", "--model-limit", "1000", "--fixed-tokens", "2000",
                    "--prompt", "hi")
    assert planned["manifest"]["fallback"], planned
    assert planned["manifest"]["totalTokens"] == 2000, planned["manifest"]
    shown = _json(home, project, "manifest")
    assert (shown["totalTokens"], shown["fixedTokens"], shown["blocks"]) == (2000, 2000, [])
    assert _json(home, project, "tokens")["totalTokens"] == shown["totalTokens"]
    assert _text(home, project, "manifest").startswith("provider remote, 2000 tokens, FELL")


def test_team_supersede_names_the_item_it_asks_about_and_what_it_replaced(
        home: Path, project: Path) -> None:
    from waymarks.service import team

    team.forget_process_state()
    for args in (("init", "-q"), ("config", "user.name", "Dana")):
        subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)
    _json(home, project, "trust", ".")
    _json(home, project, "team", "init")
    pin = _json(home, project, "pin", "--scope", "project", "--", "Run the checks first")
    team_id = _json(home, project, "team", "share", pin["id"], "--yes")["id"]
    for verb, args in (("Replace", ("supersede", team_id[:4], "--", "Run checks first.")),
                       ("Withdraw", ("unshare", team_id[:4]))):
        asked = _text(home, project, "team", *args, expect=2)
        assert f"{verb} team pin {team_id}?" in asked, asked
    out = _text(home, project, "team", "supersede", team_id[:4], "--yes", "--",
                "Run checks first.")
    [new_id] = [i["id"] for i in _json(home, project, "team", "status")["items"]
                if i["id"] != team_id]
    assert out.startswith(f"Replaced team pin {team_id} by {new_id} "), out


def test_excluding_the_active_session_says_how_to_get_another(home: Path,
                                                               project: Path) -> None:
    _json(home, project, "memory", "add", "--", "The cache dir is /c.")
    [active] = [s["sessionId"] for s in _json(home, project, "memory", "sources")["sources"]]
    refused = _json(home, project, "memory", "exclude", active, expect=2)
    assert refused["code"] == "active_source"
    assert f"`waymarks session new`, then exclude this one, {active}" in refused["message"]
    _json(home, project, "session", "new")
    assert _json(home, project, "memory", "exclude", active)["excluded"] is True


def test_an_import_of_what_is_stored_already_does_not_say_imported(home: Path,
                                                                   project: Path) -> None:
    _json(home, project, "memory", "add", "--", "The port is 80.")
    exported = project / "out.jsonl"
    _json(home, project, "export", "--kind", "memory", "-o", str(exported))
    out = _text(home, project, "import", str(exported))
    assert out.startswith("Nothing new to import: 1 duplicate; nothing was written."), out
    again = _json(home, project, "import", str(exported))
    assert again["outcome"] == "imported" and again["written"] is False  # (docs/cli.md's)
    assert len(_json(home, project, "memory", "list")["items"]) == 1


def test_remember_and_adr_new_over_their_length_limits_say_too_long(home: Path,
                                                                    project: Path) -> None:
    remembered = _json(home, project, "remember", "x" * 2001, expect=2)
    assert remembered["code"] == "too_long", remembered
    titled = _json(home, project, "adr", "new", "t" * 121, expect=2)
    assert titled["code"] == "too_long" and "121 characters" in titled["message"], titled
    assert not (project / "docs").exists()
    assert _json(home, project, "adr", "new", " ", expect=2)["code"] == "invalid_argument"
