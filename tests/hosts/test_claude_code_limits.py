"""Issue 23 item 1 for Claude Code: the ``UserPromptSubmit`` hook, through the real
``waymarks hook claude-code`` entry point, plans against the model's hard limit — the
window of the model the transcript's last answer names (a table of known windows, else
``[context] defaultContextWindow``) minus what that answer's usage says is taken."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import claude_code_hook as hook
from waymarks.hosts.model_limits import claude_code_limits, pi_fixed_tokens, window_of
from waymarks.service.app import Waymarks

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"
MEMORY_BEGIN = "[WAYMARKS DURABLE MEMORY — QUOTED DATA]"
PROMPT = "what does the deploy checklist require?"
TOPICS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]


def submit(home: Path, project: Path, sid: str, transcript: Path) -> str:
    body = {"session_id": sid, "transcript_path": str(transcript), "cwd": str(project),
            "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}
    done = hook(home, body)
    assert done.returncode == 0, done.stderr
    if not done.stdout:
        return ""
    context: str = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return context


def transcript(path: Path, model: str, used: int) -> Path:
    lines: list[dict[str, Any]] = [
        {"type": "user", "message": {"role": "user", "content": "earlier"}},
        {"type": "assistant", "message": {
            "role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": used - 15, "output_tokens": 5}}},
        {"type": "assistant", "message": {"role": "assistant", "model": "<synthetic>",
                                          "content": [], "usage": {}}},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


@pytest.fixture
def session(home: Path, project: Path) -> str:
    sid = str(uuid.uuid4())
    started = hook(home, {"session_id": sid, "cwd": str(project),
                          "hook_event_name": "SessionStart"})
    assert started.returncode == 0, started.stderr
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Always answer in French")
        for topic in TOPICS:
            filler = " ".join(f"{topic}{n}" for n in range(40))
            app.remember(f"The deploy checklist item {topic} requires {filler}")
    return sid


def test_a_known_model_near_its_window_drops_memory_but_keeps_the_pin(
        home: Path, project: Path, session: str, tmp_path: Path) -> None:
    roomy = submit(home, project, session, tmp_path / "missing.jsonl")  # no transcript yet
    assert roomy.count(MEMORY_BEGIN) == len(TOPICS)
    taken = 200_000 - len(roomy) // 4 // 2  # leaves room for about half of it
    tight = submit(home, project, session,
                   transcript(tmp_path / "t.jsonl", "claude-sonnet-4-5-20250929", taken))
    assert tight.startswith(PIN_BEGIN)
    assert 0 < tight.count(MEMORY_BEGIN) < len(TOPICS)
    # the same usage on a model with a 1M window: everything fits again
    wide = submit(home, project, session,
                  transcript(tmp_path / "w.jsonl", "claude-sonnet-4-5-20250929[1m]", taken))
    assert wide.count(MEMORY_BEGIN) == len(TOPICS)


def test_an_unknown_model_uses_the_configured_default_window(
        home: Path, project: Path, session: str, tmp_path: Path) -> None:
    roomy = submit(home, project, session, transcript(tmp_path / "t.jsonl", "local-llm", 5000))
    assert roomy.count(MEMORY_BEGIN) == len(TOPICS)  # unknown, nothing configured: no limit
    (home / "config.toml").write_text(
        f"[context]\ndefaultContextWindow = {5000 + len(roomy) // 4 // 2}\n")
    tight = submit(home, project, session, tmp_path / "t.jsonl")
    assert tight.startswith(PIN_BEGIN) and 0 < tight.count(MEMORY_BEGIN) < len(TOPICS)


def test_when_not_even_the_pins_fit_nothing_is_added_and_the_prompt_is_kept(
        home: Path, project: Path, session: str, tmp_path: Path) -> None:
    full = transcript(tmp_path / "t.jsonl", "claude-opus-4-1-20250805", 199_990)
    assert submit(home, project, session, full) == ""  # the planner fell back, silently:
    # the context is full already (a word on every prompt would only add to it)
    with Waymarks(home, cwd=str(project), session=session) as app:
        manifest = app.projection.last_manifest()
    assert manifest is not None and "model limit" in str(manifest["fallback"])
    [ledger] = list((home / "sessions").rglob(f"*_{session}.jsonl"))
    assert PROMPT in ledger.read_text()  # recorded all the same


def test_the_window_table_and_the_transcript_reader() -> None:
    assert window_of("claude-haiku-4-5", None) == 200_000
    assert window_of("claude-sonnet-4-5[1M]", None) == 1_000_000
    assert window_of("gpt-9", 64_000) == 64_000 and window_of(None, None) is None
    assert claude_code_limits("/no/such/transcript.jsonl", 1000) == (1000, 0)
    assert claude_code_limits(None, None) == (None, 0)


def test_a_window_the_last_answer_already_passed_is_not_the_window() -> None:
    """Claude Code run with ``--model 'claude-sonnet-4-5[1m]'`` writes
    ``claude-sonnet-4-5`` in its transcript: past 200k tokens every prompt fell back and
    lost its pins. An answer that took more than the table's window shows a larger one."""
    assert window_of("claude-sonnet-4-5", None, used=150_000) == 200_000
    assert window_of("claude-sonnet-4-5", None, used=250_000) == 1_000_000
    assert window_of("claude-sonnet-4-5", None, used=1_200_000) is None  # unknown: no limit
    assert window_of("local-llm", 32_000, used=40_000) is None
    assert window_of("local-llm", 32_000, used=20_000) == 32_000
    # the home's window counts for a known model when larger; a project's alone does not
    assert window_of("claude-opus-4-1", 1_000_000, trust_default=True) == 1_000_000
    assert window_of("claude-opus-4-1", 1_000_000) == 200_000
    assert window_of("claude-opus-4-1", 100_000, trust_default=True) == 200_000


