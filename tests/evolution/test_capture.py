"""Capture (EVOLUTION items 8-10): which user text is a statement (positive and negative
fixtures, F6 included), summary claims under recognised headings (nested fences), and the
Claude Code ``Stop``/``PreCompact`` hooks through the real entry point on a real
transcript: off by default, user text only, idempotent, sanitized, subagents skipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from waymarks.core.evolution.capture import is_statement, sanitize, summary_claims
from waymarks.core.evolution.cues import intent
from waymarks.service.capture_spool import BEHIND_TRIES, pending
from waymarks.service.evolution import Evolution, drain_captures, ledger_path

SESSION = "0f0e0d0c-0b0a-4009-8008-070605040302"

POSITIVE = [
    "Remember: we deploy with Kamal, not Capistrano.",
    "I prefer small pull requests, under 300 lines.",
    "Our priorities are reliability first, then speed.",
    "From now on, use pnpm instead of npm in this repo.",
    "We decided to keep the API versioned under /v2.",
    "我们的核心需求是稳定性和可回滚。",
    "记住：数据库用 Postgres 16。",
    "以后不要用 npm，用 pnpm。",
    # a standing "don't" is a cue as 不要 is (a review: "Do not …" read as a question,
    # "Don't …" as no cue, while "不要用 npm，用 pnpm。" was captured)
    "Do not use npm in this repo, use pnpm.",
    "Don't add new dependencies without asking.",
    "Please don’t commit generated files.",
    "不要用 npm，用 pnpm。",
]
NEGATIVE = [
    "Don't worry about the tests for now, just get it compiling.",  # F6: one-off
    "Never seen this error before, what is it?",  # F6: a question
    "What did we decide about the database?",  # recall question
    "Do you remember which port staging uses?",
    "remind me what we use for deploys",
    "continue",
    "ok",
    "> remember to always use tabs",  # a quoted example
    '"I prefer tabs" is what the linter message says',
    "Fix the failing test in parser.py",  # a task, no cue
    "For now, always skip the slow tests.",  # one-off despite the cue
    "还记得数据库用什么吗？",
    "Do not run the migrations right now.",  # a one-off "don't"
    "Do note the failing port?",
    # a "don't" bounded to now or to this piece of work was captured as a standing rule
    # ("Do not push yet." could be learned as "Do not push", and planned in every session)
    "Do not push yet.",
    "Don't merge this branch yet, CI is red.",
    "Don't commit the lockfile in this PR.",
    "Don't edit setup.py yet.",
    "Please do not touch the schema in this commit.",
]


@pytest.mark.parametrize("text", [
    "Don't use tabs in this repo. The release isn't out yet.",
    "Don't commit generated files; the new CI is not ready yet.",
    "Do not deploy on Fridays!\nThe dashboard is not finished yet.",
    "Don't use tabs. Not yet supported by the formatter.",
])
def test_a_standing_dont_beside_another_sentences_yet_is_kept(text: str) -> None:
    """The "yet" of a later sentence made the whole message a one-off "don't": dropped,
    its standing rule with it."""
    assert is_statement(text)


@pytest.mark.parametrize("text", [
    "Don't push... yet.",
    "Don't push…yet",
    "Do not merge this PR... yet, CI is red.",
    "Don't merge. Not yet.",
    "Do not deploy it! Not yet, anyway.",
    "Don't release v2.0.\nNot just yet.",
])
def test_a_dont_whose_yet_follows_an_ellipsis_or_stands_alone_is_one_off(text: str) -> None:
    """A "don't" held back only until later, its "yet" after an ellipsis or in a "Not
    yet." of its own: the rule that only the don't's own sentence counts (a re-read of
    it) took each for a standing rule, "Don't push" learned for good."""
    assert intent(text) == "one_off"
    assert not is_statement(text)


@pytest.mark.parametrize("text", POSITIVE)
def test_statements_are_captured(text: str) -> None:
    assert is_statement(text)


@pytest.mark.parametrize("text", NEGATIVE)
def test_questions_examples_and_one_offs_are_not(text: str) -> None:
    assert not is_statement(text)


def test_intent_names_why_and_agrees_with_is_statement() -> None:
    """Item 46: the snapshot's intent is the same decision as :func:`is_statement`, with
    the reason as a code."""
    from waymarks.core.evolution.cues import INTENTS, STATEMENT_INTENTS

    for text in (*POSITIVE, *NEGATIVE):
        assert intent(text) in INTENTS
        assert (intent(text) in STATEMENT_INTENTS) == is_statement(text), text
    assert [intent(t) for t in NEGATIVE] == [
        "one_off", "recall_question", "recall_question", "recall_question",
        "recall_question", "vague", "vague", "quoted", "quoted", "none", "one_off",
        "recall_question", "one_off", "question", "one_off", "one_off", "one_off", "one_off",
        "one_off"]
    assert intent("From now on, use pnpm instead of npm in this repo.") == "explicit"
    assert intent("We decided to keep the API versioned under /v2.") == "natural"
    assert intent("我们的核心需求是稳定性和可回滚。") == "natural"
    assert intent("Should we squash?") == "question" and intent("  ") == "vague"


def test_summary_claims_survive_nested_fences_and_headings() -> None:
    summary = "\n".join([
        "# Summary", "- not under a recognised heading",
        "## Key decisions", "- Use Postgres 16 for billing", "1. Keep the API under /v2",
        "````markdown", "## Decisions", "- inside a fence: not a claim", "```",
        "- still inside the outer fence", "```", "````",
        "### Open questions", "- Which CI runner?",
        "## Project state", "- Migration 9 is merged",
        "- x",  # too short
    ])
    assert summary_claims(summary) == ["Use Postgres 16 for billing", "Keep the API under /v2",
                                       "Migration 9 is merged"]
    assert len(summary_claims("## Decisions\n" + "\n".join(
        f"- decision number {i}" for i in range(30)))) == 16


def test_a_summary_bullet_left_holding_a_placeholder_is_not_a_local_claim(
        tmp_path: Path) -> None:
    """A compaction summary's bullet "We deploy with Kamal; token ghp_..." was kept as the
    local claim "We deploy with Kamal; token [REDACTED:github-token]" and injected into
    plans, where the same claim from a model is refused (`still_redacted`): Waymarks' own
    placeholder is nothing learned. The summary's other bullets are kept."""
    summary = ("## Decisions\n- We deploy with Kamal; token ghp_" + "a" * 36 + "\n"
               "- The cache is Redis 7\n")
    with Evolution(tmp_path) as evo:
        captured = evo.capture("/w/a", "summary", summary, session="s", key="c1")
        assert captured is not None and captured.local_claims == 1
        assert [c.content for c in evo.claims(["provisional"])] == ["The cache is Redis 7"]


