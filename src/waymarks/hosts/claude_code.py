"""Claude Code hooks: ``waymarks hook claude-code EVENT`` with the hook's JSON on stdin.

Claude Code owns its transcript; Waymarks keeps its own ledger beside it, in the Pi
format, whose session ID is Claude Code's ``session_id`` (so the hook, the MCP server
and the CLI all find it by that ID).

- ``SessionStart``: bind (create if new) the ledger for ``session_id`` and ``cwd``.
- ``UserPromptSubmit``: record the prompt as a user entry (so a write the model proposes
  through MCP has the person's words as provenance), then answer with the plan (recall
  follows the conversation: the prompts already recorded on the ledger's active branch are
  its history, :func:`recent_prompts`) as
  ``additionalContext``, planned against the model's hard limit: the window of the model
  the transcript's last answer names (a table of known windows, else ``[context]
  defaultContextWindow``) and that answer's usage as what is already taken
  (:mod:`waymarks.hosts.model_limits`), and within the 10,000 characters Claude Code
  keeps of a hook's context (:data:`CONTEXT_TOKENS`).
- ``PreCompact``: record that Claude Code compacted (``waymarks-compaction-v1``); when
  learning is on, capture statements and compaction summaries from the transcript.
- ``Stop``: when learning is on, capture the person's statements from the transcript
  (:mod:`waymarks.hosts.claude_code_capture`; never a model call, no Waymarks app opened).
- ``SessionEnd``: record the end (``waymarks-session-end-v1``).
- ``PostToolUse`` / ``PostToolUseFailure``: when learning is on, record a bounded, redacted
  tool observation in the session's ledger; ``Stop`` then closes the turn as a work source
  (:mod:`waymarks.hosts.claude_code_observe`).

Each also notes the session as this project's current Claude Code session, which the MCP
server (``waymarks mcp --claude-code``) follows.

Malformed or unexpected input never blocks the person's prompt: the hook exits 0 with
nothing to add and logs why (event, code; never content).
"""

from __future__ import annotations

import os
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Final

from waymarks.core.c_json import dumps, loads
from waymarks.core.lazy_re import lazy
from waymarks.hosts.claude_code_said import (
    CONTEXT_CHARS,
    NOTES_CHARS,
    Said,
    home_command,
    told,
    unreadable_ledger,
    unusable,
)
from waymarks.hosts.hook_answer import write_answer
from waymarks.ledger.discovery import POINTER_DIR, pointer_path

#: bounds of the conversation read for recall (EVOLUTION.md item 15): trailing entries
#: and bytes of the ledger examined, and user prompts passed on (the planner keeps 6
#: slots of 2,048 bytes; topic-less turns share one, so a few more are offered). The
#: last ``HISTORY_TAIL_BYTES`` are read first, and more (up to ``HISTORY_MAX_BYTES``)
#: only while they hold fewer prompts: with learning on, 90 tool observations of a
#: command's long output filled 2 MiB and the subject of "and the port?" was lost
HISTORY_ENTRIES: Final = 4096
HISTORY_TAIL_BYTES: Final = 2 * 1024 * 1024
HISTORY_MAX_BYTES: Final = 32 * 1024 * 1024
HISTORY_PROMPTS: Final = 24
HISTORY_TURN_BYTES: Final = 2048
EVENTS: Final = ("SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd",
                  "PostToolUse", "PostToolUseFailure")
