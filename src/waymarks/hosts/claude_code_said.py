"""What a Claude Code prompt's hook says when it adds no context (the hook itself:
:mod:`waymarks.hosts.claude_code`): to the person (``systemMessage``) and to the model
alike, naming the file or the command that mends it, never what a file holds; each skip
logged (``claude_code_hook_skipped``).
"""


from pathlib import Path
from typing import Any, Final, NamedTuple

#: the errors of a file of the person's that a plan reads and cannot use (the home's or a
#: trusted project's ``config.toml``; the home's trust list): the hook says so
UNUSABLE_FILES: Final = ("bad_config", "bad_trust_file")


#: Claude Code keeps at most this many characters of a hook's ``additionalContext``; past
#: it, the whole text goes to a file and the model sees a 2 KB preview (4 of 25 pins)
CONTEXT_CHARS: Final = 10_000
#: what a plan leaves of :data:`CONTEXT_CHARS` for the hook's own notes: at least the one
#: line :func:`told` adds when some do not fit
NOTES_CHARS: Final = 500


class Said(NamedTuple):
    """A note said one way to the person and another to the model (a full disk's: the
    person is told the home's path, the model the note without it)."""

    person: str
    model: str


def told(*notes: str | Said, context: str = "") -> dict[str, Any]:
    """A prompt's answer that says ``notes`` (one a line) to the person and to the model
    (before the ``context`` added, if any; a :class:`Said` says its ``person`` to the
    person and its ``model`` to the model). The person hears them all; the model's text
    stays within :data:`CONTEXT_CHARS` (each note may name a command for a home whose path
    is long: three of them outgrew :data:`NOTES_CHARS`, and past the limit the model got a
    preview, most pins lost): the context goes whole, the notes in their order (the first
    the most important) while each fits whole, and one line says how many did not."""
    room = CONTEXT_CHARS - (len(context) + 2 if context else 0) - len(_left_out(len(notes)))
    kept: list[str] = []
    for note in (n.model if isinstance(n, Said) else n for n in notes):
        if len(note) + 1 <= room:
            kept.append(note)
            room -= len(note) + 1
    if len(kept) < len(notes):
        kept.append(_left_out(len(notes) - len(kept)))
    said = "\n".join(kept)
    heard = (n.person if isinstance(n, Said) else n for n in notes)
    return {"systemMessage": "\n".join(heard), "hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": f"{said}\n\n{context}" if context else said}}


def _left_out(count: int) -> str:
    return (f"Waymarks: {count} more note{'s' if count > 1 else ''} to the person did not fit "
            f"in what Claude Code takes from a hook ({CONTEXT_CHARS:,} characters).")


def skipped(app: Any, code: str) -> None:
    from datetime import UTC, datetime

    from waymarks.service.logs import log_event

    log_event(app.home, datetime.now(UTC), "claude_code_hook_skipped",
              kind="UserPromptSubmit", code=code)


def home_command(home: Path, *words: str) -> str:
    """:func:`~waymarks.core.text.named_command` for this home (imported when a message
    names one: not on every hook's path)."""
    from waymarks.core.text import named_command

    return named_command(str(home), *words)


def unreadable_ledger(app: Any, session_id: str) -> str:
    """What the person and the model hear when the session's own ledger cannot be read
    (its first line damaged by a hand edit or a bad byte): no context, and the prompt not
    recorded. Before, every later prompt of the session went that way in silence, with
    ``SessionFileError`` only in the log. The file by name only, never what it holds;
    ``waymarks health`` says how to go on (move it aside: the session's next prompt starts
    a new ledger, and the file is kept)."""
    from waymarks.ledger.discovery import ledger_of, session_dir

    skipped(app, "bad_session")
    path = ledger_of(app.home, session_id, app.cwd) or session_dir(app.home, app.cwd)
    return (f"Waymarks added no context and did not record this prompt: this session's "
            f"ledger cannot be read ({path}); `{home_command(app.home, 'health')}` in this "
            "project says what to fix.")


def unusable_config(app: Any, code: str = "bad_config") -> str:
    """What the person hears when a configuration file cannot be used: no context at all
    (before, nothing was said, and ``bad_config`` was logged as ``ServiceError``; a
    damaged trust list, ``bad_trust_file``, took every prompt's pins, session pins too,
    in silence until a review). The files by name only: the error's text may quote what
    they hold."""
    from waymarks.service.config import CONFIG_FILE, PROJECT_CONFIG

    skipped(app, code)
    files = [str(app.trust_store.path)] if code == "bad_trust_file" else [
        str(p) for p in (app.home / CONFIG_FILE, *(
            [Path(app.cwd) / PROJECT_CONFIG] if app.project_trusted else [])) if p.exists()]
    return (f"Waymarks added no context: a configuration file cannot be used "
            f"({', '.join(files) or CONFIG_FILE}); `{home_command(app.home, 'status')}` in "
            "this project says what to fix.")


def unusable(app: Any, exc: Exception) -> str | None:
    """What the person and the model hear when the plan failed with ``exc`` (a
    ``ServiceError``) for a reason only the person can mend: a configuration file that
    cannot be used, or a semantic extra installed but broken (its error names the ways
    out: every plan failed, and the hook answered nothing, every pin gone from the
    model's context and only the log saying why); ``None`` for any other error."""
    code = getattr(exc, "code", None)
    if code in UNUSABLE_FILES:
        return unusable_config(app, code)
    from waymarks.service.projection_fill import FILLING
    from waymarks.service.semantic_recall import BROKEN

    if code not in (BROKEN, FILLING):
        return None
    skipped(app, code)
    from waymarks.core.text import escaped

    # the engine's error holds a library's or a path's text as it is: a line break there
    # started a line of its own before the person and the model, an ESC drove the
    # terminal; escaped on one line, as every diagnostic of the command line is
    return f"Waymarks added no context: {escaped(str(exc))}"