def test_sanitize_withholds_local_only_and_redacts_credentials() -> None:
    kept = sanitize("use key ghp_" + "c" * 36 + " [ds4:internal]on the VPN[/ds4:internal] "
                    "[ds4:local-only]host zeta[/ds4:local-only]")
    assert kept is not None
    text, level = kept
    assert level == "internal" and "zeta" not in text and "ghp_" + "c" * 36 not in text
    assert "[REDACTED:" in text and "ds4:" not in text
    assert sanitize("[ds4:local-only]all private[/ds4:local-only]") is None


# -- the Claude Code hooks through the real entry point --------------------------------------

def _transcript(path: Path, *extra: dict[str, object]) -> Path:
    def user(uuid: str, content: object, **flags: object) -> dict[str, object]:
        return {"type": "user", "uuid": uuid, "sessionId": SESSION,
                "message": {"role": "user", "content": content}, **flags}

    lines = [
        user("u1", "Remember: we deploy with Kamal, not Capistrano."),
        {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Remember: I prefer verbose logs (assistant text)."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
        user("u2", [{"type": "tool_result", "tool_use_id": "t1",
                     "content": "I prefer tool output to be a preference"}]),
        user("u3", "What did we decide about the database?"),
        user("u4", [{"type": "text", "text": "I prefer small pull requests, token ghp_"
                     + "d" * 36}]),
        user("u5", "Remember the subagent's own preference", isSidechain=True),
        user("u6", "<command-name>/model</command-name> remember this command"),
        *extra,
        # the turn's reply: what a Stop's transcript ends with (a turn not yet written
        # waits, see test_capture_transcript_behind.py)
        {"type": "assistant", "uuid": "a2", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Done."}]}},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n{\"partial")
    return path


def _hook(home: Path, project: Path, event: str, transcript: Path,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    payload = {"session_id": SESSION, "cwd": str(project), "hook_event_name": event,
               "transcript_path": str(transcript)}
    if event == "PreCompact":
        payload["trigger"] = "auto"
    environment = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    environment.update({"WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": "", **(env or {})})
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "hook",
         "claude-code", event], input=json.dumps(payload), env=environment, cwd=project,
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _sources(home: Path) -> list[tuple[str, str]]:
    # the Stop hook only queues a capture request; a detached drainer stores it. Draining
    # here waits for that drainer (the spool lock) and stores what it has not yet
    drain_captures(home)
    if not ledger_path(home).is_file():
        return []
    with Evolution(home) as evo:
        return [(s.kind, s.text) for s in evo.store.sources()]


def _taken(home: Path) -> None:
    """Drain until the spool is empty: a ``Stop`` whose transcript holds no new turn waits
    there (``TranscriptBehind``) for :data:`BEHIND_TRIES` drains, its detached drainer's
    few included, before it is taken and stores nothing or something. Reading the ledger
    as the hook returns read it before any drain had taken the request (a bound on
    draining, not a timing assertion)."""
    for _ in range(2 * BEHIND_TRIES):
        drain_captures(home)
        if not pending(home):
            return
    raise AssertionError(f"the queued capture was never taken: {pending(home)}")


def _learning_on(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")


def trust_project(home: Path, project: Path) -> None:
    """Trust ``project``: only a trusted project's compaction summaries and work turns are
    captured (test_capture_untrusted.py, test_work_untrusted.py)."""
    from waymarks.service.trust import TrustStore

    project.mkdir(exist_ok=True)
    TrustStore(home).trust(str(project))


def test_stop_captures_nothing_while_learning_is_off(home: Path, project: Path,
                                                    tmp_path: Path) -> None:
    _hook(home, project, "Stop", _transcript(tmp_path / "t.jsonl"))
    assert _sources(home) == [] and not ledger_path(home).exists()


def test_stop_captures_user_statements_only_and_is_idempotent(
        home: Path, project: Path, tmp_path: Path) -> None:
    _learning_on(home)
    transcript = _transcript(tmp_path / "t.jsonl")
    _hook(home, project, "Stop", transcript)
    sources = _sources(home)
    assert [k for k, _ in sources] == ["statement", "statement"]
    texts = [t for _, t in sources]
    assert texts[0] == "Remember: we deploy with Kamal, not Capistrano."
    assert texts[1].startswith("I prefer small pull requests, token [REDACTED:")
    raw = ledger_path(home).read_text()
    for never in ("verbose logs", "tool output", "database?", "subagent", "/model",
                  "ghp_" + "d" * 36):
        assert never not in raw
    size = ledger_path(home).stat().st_size
    _hook(home, project, "Stop", transcript)
    _taken(home)
    assert ledger_path(home).stat().st_size == size  # same transcript, nothing new
    with Evolution(home) as evo:
        [origin] = {s.origin for s in evo.store.sources()}
    assert origin == os.path.realpath(project)


def test_bash_mode_input_and_output_are_not_the_persons_words(
        home: Path, project: Path, tmp_path: Path) -> None:
    """Claude Code's ``!`` bash mode stores the command and its output as plain user
    messages (no ``isMeta``): the output of ``cat notes/oncall.txt`` was captured as the
    person's own statement, the file's contents kept as a source for learning."""
    def bash(uuid: str, content: str) -> dict[str, object]:
        return {"type": "user", "uuid": uuid, "sessionId": SESSION, "userType": "external",
                "message": {"role": "user", "content": content}}

    _learning_on(home)
    _hook(home, project, "Stop", _transcript(
        tmp_path / "t.jsonl",
        bash("b1", "<bash-input>echo 'Remember: we always page Dana first.'</bash-input>"),
        bash("b2", "<bash-stdout>Remember: we always page Dana first, on-call rotates "
                   "weekly.</bash-stdout><bash-stderr></bash-stderr>"),
        bash("b3", "<bash-stdout></bash-stdout><bash-stderr>I prefer the staging token "
                   "in /etc/oncall</bash-stderr>")))
    texts = [t for _, t in _sources(home)]
    assert texts and texts[0] == "Remember: we deploy with Kamal, not Capistrano."
    assert not any("Dana" in t or "oncall" in t for t in texts), texts
    assert "Dana" not in ledger_path(home).read_text()


def test_a_subagent_process_is_skipped(home: Path, project: Path, tmp_path: Path) -> None:
    _learning_on(home)
    _hook(home, project, "Stop", _transcript(tmp_path / "t.jsonl"),
          env={"PI_SUBAGENT_AGENT_ID": "agent-7"})
    assert _sources(home) == []


@pytest.mark.slow
def test_precompact_captures_the_summary_and_its_local_claims_once(
        home: Path, project: Path, tmp_path: Path) -> None:
    _learning_on(home)
    summary = {"type": "user", "uuid": "c1", "isCompactSummary": True,
               # written after learning was turned on (one written before, or with no
               # time, is not taken: it may summarize what was said while it was off)
               "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
               "message": {"role": "user", "content":
                           "This session is being continued.\n## Decisions\n"
                           "- Billing uses Postgres 16\n## Notes\n- not a claim\n"}}
    transcript = _transcript(tmp_path / "t.jsonl", summary)
    trust_project(home, project)
    _hook(home, project, "PreCompact", transcript)
    _hook(home, project, "PreCompact", transcript)  # compacting twice: one source
    kinds = [k for k, _ in _sources(home)]
    assert kinds.count("summary") == 1 and kinds.count("statement") == 2
    with Evolution(home) as evo:
        [claim] = evo.claims(["provisional"])
    assert claim.content == "Billing uses Postgres 16"
    assert (claim.basis, claim.method) == ("summary", "local")


def test_the_warm_helper_path_captures_once_across_turns(home: Path, project: Path,
                                                         tmp_path: Path) -> None:
    from waymarks.hosts import claude_code_capture
    from waymarks.hosts.claude_code import handle
    from waymarks.service.app import Waymarks

    _learning_on(home)
    transcript = _transcript(tmp_path / "t.jsonl")
    payload = {"session_id": SESSION, "cwd": str(project), "hook_event_name": "Stop",
               "transcript_path": str(transcript)}
    with Waymarks(home, cwd=str(project)) as app:
        assert handle("Stop", payload, home, app) is None
        with transcript.open("a") as out:
            out.write("\n" + json.dumps({"type": "user", "uuid": "u9", "message": {
                "role": "user", "content": "From now on, use pnpm in this repo."}}) + "\n")
        handle("Stop", payload, home, app)
        handle("Stop", payload, home, app)
    try:
        texts = [t for _, t in _sources(home)]
        assert texts[-1] == "From now on, use pnpm in this repo." and len(texts) == 3
        assert not (home / "sessions").exists()  # Stop opens no Waymarks session
    finally:
        for evo in claude_code_capture._WARM.values():
            evo.close()
        claude_code_capture._WARM.clear()


# -- Pi, over the bridge ------------------------------------------------------------------

def test_pi_agent_end_and_session_compact_capture_through_the_bridge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.hosts.test_bridge import Host, converse, user

    monkeypatch.delenv("PI_SUBAGENT_AGENT_ID", raising=False)
    home = tmp_path / "home"
    _learning_on(home)
    assistant = {"type": "message", "id": "b1", "parentId": "a2",
                 "timestamp": "2026-11-30T10:00:03.000Z",
                 "message": {"role": "assistant", "content": [
                     {"type": "text", "text": "Remember: I prefer verbose logs."}]}}
    compaction = {"type": "compaction", "id": "k1", "parentId": "b1",
                  "timestamp": "2026-11-30T10:00:04.000Z", "firstKeptEntryId": "b1",
                  "summary": "## Decisions\n- Releases are cut from main on Fridays\n"}
    entries = [user("a2", "a1", "Remember: we deploy with Kamal, not Capistrano."),
               user("a3", "a2", "What did we decide about the database?"), assistant]
    trust_project(home, tmp_path / "project")
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "learn", "params": {"event": "agent_end", "users": ["a2", "a3"],
                                                 "sync": {"entries": entries,
                                                          "leafId": "b1"}}},
        {"id": 3, "method": "learn", "params": {"event": "agent_end", "users": []}},
        {"id": 4, "method": "learn", "params": {"event": "session_compact",
                                                 "sync": {"entries": [compaction],
                                                          "leafId": "k1"}}},
        {"id": 5, "method": "shutdown"},
    ], Host())
    results = {m["id"]: m.get("result") for m in out}
    assert results[2] == {"captured": 1} and results[3] == {"captured": 0}
    assert results[4] == {"captured": 1}
    sources = _sources(home)
    assert sources[0] == ("statement", "Remember: we deploy with Kamal, not Capistrano.")
    assert [k for k, _ in sources] == ["statement", "summary"]
    with Evolution(home) as evo:
        [claim] = evo.claims(["provisional"])
    assert claim.content == "Releases are cut from main on Fridays"
    assert "verbose logs" not in ledger_path(home).read_text()