MAX_INPUT_BYTES: Final = 4 * 1024 * 1024
#: how long a hook waits for a database another process holds (the projection's 30 s
#: wait held a prompt past Claude Code's 10 s hook timeout: the person waited, and got no
#: context anyway). A hook gives up after about two such waits, well under 10 s, also
#: when a stalled helper first cost it the client's wait (``cc_client.ANSWER_TIMEOUT_S``)
HOOK_BUSY_TIMEOUT_MS: Final = 1_000
#: how long before a hook started the same prompt recorded counts as this hook's: the
#: same hook run from two scopes at once (a user and a project install), where the one a
#: warm helper answers records before the other's process has started; the next prompt
#: of a conversation comes after a whole model turn
TWIN_HOOK_MS: Final = 1_000
#: the planner's cap on added context for it: a token is at most 4 characters of the
#: planner's estimate (``core.tokens``), and the receipt and separators come on top
CONTEXT_TOKENS: Final = 2_300
#: a slash command ("/compact", "/model opus", "/project:fix 42"): a name with no second
#: slash, then a space or the end. A prompt that starts with a path ("/etc/nginx/nginx.conf
#: sets which port?", "/api/orders returns 500s") is a turn of the conversation: dropped
#: as a command, a follow-up after it lost its subject
SLASH_COMMAND: Final = lazy(r"\s*/[^\s/]+(?:\s|$)")
#: where a session ID (8-4-4-4-12 hex digits, either case) has its hyphens
_HYPHENS: Final = (8, 13, 18, 23)


def is_session_id(value: str) -> bool:
    """Whether ``value`` is a session ID as Claude Code writes one, read without a regular
    expression (its compile was ~0.7M instructions of every hook that no helper answered)."""
    return len(value) == 36 and all(
        char == "-" if at in _HYPHENS else char in "0123456789abcdefABCDEF"
        for at, char in enumerate(value))


class HookInputError(ValueError):
    """The hook input cannot be used; ``code`` names why (for the log)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def parse_input(event: str, raw: bytes) -> dict[str, Any]:
    if event not in EVENTS:
        raise HookInputError("unknown_event")
    if len(raw) > MAX_INPUT_BYTES:
        raise HookInputError("input_too_large")
    try:
        payload = loads(raw.decode("utf-8"))  # (json.loads without the json package)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise HookInputError("input_not_json") from exc
    if not isinstance(payload, dict):
        raise HookInputError("input_not_object")
    session_id, cwd = payload.get("session_id"), payload.get("cwd")
    if not isinstance(session_id, str) or not is_session_id(session_id):
        raise HookInputError("bad_session_id")
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        raise HookInputError("bad_cwd")
    name = payload.get("hook_event_name")
    if name is not None and name != event:
        raise HookInputError("event_mismatch")
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str) and "\x00" in transcript:  # names no file: a Stop's
        raise HookInputError("bad_transcript_path")  # was queued, then failed a spawn
    if event == "UserPromptSubmit":
        if not isinstance(payload.get("prompt"), str):
            raise HookInputError("bad_prompt")
        from waymarks.core.text import well_formed

        # half an emoji ("\ud83d", as Claude Code may send one) is U+FFFD: it failed to
        # encode when recorded, the prompt lost its context (and the helper its warm apps)
        payload["prompt"] = well_formed(payload["prompt"])
    return payload


def current_session_id(home: Path, project: str) -> str | None:
    """The Claude Code session a hook last saw in ``project`` (for the MCP server)."""
    return _pointed(pointer_path(home, project))


def pid_pointer(home: Path, pid: int) -> Path:
    """Where the hooks of the Claude Code process ``pid`` note its session: its MCP
    server (a child of it) acts on that one. With two Claude Code sessions open in one
    project, the project's pointer named whichever had the last hook, and each one's
    tools wrote into the other's session."""
    return home / POINTER_DIR / f"pid-{pid}.session"


def _pointed(path: Path) -> str | None:
    """The session ID a pointer file names (a regular file only: a FIFO put there is
    never waited on), or ``None``."""
    from waymarks.files.reading import read_regular

    try:
        value = read_regular(path, limit=128).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return value if is_session_id(value) else None


def project_of(payload: dict[str, Any], project: str | None) -> str:
    """The project a hook speaks for: Claude Code's project directory when it names one
    (``CLAUDE_PROJECT_DIR``), not the working directory, which moves with ``cd``."""
    if project and os.path.isabs(project) and os.path.isdir(project):
        return project
    return str(payload["cwd"])


