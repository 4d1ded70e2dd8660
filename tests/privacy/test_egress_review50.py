"""Stop 50's egress review: what still reached a model beside the text it was kept from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text(
        '[privacy]\nlocalProviders = ["ollama"]\n'
        '[privacy.remoteProviders]\npg = ["normal", "sensitive"]\n')
    return home, project


def _cli(home: Path, project: Path, *args: str) -> str:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    return done.stdout


def test_a_key_derived_from_marked_text_does_not_spell_a_withheld_span(
        places: tuple[Path, Path]) -> None:
    """The claim's internal span was withheld from a provider allowed ``normal`` and
    ``sensitive``, but its key, derived from the marked text, was shown beside it:
    ``ds4-internal-falcon-merger-target-…``."""
    home, project = places
    _cli(home, project, "memory", "add", "--", "[ds4:internal]Falcon merger target"
         "[/ds4:internal] warehouse is [ds4:sensitive]snowflake[/ds4:sensitive]")
    remote = _cli(home, project, "plan", "--provider", "pg", "--prompt", "which warehouse?")
    assert "withheld by privacy policy" in remote and "snowflake" in remote
    assert "falcon" not in remote.lower()
    local = _cli(home, project, "plan", "--provider", "ollama", "--prompt", "which warehouse?")
    assert "Falcon merger target" in local and "Key:" in local  # nothing withheld there
    explicit = places[0].parent / "explicit"
    explicit.mkdir()
    _cli(home, explicit, "memory", "add", "--key", "warehouse", "--", "[ds4:internal]Falcon"
         "[/ds4:internal] warehouse is [ds4:sensitive]snowflake[/ds4:sensitive]")
    shown = _cli(home, explicit, "plan", "--provider", "pg", "--prompt", "which warehouse?")
    assert 'Key: "warehouse"' in shown and "falcon" not in shown.lower()


def test_a_learned_claims_source_id_goes_through_the_egress(tmp_path: Path) -> None:
    """A hand-edited learned ledger gave a claim's source a credential for an ID: the
    plan's learned block (``Source: ghp_…``) and ``learned_memory``'s listing
    (``evidence.sourceId``) showed it raw, while the recall digest redacted it."""
    from tests.evolution.test_learning_cli import _learn
    from waymarks.service import evolution_inspect
    from waymarks.service.app import Waymarks
    from waymarks.service.learning import ledger_path
    from waymarks.service.planning import egress_for

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    claim = _learn(home, str(project), "Remember: the nightly gradle build runs at 2am",
                   {"kind": "fact", "content": "The nightly gradle build runs at 2am",
                    "searchTerms": ["nightly gradle build"]})
    ledger = ledger_path(home)
    source = next(c["evidence"]["sourceId"] for c in evolution_inspect.list_claims(
        home)["claims"] if c["id"] == claim)
    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    # the source ID and (a re-review) its settlement code, which show and learning report
    assert '"code":"applied"' in ledger.read_text()
    ledger.write_text(ledger.read_text().replace(source, token).replace(
        '"code":"applied"', f'"code":"{token}"'))
    (home / "waymarks.db").unlink()  # folded again from the edited ledger
    plan = _cli(home, project, "plan", "--prompt", "when does the nightly gradle build run?")
    assert "The nightly gradle build runs at 2am" in plan and "Source:" in plan
    assert token not in plan
    with Waymarks(home, cwd=str(project)) as app:
        egress = egress_for(app, "anthropic")
    listed = evolution_inspect.list_claims(home, egress=egress)
    assert [c["id"] for c in listed["claims"]] == [claim]
    assert token not in json.dumps(listed) and "[REDACTED" in json.dumps(listed)
    assert token in json.dumps(evolution_inspect.list_claims(home))  # the person's own
    # a re-review: show's provenance and receipts, and the learning report, kept it raw
    from waymarks.mcp.tools.learned_memory import read

    _cli(home, project, "feedback", claim, "useful")
    with Waymarks(home, cwd=str(project)) as app:
        app.host_provider = "anthropic"
        answers = {action: read(app, {"action": action} | extra) for action, extra in (
            ("show", {"id": claim}), ("learning", {}), ("history", {}))}
    for action, answer in answers.items():
        assert answer["outcome"] == "ok", answer
        assert token not in json.dumps(answer), action
    assert "[REDACTED" in json.dumps(answers["show"]["provenance"])
    assert "[REDACTED" in json.dumps(answers["learning"]["sources"])


def test_recall_memory_and_notes_promote_leave_out_what_a_plan_leaves_out(
        tmp_path: Path) -> None:
    """``recall_memory`` sent a personal index line the plan leaves out for its level (only
    its marked span withheld: ``home address [withheld by privacy policy]``), and ``notes
    promote`` a lesson note the same way; both leave the item out whole now, counted."""
    from waymarks.personal.bridge_tools import recall_memory
    from waymarks.personal.notes import add_note, promote_prompt
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import egress_for

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _cli(home, project, "personal", "save", "--name", "Editor preference", "--description",
         "Uses neovim; home address [ds4:sensitive]12 Elm Street[/ds4:sensitive]", "--",
         "I use neovim for editing")
    _cli(home, project, "personal", "save", "--name", "Shell preference", "--description",
         "Uses fish as the shell for editing", "--", "I use fish")
    with Waymarks(home, cwd=str(project)) as app:
        egress = egress_for(app, "anthropic")
        answer = recall_memory(app, "which editor neovim shell", egress)
        add_note(app, "Lint before pushing; the vendor contact is [ds4:sensitive]Ann at "
                 "Acme[/ds4:sensitive]", "lesson")
        add_note(app, "Run the migrations before the tests", "lesson")
        prompt, lessons = promote_prompt(app, "anthropic")
    shown = json.dumps(answer)
    assert "Editor preference" not in shown and "withheld by privacy" not in shown
    assert "Shell preference" in shown and answer["withheld"] == 1
    assert prompt is not None and "Run the migrations" in prompt
    assert "vendor contact" not in prompt and len(lessons) == 1