def test_pi_capture_is_off_by_default_and_skips_subagents(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.hosts.test_bridge import Host, converse, user

    entries = [user("a2", "a1", "Remember: we deploy with Kamal, not Capistrano.")]
    request = {"id": 2, "method": "learn", "params": {
        "event": "agent_end", "sync": {"entries": entries, "leafId": "a2"}}}
    out = converse(tmp_path, [{"id": 1, "method": "initialize"}, request], Host())
    assert out[-1]["result"] == {"captured": 0, "skipped": "learning_off"}
    _learning_on(tmp_path / "home")
    monkeypatch.setenv("PI_SUBAGENT_AGENT_ID", "agent-3")
    out = converse(tmp_path, [{"id": 1, "method": "initialize"}, dict(request)], Host())
    assert out[-1]["result"] == {"captured": 0, "skipped": "subagent"}
    assert not ledger_path(tmp_path / "home").exists()


def _own_prompts() -> list[str]:
    from waymarks.personal.curation import curation_prompt, promotion_prompt

    return [curation_prompt("Remember that my bank is Chase."),
            promotion_prompt("/work/p", [{"type": "lesson",
                                          "text": "Always run migrations in one transaction"}])]


def test_prompts_waymarks_started_are_never_the_persons_statements(
        home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/remember``'s curation prompt and ``/notes promote``'s prompt are sent as the
    person's turn; they were captured as the person's statements (their instructions hold
    cues: "remember", "never") and sent to the learning model. Both capture paths."""
    from tests.hosts.test_bridge import Host, converse, user

    prompts = _own_prompts()
    _learning_on(home)
    _hook(home, project, "Stop", _transcript(tmp_path / "t.jsonl", *(
        {"type": "user", "uuid": f"w{n}", "sessionId": SESSION,
         "message": {"role": "user", "content": text}} for n, text in enumerate(prompts))))
    texts = [t for _, t in _sources(home)]
    assert texts and texts[0] == "Remember: we deploy with Kamal, not Capistrano."
    assert not any("waymarks-" in t or "Chase" in t for t in texts), texts

    monkeypatch.delenv("PI_SUBAGENT_AGENT_ID", raising=False)
    pi_home = tmp_path / "home"  # the bridge's (converse)
    _learning_on(pi_home)
    before = _sources(pi_home)
    for n, text in enumerate(prompts):
        out = converse(tmp_path, [
            {"id": 1, "method": "initialize"},
            {"id": 2, "method": "learn", "params": {"event": "agent_end", "sync": {
                "entries": [user(f"p{n}", "a1", text)], "leafId": f"p{n}"}}},
            {"id": 3, "method": "shutdown"}], Host())
        assert {m["id"]: m.get("result") for m in out}[2] == {"captured": 0}, text[:40]
    assert _sources(pi_home) == before
    assert [intent(p) for p in prompts] == ["own_prompt", "own_prompt"]  # said so