def handle(event: str, payload: dict[str, Any], home: Path, app: Any = None,
           project: str | None = None, pid: int | None = None,
           started_ms: int | None = None, subagent: bool = False) -> dict[str, Any] | None:
    """Do what ``event`` asks; the JSON to print, or ``None`` for nothing. ``app``: a warm
    ``Waymarks`` for this project (the helper process keeps them); else one is opened.
    ``pid``: the Claude Code running the hook (``spawn.parent.claude_pid``), under which
    its session is noted (:func:`pid_pointer`). ``started_ms``: when the hook started
    (its client's time, before it asked the helper; else now): the prompt recorded since
    then by the helper or the hook's own process is this hook's, not recorded again.
    ``subagent``: the hook runs in a Pi subagent (its process's environment, which the
    helper is told: :data:`~waymarks.hosts.cc_client.SUBAGENT_ENV`): nothing is learned."""
    if event == "Stop":  # learning capture only: no Waymarks app, no model call
        from waymarks.hosts.claude_code_capture import capture

        said = capture(event, payload, home, app.cwd if app is not None else project_of(
            payload, project), warm=app is not None, subagent=subagent)
        _work(event, payload, home, project, app, said.get("captured"),  # the work turn
              subagent=subagent)
        return None
    if event in ("PostToolUse", "PostToolUseFailure"):  # one bounded work observation
        _work(event, payload, home, project, app, subagent=subagent)
        return None
    if app is None:
        from waymarks.service.app import Waymarks

        with Waymarks(home, cwd=project_of(payload, project), project_may_be_gone=True,
                      busy_timeout_ms=HOOK_BUSY_TIMEOUT_MS) as fresh:
            return handle(event, payload, home, fresh, pid=pid, started_ms=started_ms,
                          subagent=subagent)
    from waymarks.ledger.session_file import SessionFileError

    _fill_first(app)
    try:
        _bind(app, payload["session_id"].lower(), None if event == "SessionEnd" else pid)
    except SessionFileError:
        if event != "UserPromptSubmit" or not str(payload.get("prompt", "")).strip():
            raise
        return told(unreadable_ledger(app, payload["session_id"].lower()))
    from waymarks.service.planning import CLAUDE_CODE_PROVIDER

    app.host_provider = CLAUDE_CODE_PROVIDER  # what it adds goes to Claude Code's model
    if event == "UserPromptSubmit":
        prompt: str = payload["prompt"]
        if not prompt.strip():
            return None
        from waymarks.service.ports import epoch_ms

        # recorded first (a plan that fails loses nothing), once per hook: one both a
        # stalled or killed helper and its own process did is recorded by whichever came
        # first, and so is one hook Claude Code runs from two scopes at once (the faster
        # may record just before the slower starts: TWIN_HOOK_MS). Never by a longer age:
        # "yes" said again after a turn is a new one (it was dropped within 30 s)
        started = started_ms if started_ms is not None else epoch_ms(app.clock.now())
        entry = app.session_say(prompt, unless_since_ms=started - TWIN_HOOK_MS)
        receipt = _feedback(app, home, prompt, entry)  # before the plan: counts now
        from waymarks.service.outcomes import ServiceError

        learned: str | None = None
        try:
            context, dropped, learned = _plan(app, prompt, payload.get("transcript_path"))
        except ServiceError as exc:  # (the prompt is recorded, its feedback applied)
            dropped = unusable(app, exc)
            if dropped is None:
                raise
            context = ""
        if dropped is not None:  # the person hears it too (their pins did not go)
            context = ""
        note, app.recall_note = app.recall_note, None  # (memory left out: not indexed yet)
        # a full disk: the plan read the database as it is (the command line says so too;
        # the home's path to the person only)
        stale = _stale(app) if app.stale_note else None
        notes = [line for line in (receipt, dropped, stale, note,
                                   learned if dropped is None else None) if line is not None]
        if notes:
            return told(*notes, context=context)
        return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                       "additionalContext": context}} if context else None
    if event == "PreCompact":
        trigger = payload.get("trigger")
        app.append_record("waymarks-compaction-v1", {
            "trigger": trigger if trigger in ("manual", "auto") else "unknown"})
        from waymarks.hosts.claude_code_capture import capture

        # statements, summaries; Claude Code waits for this hook: the hook's own bound
        capture(event, payload, home, app.cwd, busy_timeout_ms=app.busy_timeout_ms,
                subagent=subagent)
    elif event == "SessionEnd":
        reason = payload.get("reason")
        app.append_record("waymarks-session-end-v1", {
            "reason": reason if isinstance(reason, str) and len(reason) <= 40 else "unknown"})
        if pid is not None:  # the process is ending: its note goes (one per process else)
            pointer = pid_pointer(home, pid)
            if _pointed(pointer) == payload["session_id"].lower():
                pointer.unlink(missing_ok=True)
    return None


