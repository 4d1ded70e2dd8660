"""The inspector's actions: each one is a command of the command table, run through it.

A form on a page names an action and its fields; :func:`command_line` turns them into the
exact command line the CLI would run (``memory supersede -- ID TEXT``), and :func:`run`
runs it with :func:`waymarks.commands.base.invoke`, so the page and the CLI share one
implementation: the same service call, the same rules, the same refusals (with their
codes and conflicting IDs) and notices. Nothing here writes by itself.

What must stay true: every field a form carries is passed after ``--`` (or joined to its
option, ``--key=…``), so an ID or a text that looks like an option is that ID or text;
an action is performed only after the person confirmed it on the page
(:mod:`waymarks.web.app` shows the command line first), and every refusal comes before
that question: :func:`rehearse` runs the command with the service rehearsing (every
check, nothing appended); a failure of the service is reported as a failure, never as
success.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import click
import msgspec

from waymarks.commands.base import Result, Runtime, Shown, invoke
from waymarks.commands.table import build
from waymarks.core.secrets import redact
from waymarks.service.outcomes import Rehearsed, ServiceError
from waymarks.service.sessions_api import named_session

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


class BadAction(ValueError):
    """A form that names no known action or lacks a field: nothing is run."""


class Action(msgspec.Struct, frozen=True):
    label: str  # what the confirmation asks ("Supersede memory")
    fields: tuple[str, ...]  # form fields it needs (beyond the action's name)
    line: Callable[[Mapping[str, str]], list[str]]
    optional: tuple[str, ...] = ()


def _reason(form: Mapping[str, str]) -> list[str]:
    reason = form.get("reason", "").strip()
    return [reason] if reason else []


# Every field's text is an argument after ``--`` (or joined to its option, ``--key=…``):
# an ID, a verdict or an event starting with ``-`` is that ID (``unpin -- -dash`` is how
# the CLI takes it), never an option or a request for help.
ACTIONS: Final[dict[str, Action]] = {
    "pin": Action("Pin an instruction", ("text",),
                  lambda f: ["pin", "--scope", f.get("scope") or "session", "--", f["text"]],
                  ("scope",)),
    "unpin": Action("Unpin", ("id",), lambda f: ["unpin", "--", f["id"], *_reason(f)],
                    ("reason",)),
    "pin-supersede": Action("Replace a pin", ("id", "text"),
                            lambda f: ["pin", f"--supersedes={f['id']}", "--", f["text"]]),
    "memory-add": Action("Record a memory claim", ("text",),
                         lambda f: ["memory", "add", "--scope", f.get("scope") or "session",
                                    # joined: a key field of '-h' is a key, not a request
                                    # for help (an option's value of -h is help)
                                    *([f"--key={f['key']}"] if f.get("key") else []),
                                    "--", f["text"]], ("scope", "key")),
    "supersede": Action("Supersede a memory claim", ("id", "text"),
                        lambda f: ["memory", "supersede", "--", f["id"], f["text"]]),
    "invalidate": Action("Invalidate a memory claim", ("id",),
                         lambda f: ["memory", "invalidate", "--", f["id"], *_reason(f)],
                         ("reason",)),
    "expire": Action("Expire a memory claim", ("id",),
                     lambda f: ["memory", "expire", "--", f["id"], *_reason(f)], ("reason",)),
    "exclude": Action("Exclude a source session", ("id",),
                      lambda f: ["memory", "exclude", "--", f["id"], *_reason(f)],
                      ("reason",)),
    "include": Action("Include a source session again", ("id",),
                      lambda f: ["memory", "include", "--", f["id"]]),
    "forget": Action("Forget a learned claim", ("id",),
                     lambda f: ["learn", "forget", "--", f["id"]]),
    "correct": Action("Correct a learned claim", ("id", "text"),
                      lambda f: ["evolution", "correct", "--", f["id"], f["text"]]),
    "feedback": Action("Give feedback on a learned claim", ("id", "verdict"),
                       lambda f: ["feedback", "--", f["id"], f["verdict"]]),
    "undo": Action("Undo a learned-memory event", ("event",),
                   lambda f: ["evolution", "undo", "--", f["event"]]),
}


def command_line(name: str, form: Mapping[str, str]) -> tuple[Action, list[str]]:
    """The action ``name`` and the command line its form makes (:class:`BadAction` when
    the action is unknown or a needed field is empty)."""
    action = ACTIONS.get(name)
    if action is None:
        raise BadAction(f"unknown action {name!r}; the actions are: {', '.join(ACTIONS)}")
    missing = [f for f in action.fields if not form.get(f, "").strip()]
    if missing:
        raise BadAction(f"{action.label}: fill in {', '.join(missing)}")
    values = {k: form[k] for k in (*action.fields, *action.optional) if k in form}
    return action, action.line(values)


def typed(app: Waymarks, line: list[str] | tuple[str, ...], done: Done | None = None
          ) -> tuple[list[str], str | None]:
    """What a person would type in a terminal to run ``line`` on ``app`` (its home and
    project; ``--session`` when the launch named its session: without it the command
    acted on the newest one), and that named session. ``done``: the refusal or failure
    the page shows it under, which says the command as checked with every credential in
    it redacted (:func:`waymarks.core.secrets.redact`), as the CLI's refusal never
    repeats one: a key refused (``credential``) was printed whole under the refusal."""
    session = named_session(app)
    if done is not None and (done.refused or done.failed):
        line = [redact(word)[0] for word in line]
    # the home and the project always: the terminal it is pasted in may have another
    # WAYMARKS_HOME or folder than the launch had (a `--home`/`--cwd` launch showed
    # neither, and the command answered not_found there)
    return (["waymarks", "--home", str(app.home), "--cwd", app.cwd,
             *(["--session", session] if session else []), *line], session)


class Done(msgspec.Struct, frozen=True):
    """What an action did: the command's own JSON document and text, and whether it was
    refused (exit status 2) or failed (the service could not serve it)."""

    line: tuple[str, ...]
    data: dict[str, Any]
    text: str
    refused: bool
    failed: bool = False

    @property
    def conflicts(self) -> list[str]:
        found = self.data.get("conflicts")
        return [str(c) for c in found] if isinstance(found, list) else []


def run(app: Waymarks, line: list[str]) -> Done:
    """Run one command line of the table against ``app`` (never an editor, a file read or
    standard input: the runtime offers none)."""
    runtime = Runtime(open_app=lambda: app, json=True)
    try:
        result: Result = invoke(build(), line, runtime)
    except click.UsageError as exc:
        return Done(tuple(line), {"outcome": "rejected", "code": "invalid_argument",
                                  "message": exc.format_message(), "conflicts": []},
                    f"Refused: {exc.format_message()}", refused=True)
    except Shown:  # help or the version: no form asks for it, and nothing ran
        return Done(tuple(line), {"outcome": "rejected", "code": "invalid_argument",
                                  "message": "not an action", "conflicts": []},
                    "Refused: not an action", refused=True)
    except ServiceError as exc:
        if exc.refusal:  # as the CLI refuses it (exit 2): the request, not the home
            return Done(tuple(line), {"outcome": "rejected", "code": exc.code,
                                      "message": str(exc), "conflicts": []},
                        f"Refused ({exc.code}): {exc}", refused=True)
        return Done(tuple(line), {"outcome": "failed", "code": exc.code,
                                  "message": str(exc), "conflicts": []},
                    f"Failed ({exc.code}): {exc}", refused=False, failed=True)
    return Done(tuple(line), result.data, result.text, refused=result.exit_code != 0)


def rehearse(app: Waymarks, line: list[str]) -> Done | None:
    """Run ``line`` as a rehearsal: ``None`` when it passed every check (it stopped where
    it would have written), or the refusal or failure the person would meet after saying
    yes. Nothing is appended either way; the real run checks again."""
    app.rehearsing = True
    try:
        done = run(app, line)
    except Rehearsed:
        return None
    finally:
        app.rehearsing = False
    return done if done.refused or done.failed else None