def test_a_1m_session_past_200k_keeps_its_pins(
        home: Path, project: Path, session: str, tmp_path: Path) -> None:
    """The real shape: the transcript names ``claude-sonnet-4-5`` (no ``[1m]``), the last
    answer took 250k tokens; the hook input names no model."""
    past = transcript(tmp_path / "t.jsonl", "claude-sonnet-4-5", 250_000)
    assert submit(home, project, session, past).startswith(PIN_BEGIN)
    # below 200k, the person's home window says 1M: a request the table would refuse fits
    near = transcript(tmp_path / "n.jsonl", "claude-sonnet-4-5", 199_990)
    assert submit(home, project, session, near) == ""
    (home / "config.toml").write_text("[context]\ndefaultContextWindow = 1000000\n")
    assert submit(home, project, session, near).startswith(PIN_BEGIN)
    # a trusted repository's window alone does not widen the table's
    (home / "config.toml").write_text("")
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "config.toml").write_text(
        "[context]\ndefaultContextWindow = 1000000\n")
    assert submit(home, project, session, near) == ""


def test_a_repository_cannot_lift_the_homes_default_window(
        home: Path, project: Path, session: str, tmp_path: Path) -> None:
    """``defaultContextWindow`` is only lowered by a trusted project, and a value the hook
    cannot take for a window (text, 0, a fraction) is not a way around that: it read as
    "no window", so the home's limit was gone and every memory went in again."""
    unknown = transcript(tmp_path / "t.jsonl", "local-llm", 5000)
    roomy = submit(home, project, session, unknown)
    (home / "config.toml").write_text(
        f"[context]\ndefaultContextWindow = {5000 + len(roomy) // 4 // 2}\n")
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
    (project / ".waymarks").mkdir()
    for value in ('"none"', "0", "-1", "1.5", "true", "100000000"):
        (project / ".waymarks" / "config.toml").write_text(
            f"[context]\ndefaultContextWindow = {value}\n")
        tight = submit(home, project, session, unknown)
        assert tight.startswith(PIN_BEGIN), value
        assert 0 < tight.count(MEMORY_BEGIN) < len(TOPICS), value