def _stale(app: Any) -> Said:
    """What a plan on a full disk tells the person and the model (``app.stale_note``): the
    full disk's module is imported only then."""
    from waymarks.service.projection_fill import stale_for_model

    return Said(f"Waymarks: {app.stale_note}.", f"Waymarks: {stale_for_model(app)}.")


def _fill_first(app: Any) -> None:
    """Fill a new database before the session's ledger is read (without its checkpoint,
    it is read whole); one left to a process of its own (too long for a hook:
    :data:`~waymarks.service.projection_fill.FILLING`) is no reason not to bind the
    session and record the prompt: the ledger needs no database, and the plan says why
    nothing was added."""
    from waymarks.service.outcomes import ServiceError

    try:
        app.projection  # noqa: B018
    except ServiceError as exc:
        from waymarks.service.projection_fill import FILLING

        if exc.code != FILLING:
            raise


def close_work_turn(raw: bytes, home: Path, project: str | None, *,
                    observed: bool = True) -> None:
    """``Stop``'s work turn (issue 19) when the statement capture went through the spool
    (:mod:`waymarks.hosts.cc_helper`): the spool's drainer stores statements only, so the
    turn's tool observations are closed here. ``observed=False``: none was recorded since
    the last close, so only a statement turn without tools is noted (item 46). Bad input
    does nothing (it was logged)."""
    try:
        payload = parse_input("Stop", raw)
    except HookInputError:
        return
    _work("Stop", payload, home, project, None, observed=observed)


def _work(event: str, payload: dict[str, Any], home: Path, project: str | None,
          app: Any, statements: int | None = None, *, observed: bool = True,
          subagent: bool = False) -> None:
    """Work observations (:mod:`waymarks.hosts.claude_code_observe`): a tool event records
    one, ``Stop`` closes the turn. Learning off, a subagent's hook or nothing to record
    opens no app."""
    from waymarks.hosts import claude_code_observe as observe

    cwd = app.cwd if app is not None else project_of(payload, project)
    if subagent or not observe.learning_on(home, cwd):
        return
    if event == "Stop":  # reads the session's ledger; creates nothing, opens no app
        observe.close_turn(payload, home, cwd, app.bound_session if app is not None else None,
                           statements, observed=observed)
        return
    data = observe.observation(event, payload)
    if data is None:
        return
    if not observe.project_trusted(home, cwd):  # the repository's output: none of it kept
        data = observe.withheld(data)
    if app is None:
        from waymarks.service.app import Waymarks

        with Waymarks(home, cwd=cwd, busy_timeout_ms=HOOK_BUSY_TIMEOUT_MS,
                      project_may_be_gone=True) as fresh:
            _work(event, payload, home, project, fresh)
        return
    _bind(app, payload["session_id"].lower())
    # once per tool call: a stalled helper and the hook's own process may both record it
    app.append_record(observe.OBSERVATION_TYPE, data,
                      lambda session: observe.recorded(session, data["id"]))


