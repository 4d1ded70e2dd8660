"""Running one command line and reporting its outcome, without the command-line library.

What the full CLI (:func:`waymarks.cli.app.run`, click and the command table) and the lean
path of ``waymarks recall`` (:mod:`waymarks.cli.lean`) share: the runtime of one process
(the global options pick the service), how the service is opened, and how every outcome
becomes output and an exit status. One place, so the two paths cannot report differently.

Exit status: 0 done (a duplicate is done), 2 refused or bad arguments (nothing was
changed), 1 an environment problem (unreadable session file, newer database schema, disk
full). With ``--json`` every outcome, errors included, is exactly one JSON document on
standard output. Error messages name files and codes, never stored content.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.cli.home import default_home as home_directory
from waymarks.cli.output import emit, print_json
from waymarks.commands.results import (
    EXIT_ERROR,
    EXIT_REJECTED,
    NullProgress,
    Result,
    Runtime,
    Shown,
)

if TYPE_CHECKING:
    from waymarks.core.arguments import ArgumentError
    from waymarks.service.outcomes import ServiceError

#: service errors caused by the request, not the environment: exit 2, like rejections
REQUEST_ERRORS = frozenset({"not_found", "empty", "invalid_argument", "no_session",
                            "active_source", "credential"})


def default_home() -> Path:
    return Path(home_directory())


class CliRuntime(Runtime):
    """The runtime of one ``waymarks`` process: the global options pick the service."""

    home: Path | None = None
    session: str | None = None
    cwd: str | None = None


class Reported(Exception):
    """An outcome the caller has already printed: only its exit status is left."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def open_service(run: CliRuntime) -> Any:
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import ServiceError

    if run.cwd is not None and not os.path.isdir(run.cwd):
        raise ServiceError("invalid_argument", f"--cwd {run.cwd}: not a directory")
    home = run.home or default_home()
    given = "--home" if run.home is not None else "the home (WAYMARKS_HOME or default)"
    if str(home).startswith("~"):  # no such user, or no HOME: it would be a folder here
        raise ServiceError("invalid_argument", f"{given} {home}: '~' cannot be expanded "
                           "(no such user, or HOME is not set); give an absolute path")
    from waymarks.core.text import is_unicode

    # a name that is not text (bytes not UTF-8, from the environment) cannot be written
    # into the database: refused before anything is created there (the home, its
    # database and a session file were, and every later command there failed)
    if not is_unicode(str(home)):
        raise ServiceError("invalid_argument", f"{given} {home!r}: not a UTF-8 path; "
                           "use a directory whose name is UTF-8 text")
    if os.path.lexists(home) and not os.path.isdir(home):  # a file, a dangling link
        raise ServiceError("invalid_argument", f"{given} {home}: not a directory; give a "
                           "directory (a missing one is created)")
    return Waymarks(home, cwd=run.cwd, session=run.session)


def new_runtime() -> CliRuntime:
    """The runtime of this process; the service opens on first use."""
    state = CliRuntime(open_app=lambda: open_service(state), interactive=True,
                       read_file=read_text_file)
    return state


def perform(work: Callable[[CliRuntime], Result], want_json: bool) -> int:
    """Run ``work`` with a runtime for this process, print its result (or the error), close
    the service; the exit status. ``want_json``: ``--json`` was given before ``--``."""
    progress: Any = NullProgress()  # (what TerminalProgress does off a terminal: nothing)
    if sys.stderr is not None and sys.stderr.isatty():
        from waymarks.cli.progress import TerminalProgress

        progress = TerminalProgress()
    state = new_runtime()
    state.progress = progress
    try:
        with progress.busy("working: reading session files…"):
            result = work(state)
    except Shown as shown:
        result = shown.result
    except Reported as reported:
        return reported.status
    except argument_error() as exc:
        return error("usage", str(exc), EXIT_REJECTED, want_json or state.json)
    except service_error() as exc:
        status = EXIT_REJECTED if exc.request or exc.code in REQUEST_ERRORS else EXIT_ERROR
        return error(exc.code, str(exc), status, want_json or state.json)
    except OSError as exc:
        message = f"{exc.strerror or exc} ({exc.filename or 'file'}); nothing was acknowledged"
        return error("io_error", message, EXIT_ERROR, want_json or state.json)
    finally:
        repaired = state.opened.recovered if state.opened is not None else None
        state.close()
    if repaired and (want_json or state.json) and "recovered" not in result.data:
        # a repair is part of what happened: a JSON reader gets it in the document
        result = Result({**result.data, "recovered": repaired}, result.text,
                        result.exit_code, result.table, result.printed)
    emit(result, want_json or state.json)
    if repaired and not (want_json or state.json) and not result.printed \
            and "REPAIRED" not in result.text:
        print(f"waymarks: note: the database was damaged ({repaired['problem']}); it was set "
              f"aside as {repaired['damaged']} and rebuilt from the session files"
              + "".join(f"; {caveat}" for caveat in repaired.get("caveats") or ()),
              file=sys.stderr)
    return result.exit_code


def argument_error() -> type[ArgumentError]:
    """Imported only when an exception reaches that clause (a parser's error: the full
    CLI has loaded it already; a lean path never raises it)."""
    from waymarks.core.arguments import ArgumentError

    return ArgumentError


def service_error() -> type[ServiceError]:
    """Imported only when an exception reaches that clause: help and the version never
    load the service."""
    from waymarks.service.outcomes import ServiceError

    return ServiceError


def usage_text(message: str, where: str) -> str:
    """A usage error's message, with where to look next."""
    return f"{message.rstrip('.')}; see `{where} --help`"


def error(code: str, message: str, status: int, want_json: bool) -> int:
    if want_json:
        print_json({"outcome": "error" if status == EXIT_ERROR else "rejected", "id": None,
                    "code": code, "conflicts": [], "message": message})
    else:
        print(f"waymarks: {message}", file=sys.stderr)
    return status


def read_text_file(path: str) -> str:
    from waymarks.core.arguments import ArgumentError

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ArgumentError(f"{path}: cannot read it as UTF-8 text ({exc})") from exc
