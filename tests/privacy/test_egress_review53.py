"""Stop 53's planning and privacy review: text a provider may not receive that still
reached it (each test failed before its fix)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from tests.team.test_team_hostile import run
from waymarks.core.marked_filter import filter_text
from waymarks.service import team

EXACT = ("normal", "sensitive")  # allows those two and not ``internal``


@pytest.mark.parametrize("base", ["normal", "sensitive"])
def test_an_internal_span_is_withheld_under_an_exact_list_whatever_the_floor(base: str) -> None:
    """A span marked ``internal`` in an item classified ``sensitive`` counted as
    ``sensitive`` (the floor is the higher level), so a provider allowed ``normal`` and
    ``sensitive`` but not ``internal`` received it; in a ``normal`` item it was kept out."""
    shown = filter_text("Release rule: [ds4:internal]codename Falcon[/ds4:internal] ships"
                        " Mondays.", EXACT, base)
    assert shown.text is not None and "Falcon" not in shown.text
    assert "ships Mondays" in shown.text and shown.dropped == 1


def test_a_sensitive_span_inside_an_internal_one_is_withheld_with_it() -> None:
    shown = filter_text("alpha [ds4:internal]bravo [ds4:sensitive]charlie[/ds4:sensitive]"
                        " delta[/ds4:internal] echo", EXACT)
    assert shown.text is not None
    assert all(word not in shown.text for word in ("bravo", "charlie", "delta"))
    assert shown.text.startswith("alpha ") and shown.text.endswith(" echo")


def test_unpaired_markers_under_an_exact_list_withhold_the_whole_text() -> None:
    """Markers that do not pair up put the whole text at its highest level: it may hold
    any level below, so an exact list that leaves one out gets none of it."""
    stray = "codename [ds4:internal]Falcon and [/ds4:sensitive] more"
    assert filter_text(stray, EXACT).text is None
    assert filter_text(stray, ("normal", "internal", "sensitive")).text is not None


def test_a_sensitive_items_internal_span_reaches_no_exact_list_provider(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text('[privacy.remoteProviders]\ngw = ["normal", "sensitive"]\n')
    env = {"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"}

    def cli(*args: str) -> str:
        done = waymarks(*args, env=env, cwd=project)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
        return done.stdout

    cli("pin", "--classification", "sensitive", "--",
        "Release rule: [ds4:internal]codename Falcon[/ds4:internal] ships Mondays.")
    cli("memory", "add", "--classification", "sensitive", "--",
        "The release codename is [ds4:internal]Bluebird[/ds4:internal] for the Monday train.")
    plan = cli("plan", "--provider", "gw", "--prompt", "release codename train")
    recall = cli("recall", "--provider", "gw", "--json", "release codename train")
    for shown in (plan, recall):
        assert "Falcon" not in shown and "Bluebird" not in shown
    assert "ships Mondays" in plan and "Monday train" in plan
    assert "Monday train" in recall


def _team_keys(home: Path, repo: Path) -> dict[str, str | None]:
    manifest = run(home, repo, "manifest")
    entries = manifest.get("manifest", manifest).get("entries", [])
    return {e["id"]: e.get("key") for e in entries if e["kind"] == "team"}


@pytest.mark.parametrize("provider", [None, "ollama"])
def test_a_team_items_key_is_named_only_where_the_model_may_read_the_item(
        home: Path, project: Path, provider: str | None) -> None:
    """The manifest describes items "by ID, classification and reason, never by content";
    a team item left out for its classification was named by the key its file holds,
    which a share wrote from the claim's words: words of an internal claim in a manifest
    an agent can read. Where the item is sent, its key is named as the model is shown it."""
    team.forget_process_state()
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n')
    subprocess.run(["git", "-C", str(project), "init", "-q"], check=True)
    run(home, project, "trust", ".")
    run(home, project, "team", "init")
    own = run(home, project, "memory", "add", "--scope", "project", "--classification",
              "internal", "--", "The codename for the falcon merger is Bluebird.")["id"]
    shared = run(home, project, "team", "share", own, "--yes")["id"]
    run(home, project, "memory", "invalidate", own)
    chosen = ["--provider", provider] if provider else []
    plan = run(home, project, "plan", *chosen, "codename falcon merger")
    keys = _team_keys(home, project)
    shown = "".join(m["content"] for m in plan["messages"])
    if provider is None:  # remote: internal is not allowed
        assert "Bluebird" not in shown and keys[shared] is None
    else:
        assert "Bluebird" in shown and keys[shared] == "codename-for-the-falcon-merger"