def _bind(app: Any, session_id: str, pid: int | None = None) -> None:
    """Use (or create) the ledger whose session ID is Claude Code's, and point to it: from
    the project, and from the Claude Code process running the hook (``pid``)."""
    current = app.bound_session
    if current is None or current.session_id != session_id:  # a warm app may hold it
        from waymarks.service.sessions_api import host_session

        app.bind_session(host_session(app, session_id))
    pointers = [("project", pointer_path(app.home, app.cwd))] + \
        ([("process", pid_pointer(app.home, pid))] if pid is not None else [])
    for kind, pointer in pointers:
        if _pointed(pointer) == session_id:
            continue  # every prompt binds: a pointer already right costs no write (nor
            # the import of the modules writing one)
        from waymarks.files.atomic import write_atomic
        from waymarks.files.dirs import make_private_dirs

        try:
            make_private_dirs(pointer.parent)  # under the home, which may be made here
            write_atomic(pointer, session_id)
        except OSError as exc:
            # a pointer that cannot be written (a directory put there): the MCP server
            # follows the other notes it has; the prompt is not held up for it (it lost
            # its context and its record for a project's). Logged; `health` names one
            # that is not a regular file
            from datetime import UTC, datetime

            from waymarks.service.logs import log_event

            log_event(app.home, datetime.now(UTC), "claude_code_pointer_skipped",
                      kind=kind, code=type(exc).__name__)


def _feedback(app: Any, home: Path, prompt: str, entry: str) -> str | None:
    """The receipt of the natural feedback ``prompt`` gives (``None``: it gives none),
    keyed by the prompt's entry in the session ledger (see ``claude_code_feedback``)."""
    if "memory" not in prompt.lower() and "记忆" not in prompt:  # the common prompt
        return None
    from waymarks.core.evolution.feedback import parse_feedback

    if parse_feedback(prompt) is None:
        return None
    from waymarks.hosts.claude_code_feedback import prompt_feedback

    return prompt_feedback(home, app.bound_session.session_id, entry, prompt,
                           app.busy_timeout_ms)


def _plan(app: Any, prompt: str,
          transcript: object = None) -> tuple[str, str | None, str | None]:
    """The added context; when the plan fell back (nothing added), why; and when it left
    learned memory out (a build of its index or a fold too long for a hook: the person
    learned with no word that what they had learned stopped reaching the model), why,
    as Pi's bridge tells it."""
    from waymarks.hosts.model_limits import claude_code_limits, configured_window
    from waymarks.personal.setup import plan_with_memory
    from waymarks.service.planning import prompt_read

    settings = app.settings()
    limit, used = claude_code_limits(transcript, configured_window(settings.raw),
                                     settings.home_sets_window)
    session = app.current_session()
    history = recent_prompts(session, prompt) if session is not None else []
    read, rest = prompt_read(prompt)  # (the prompt is recorded whole)
    plan = plan_with_memory(app, read, model_limit=limit, fixed_tokens=used + rest,
                            history=history, context_cap=CONTEXT_TOKENS)
    context = "\n\n".join(m.content for m in plan.messages if m.kind != "request")
    if plan.pins_left_out or len(context) > CONTEXT_CHARS - NOTES_CHARS:
        # nothing rather than a cut block; the model and the person hear why (a fallback
        # for the model's own limit stays silent: its context is full already)
        return "", (f"Waymarks added no context: {plan.fallback or 'too long for a hook'} "
                    f"(Claude Code takes at most {CONTEXT_CHARS:,} characters from a hook; "
                    f"`{home_command(app.home, 'manifest')}` shows what was left out)."), None
    # a plan's notes are learned memory's: left out for now, or its ledger unreadable
    # (named with the fix; that one was dropped here, docs/hosts.md says the hook gives it)
    return context, None, f"Waymarks: {plan.notes[0]}." if plan.notes else None


