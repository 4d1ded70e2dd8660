"""Who may write what into a note (docs/personal.md, Notes): the model's tool
``capture_note`` refuses ``local-only`` text and the history sentinel, as the model's
other tools do; ``notes add``, typed by the person, keeps both, as ``pin`` and ``memory
add`` do, and a local-only note reaches only a provider that may receive it. The page
said ``notes add`` refused them too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from waymarks.core.privacy import OMITTED
from waymarks.service.app import Waymarks

LOCAL_ONLY = "[ds4:local-only]Our bank is Chase[/ds4:local-only] lesson"
SENTINEL = f"Keep {OMITTED} out of replies"


def _cli(home: Path, project: Path, *args: str) -> dict:  # type: ignore[type-arg]
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CLI_HELPER": "off"}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", *args],
                          cwd=project, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_notes_add_keeps_what_the_tool_refuses(home: Path, project: Path) -> None:
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n',
                                      encoding="utf-8")
    for text in (LOCAL_ONLY, SENTINEL):
        _cli(home, project, "notes", "add", "--", text)
    kept = [n["text"] for n in _cli(home, project, "notes", "list")["notes"]]
    assert kept == [LOCAL_ONLY, SENTINEL], kept
    remote = _cli(home, project, "notes", "promote", "--provider", "openai")
    assert [n["text"] for n in remote["lessons"]] == [SENTINEL], remote
    assert "Chase" not in (remote["prompt"] or "") and remote["leftOut"], remote
    local = _cli(home, project, "notes", "promote", "--provider", "ollama")
    assert "Our bank is Chase" in local["prompt"], local


def test_the_note_tool_refuses_local_only_text_and_the_sentinel(
        make_app: Callable[..., Waymarks]) -> None:
    from waymarks.personal.bridge_tools import capture_note
    from waymarks.personal.notes import active_notes

    app = make_app()
    app.session_say("Let us talk about the bank")
    assert capture_note(app, LOCAL_ONLY) == {"outcome": "rejected",
                                             "category": "local-only-refused"}
    assert capture_note(app, SENTINEL) == {"outcome": "rejected",
                                           "category": "egress-placeholder"}
    assert active_notes(app) == []