def _hook_output(home: Path, project: Path, sid: str, prompt: str) -> dict[str, Any]:
    body = {"session_id": sid, "cwd": str(project), "hook_event_name": "UserPromptSubmit",
            "prompt": prompt}
    done = hook(home, body)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def test_the_added_context_stays_within_what_claude_code_keeps(home: Path, project: Path,
                                                               session: str) -> None:
    """Claude Code keeps at most 10,000 characters of a hook's context (past it, the model
    saw a 2 KB preview: 4 of 25 pins). Memory past the cap is left out, lowest priority
    first; pins that do not fit are not cut: nothing is added and both hear why."""
    sid = session
    with Waymarks(home, cwd=str(project), session=sid) as app:
        for n in range(8):
            app.pin(f"Rule {n}: keep the deploy checklist step {n} before merging.")
        for n in range(40):
            filler = " ".join(f"w{n}x{k}" for k in range(30))
            app.remember(f"The deploy checklist step {n} requires {filler}")
    out = _hook_output(home, project, sid, PROMPT)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 10_000 and "systemMessage" not in out
    assert context.startswith(PIN_BEGIN) and context.count("Rule ") == 8
    assert context.count(MEMORY_BEGIN) > 0
    with Waymarks(home, cwd=str(project), session=sid) as app:
        manifest = app.projection.last_manifest()
    assert manifest is not None and "the host's cap on added context" in json.dumps(manifest)
    with Waymarks(home, cwd=str(project), session=sid) as app:
        for n in range(25):
            app.pin(f"Long rule {n}: " + "keep every step of the checklist " * 12)
    out = _hook_output(home, project, sid, PROMPT)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert PIN_BEGIN not in context and "Long rule" not in context
    assert "more than the host takes as added context" in context
    assert out["systemMessage"] == context and len(context) < 1_000


def test_pins_over_the_pin_budget_are_said(
        home: Path, project: Path, session: str, tmp_path: Path) -> None:
    """Pins over `maxPinnedTokens` fall back as pins over the hook's cap do: nothing is
    added and the person hears why (their pins did not go; a fallback for the model's own
    limit stays silent: `test_when_not_even_the_pins_fit_…`)."""
    (home / "config.toml").write_text("[context]\nmaxPinnedTokens = 5\n")
    out = _hook_output(home, project, session, PROMPT)
    assert out["systemMessage"].startswith("Waymarks added no context: pins need ")
    assert "more than the pin budget (5)" in out["systemMessage"]


def test_pis_fixed_part_is_counted_in_the_extensions_tokens_when_it_sends_them() -> None:
    """The extension counts tokens by the planner's rule; an older one sends characters
    only, read as mostly ASCII text; a bad count falls back to the characters."""
    chars = {"systemChars": 400, "toolsChars": 800, "messagesChars": 3300}
    assert pi_fixed_tokens(chars) == 100 + 200 + 825
    tokens = {**chars, "systemTokens": 100, "toolsTokens": 200, "messagesTokens": 3300}
    assert pi_fixed_tokens(tokens) == 3600
    assert pi_fixed_tokens({**tokens, "messagesTokens": -1}) == 100 + 200 + 825
    assert pi_fixed_tokens({**tokens, "toolsTokens": True}) == 100 + 200 + 3300
    assert pi_fixed_tokens(None) == 0


def test_a_subagents_answer_is_not_what_the_session_has_taken(tmp_path: Path) -> None:
    """Claude Code versions that keep a subagent's messages in the session's own file
    mark them ``isSidechain``; one written last (a task interrupted, or run in the
    background) is the subagent's context, not the conversation's."""
    path = transcript(tmp_path / "t.jsonl", "claude-sonnet-4-5", 30_000)
    subagent = {"type": "assistant", "isSidechain": True, "message": {
        "role": "assistant", "model": "claude-haiku-4-5", "content": [],
        "usage": {"input_tokens": 199_990, "output_tokens": 5}}}
    with path.open("a") as file:
        file.write(json.dumps(subagent) + "\n")
    assert claude_code_limits(str(path), None) == (200_000, 30_000)


def test_a_relative_transcript_path_is_no_transcript(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Read relative to the process's folder, a relative ``transcript_path`` named a file
    of the project without the helper and one of the home with it (the helper runs
    there): one prompt planned two ways. Claude Code names it absolute; capture and the
    Stop hook already refused anything else."""
    transcript(tmp_path / "t.jsonl", "claude-sonnet-4-5", 199_990)
    monkeypatch.chdir(tmp_path)
    assert claude_code_limits("t.jsonl", None) == (None, 0)
    assert claude_code_limits(str(tmp_path / "t.jsonl"), None) == (200_000, 199_990)