def recent_prompts(session: Any, prompt: str) -> list[str]:
    """The person's earlier prompts on the active branch, oldest first, for recall.

    Read from the end of the ledger only (the last ``HISTORY_ENTRIES`` lines of at most
    ``HISTORY_MAX_BYTES``, more than ``HISTORY_TAIL_BYTES`` only while fewer than the
    earlier turns the planner uses (:func:`~waymarks.service.planning.history_turns`) are
    found; at most
    ``HISTORY_PROMPTS`` of those read are passed): user messages on the active branch, without
    slash commands and without the current prompt (recorded just before). Assistant,
    tool and custom entries never count. Anything unreadable is skipped: recall then
    plans the prompt alone, which is what it did without history."""
    from waymarks.ledger.entries import recent_messages
    from waymarks.service.planning import history_turns

    def said(message: Any) -> bool:
        return bool(message.role == "user" and message.text.strip()  # (no "/": no command)
                    and not ("/" in message.text and SLASH_COMMAND.match(message.text)))

    import sqlite3

    try:  # the current prompt, and the earlier ones passed: the branch is asked of those
        texts = [m.text for m in recent_messages(
            session, HISTORY_MAX_BYTES, HISTORY_ENTRIES, first_bytes=HISTORY_TAIL_BYTES,
            enough=lambda found: len(found) > history_turns(), keep=said,
            last=HISTORY_PROMPTS + 1)]
    except sqlite3.Error:  # the branch's index, in a database damaged under this hook:
        return []  # the plan's own read of it repairs it (a failure here lost the pins)
    if texts and texts[-1] == prompt:
        texts.pop()
    # each turn is clipped again by the recall planner; here only so a long paste is not
    # carried whole
    return [t.encode()[:HISTORY_TURN_BYTES].decode("utf-8", "ignore")
            for t in texts[-HISTORY_PROMPTS:]]


def main(argv: list[str], home: Path, raw: bytes | None = None,
         project: str | None = None, pid: int | None = None,
         started_ms: int | None = None, *, helper_next: bool = False) -> int:
    """The hook entry point; always exits 0 (a failed hook must not block the prompt).
    ``started_ms``: when the hook's client started, if it asked a helper first.
    ``helper_next``: a helper is started for the next prompts once this one is answered:
    a prompt's recall here is by words only (:mod:`waymarks.service.recall_mode`)."""
    event = argv[0] if argv else ""
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    try:
        data = raw if raw is not None else sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        payload = parse_input(event, data)
        mode: Any = nullcontext()
        if helper_next and event == "UserPromptSubmit":
            from waymarks.service.recall_mode import words_only

            mode = words_only()
        with mode:
            output = handle(event, payload, home, project=project, pid=pid,
                            started_ms=started_ms if started_ms is not None
                            else int(now.timestamp() * 1000),
                            # this process's own (``cc_client.SUBAGENT_ENV``)
                            subagent=bool(os.environ.get("PI_SUBAGENT_AGENT_ID")))
        if output is not None:  # bytes: any locale's stdout encoding would do otherwise
            write_answer(dumps(output).encode("utf-8"))
    except HookInputError as exc:
        _log(home, now, event, exc.code)
    except Exception as exc:  # noqa: BLE001 (never block the person's prompt)
        _log(home, now, event, error_code(exc))
        said = unusable_home(event, exc)
        if said is not None:
            write_answer(dumps(said).encode("utf-8"))
    return 0


#: errors of a home no hook can use until the person acts (a database a newer release
#: wrote) or a process has filled its new database (``projection_filling``), said on
#: every prompt, not only logged
_SAID_ERRORS: Final = frozenset({"schema_too_new", "projection_filling"})


def unusable_home(event: str, exc: BaseException) -> dict[str, Any] | None:
    """What a prompt's hook answers when ``exc`` (one of :data:`_SAID_ERRORS`, a folder
    or file of the home this user may not enter or read: ``sessions/`` at mode 000, or a
    database file that is none: a directory) kept it from opening the home: before,
    nothing, so every pin silently stopped reaching the model (only the log said why).
    The error's own words: they name the file and the fix, and never hold stored text."""
    if event != "UserPromptSubmit":
        return None
    from waymarks.service.recovery import UnusableDatabase

    if isinstance(exc, PermissionError):
        from waymarks.files.errors import fix_for, os_error_cause

        return told("Waymarks added no context and did not record this prompt: "
                     f"{os_error_cause(exc)}{fix_for(exc)}")
    code = error_code(exc)
    if code not in _SAID_ERRORS and not isinstance(exc, UnusableDatabase):
        return None
    from waymarks.service.projection_fill import FILLING

    if code == FILLING:  # (the prompt is recorded before: handle, _fill_first)
        return told(f"Waymarks added no context: {exc}")
    return told(f"Waymarks added no context and did not record this prompt: {exc}")


def error_code(exc: BaseException) -> str:
    """What a hook's log says of an error: a ``ServiceError``'s code (``bad_config``,
    which was logged as ``ServiceError``, naming nothing), else the exception's type."""
    from waymarks.service.outcomes import ServiceError

    return exc.code if isinstance(exc, ServiceError) else type(exc).__name__


def _log(home: Path, now: Any, event: str, code: str) -> None:
    from waymarks.service.logs import log_event

    log_event(home, now, "claude_code_hook_skipped",
              kind=event if event in EVENTS else "unknown", code=code)


def follower(app: Any) -> Any:
    """For ``waymarks mcp --claude-code``: before each tool call, act on the session of
    the Claude Code that started this server: the one its hooks noted under its process
    (:func:`pid_pointer`; the server is its child), else the one it gave the server
    (``CLAUDE_CODE_SESSION_ID``, Claude Code 2.1.154 and later; it stays the first after
    ``/clear``), else the one the hooks last saw in this project (any Claude Code)."""
    from waymarks.ledger.discovery import is_project_session, session_dir
    from waymarks.ledger.session_file import SessionFile
    from waymarks.spawn.parent import claude_pid

    given = os.environ.get("CLAUDE_CODE_SESSION_ID", "").lower()
    claude = claude_pid()  # this server's parent, past a shell

    def follow() -> None:
        session = app.current_session()
        for wanted in (_pointed(pid_pointer(app.home, claude)),
                       given if is_session_id(given) else None,
                       current_session_id(app.home, app.cwd)):
            if wanted is None:
                continue
            if session is not None and session.session_id == wanted:
                return
            # /x/a-b and /x/a/b share a directory (and a pointer): only this project's
            named = sorted(session_dir(app.home, app.cwd).glob(f"*_{wanted}.jsonl"))
            found = [p for p in named if is_project_session(p, app.cwd)]
            if found:
                app.bind_session(SessionFile.open(found[0]))
                return
            _refuse_unreadable(app.home, named)

    return follow


def _refuse_unreadable(home: Path, named: list[Path]) -> None:
    """Refuse a tool call (``SessionFileError``: the tool answers ``unavailable``,
    ``bad_session``) when the ledger of the session followed is there but its first line
    is no session header (a hand edit, a bad byte). Passed over, the server acted on
    another session, or made one at the first write: a pin the person confirmed was
    reported committed where Claude Code's hooks never read it. The hooks tell the person
    and the model which file, and `waymarks health` how to go on."""
    from waymarks.ledger.discovery import read_header
    from waymarks.ledger.session_file import SessionFileError

    for path in named:
        if read_header(path) is None:
            raise SessionFileError(f"{path}: Claude Code's session ledger cannot be read "
                                   "(its first line is not a session header); nothing was "
                                   f"read or written. `{home_command(home, 'health')}` in "
                                   "this project says what to fix")
