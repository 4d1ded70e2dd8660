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
from errno import EFBIG
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from waymarks.cli.home import default_home as home_directory
from waymarks.cli.home import home_option
from waymarks.cli.output import emit, message_safe, print_json
from waymarks.commands.results import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_REJECTED,
    SESSION_NOTE,
    NullProgress,
    Result,
    Runtime,
    Shown,
)

if TYPE_CHECKING:
    from waymarks.core.arguments import ArgumentError
    from waymarks.service.outcomes import ServiceError


def default_home() -> Path:
    return Path(home_directory())


#: what ``Ctrl-C`` says, whenever it comes (the exit status: ``EXIT_INTERRUPTED``)
INTERRUPTED = ("interrupted; nothing more was done (a write that was under way is either "
               "whole or absent: `waymarks health` says all is well)")


class CliRuntime(Runtime):
    """The runtime of one ``waymarks`` process: the global options pick the service."""

    #: ``--home`` as given (``~`` not yet expanded); ``None``: WAYMARKS_HOME or the default
    home: str | None = None
    session: str | None = None
    cwd: str | None = None
    #: a ``context "…"`` command is running (it may not run another)
    in_context: bool = False


class Reported(Exception):
    """An outcome the caller has already printed: only its exit status is left."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def open_service(run: CliRuntime) -> Any:
    from waymarks.service.api_args import home_directory, working_directory
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import ServiceError

    # `~` expanded, as --home's and --session's are (a host's slash command and `context`
    # have no shell: `--cwd ~/src/app`, the help's example, was "not a directory")
    cwd = working_directory(None if run.cwd is None else os.path.expanduser(run.cwd), "--cwd",
                            existing=True)
    given = "--home" if run.home is not None else \
        "WAYMARKS_HOME" if os.environ.get("WAYMARKS_HOME") else "the default home"
    if run.home is not None and not run.home.strip():  # Path("") is the working directory
        raise ServiceError("invalid_argument", "--home is empty; give the home directory as "
                           "an absolute path (e.g. --home ~/.local/share/waymarks), or leave "
                           "--home out for WAYMARKS_HOME or the default")
    home = Path(os.path.expanduser(run.home)) if run.home is not None else default_home()
    if str(home).startswith("~"):  # no such user: it would be a folder here (without
        # HOME, ``~`` is the account's home from the password database)
        raise ServiceError("invalid_argument", f"{given} {home}: '~' cannot be expanded "
                           "(no such user); give an absolute path")
    return Waymarks(home_directory(home, given), cwd=cwd, session=run.session)


def new_runtime() -> CliRuntime:
    """The runtime of this process; the service opens on first use."""
    state = CliRuntime(open_app=lambda: open_service(state), interactive=on_a_terminal(),
                       read_file=read_text_file, read_stdin=read_standard_input,
                       home_option=home_option)
    return state


def on_a_terminal() -> bool:
    """Whether a person is at a terminal: standard input and output both are one. Only
    then may an editor open or a question be asked (an editor opened for a script wrote
    its screen codes into the script's JSON)."""
    try:
        return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))
    except ValueError:  # a closed stream
        return False


def perform(work: Callable[[CliRuntime], Result], want_json: bool) -> int:
    """Run ``work`` with a runtime for this process, print its result (or the error), close
    the service; the exit status. ``want_json``: ``--json`` was given before ``--``."""
    progress: Any = NullProgress()  # (what TerminalProgress does off a terminal: nothing)
    if sys.stderr is not None and sys.stderr.isatty():
        from waymarks.cli.progress import TerminalProgress

        progress = TerminalProgress()
    state = new_runtime()
    state.progress = progress
    failed: tuple[str, str, int] | None = None  # (code, message, exit status)
    try:
        with progress.busy("working: reading session files…"):
            result = work(state)
    except Shown as shown:  # help, the version: what was asked is the output itself
        result = msgspec.structs.replace(shown.result, produced=True)
    except Reported as reported:
        return reported.status
    except argument_error() as exc:
        failed = ("usage", str(exc), EXIT_REJECTED)
    except service_error() as exc:
        status = EXIT_REJECTED if exc.refusal else EXIT_ERROR
        failed = (exc.code, str(exc), status)
    except OSError as exc:
        from waymarks.service.outcomes import io_error  # (as the service words it)

        failed = ("io_error", str(io_error(exc)), EXIT_ERROR)
    except database_failure() as exc:  # busy or locked where the command did not say so
        failed = busy_failure(exc, state)
    except KeyboardInterrupt:  # Ctrl-C: a write under way is whole or absent (the ledger)
        failed = ("interrupted", INTERRUPTED, EXIT_INTERRUPTED)
    finally:
        repaired = state.opened.recovered if state.opened is not None else None
        # the active session's file replaced (its header names another session): what
        # this command listed is not that session's, and an empty list said nothing else
        replaced = state.opened.refresh_problem if state.opened is not None else None
        # a newer session file with no header passed over: what was shown (or where the
        # write went) is not what the person may think is the newest session
        passed = state.opened.passed_over_note if state.opened is not None else None
        passed_files = state.opened.passed_over if state.opened is not None else ()
        stale = state.opened.stale_note if state.opened is not None else None  # full disk
        started = started_worker(state)  # (counted before the service closes)
        state.close()
    as_json = (want_json or state.json) and not (failed is not None and state.protocol)
    if failed is not None:  # a command that failed after a repair says so too
        status = error(*failed, as_json, repaired)
        if repaired and not as_json:
            note(repair_note(repaired))
        if started:
            note(started)
        return status
    if repaired and as_json and "recovered" not in result.data:
        # a repair is part of what happened: a JSON reader gets it in the document
        result = msgspec.structs.replace(result, data={**result.data, "recovered": repaired})
    if replaced and as_json and "activeSessionProblem" not in result.data:
        result = msgspec.structs.replace(result, data={**result.data,
                                                       "sessionProblem": replaced})
    if passed and as_json and "passedOver" not in result.data:
        result = msgspec.structs.replace(result, data={**result.data, "passedOver": {
            "files": [str(path) for path in passed_files], "message": passed}})
    if stale and as_json and "stale" not in result.data:
        result = msgspec.structs.replace(result, data={**result.data, "stale": stale})
    try:
        written = printed(lambda: emit(result, as_json))
    except BrokenPipeError:  # the reader left (`| head -0`, `| grep -q`): its choice, and
        reader_left()  # the outcome stands (a refusal's 2 was 0 here, as if it were done)
        written = True
    if not written:
        if result.produced:  # what it made is its output: a cut file is no backup
            return output_lost()
        what = " ".join(str(result.data[k]) for k in ("outcome", "id") if result.data.get(k))
        if isinstance(result.data.get("message"), str):
            what += f": {result.data['message']}"
        note("standard output cannot be written, so the result was not shown; the command "
             "itself finished" + (f" ({what})" if what else "") + " and its exit status "
             "says how")
    if repaired and not as_json and not result.printed and "REPAIRED" not in result.text:
        note(repair_note(repaired))
    if replaced and not as_json and replaced not in result.text:  # (`health` names it)
        note(f"{SESSION_NOTE}{replaced}")
    if passed and not as_json and not all(str(p) in result.text for p in passed_files):
        note(f"note: {passed}")  # (`health` names each file itself)
    if stale and not as_json:
        note(f"note: {stale}")
    if started:  # on standard error, JSON or not: the document is the command's own
        note(started)
    return result.exit_code


def started_worker(state: CliRuntime) -> str | None:
    """What the command says of the background embedding worker it started, if it started
    one (:mod:`waymarks.service.semantic_notice`); looked into only when the module that
    starts one was imported."""
    if state.opened is None or "waymarks.service.semantic_backfill" not in sys.modules:
        return None
    from waymarks.service.semantic_notice import started_note

    return started_note(state.opened, state.home_option(str(state.opened.home)))


def repair_note(repaired: dict[str, Any]) -> str:
    return (f"note: the database could not be used ({repaired['problem']}); it was set aside as "
            f"{repaired['damaged']} and rebuilt from the session files"
            + "".join(f"; {caveat}" for caveat in repaired.get("caveats") or ()))


def wants_json(argv: list[str]) -> bool:
    """``--json`` (in any case, as every option name) before ``--``: even a usage error or
    help is then one JSON document. So is ``--json=VALUE``'s usage error (the flag takes
    no value): that script asked for JSON too."""
    scan = argv[:argv.index("--")] if "--" in argv else argv
    return any(token.lower() == "--json" or token.lower().startswith("--json=")
               for token in scan)


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


def database_failure() -> type[Exception]:
    """SQLite's operational error, imported only when an exception reaches that clause."""
    import sqlite3

    return sqlite3.OperationalError


def busy_failure(exc: Exception, state: CliRuntime) -> tuple[str, str, int]:
    """A database another process kept busy, as every command reports it (the error of
    :func:`waymarks.service.recovery.busy_error`); any other SQLite error goes on up."""
    from waymarks.service.recovery import busy_error

    opened = state.opened
    found = busy_error(exc, opened.db_path if opened is not None
                       else default_home() / "waymarks.db")
    if found is None:
        raise exc
    return found.code, str(found), EXIT_ERROR


def usage_text(message: str, where: str) -> str:
    """A usage error's message, with where to look next."""
    return f"{message.rstrip('.')}; see `{where} --help`"


def error(code: str, message: str, status: int, want_json: bool,
          repaired: dict[str, Any] | None = None) -> int:
    outcome = {EXIT_ERROR: "error", EXIT_INTERRUPTED: "aborted"}.get(status, "rejected")
    document: dict[str, Any] = {"outcome": outcome, "id": None, "code": code, "conflicts": [],
                                "notices": [], "message": message}
    if repaired:
        document["recovered"] = repaired
    try:
        if not want_json or not printed(lambda: print_json(document)):
            if status == EXIT_REJECTED and code != "usage":  # a refusal, said as every
                refusal(code, message)  # refusal is (it was `waymarks: MESSAGE`)
            else:
                note(message)
    except BrokenPipeError:  # the reader left: the status still says what happened
        reader_left()
    return status


def printed(show: Callable[[], None]) -> bool:
    """Run ``show`` (it writes to standard output); ``False`` when standard output is
    closed (``>&-``) or fails (``> /dev/full``): what was done stays done, and its exit
    status stands. Standard output then goes to the null device, so that Python's
    flush at exit does not fail again. A reader that left (``| head``) is not this case:
    ``BrokenPipeError`` goes on to the caller, which says nothing (:func:`reader_left`)
    and keeps the command's exit status."""
    try:
        if sys.stdout is None:
            return False
        show()
    except BrokenPipeError:
        raise
    except OSError:
        stdout_to_null()
        return False
    return True


def stdout_to_null() -> None:
    """Standard output becomes the null device (or none), so that Python's flush at exit
    does not fail again on what could not be written."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        sys.stdout = None


def output_lost() -> int:
    """A command whose output is what it makes (``export``, ``completion``, help, the
    version) could not write it: said on standard error, exit 1."""
    note("standard output cannot be written (a full disk?), so what it holds is cut short "
         "or empty: nothing usable was written; free some space or write elsewhere, then "
         "run it again")
    return EXIT_ERROR


def reader_left() -> None:
    """The reader of standard output left (``| head``): nothing more is written there, and
    Python's flush at exit must not fail again (standard output becomes the null device).
    Not an error of the command's: its exit status is what it was (a refusal stays 2)."""
    stdout_to_null()


def note(message: str) -> None:
    """``waymarks: message`` on standard error, one line, when there is one that can be
    written."""
    try:
        if sys.stderr is not None:
            print(f"waymarks: {message_safe(message, one_line=True)}", file=sys.stderr)
    except OSError:
        pass


def refusal(code: str, message: str) -> None:
    """``Refused (CODE): message`` on standard error, one line, as a command's own refusal
    is said (:func:`waymarks.commands.render.refused`)."""
    try:
        if sys.stderr is not None:
            print(f"Refused ({message_safe(code, one_line=True)}): "
                  f"{message_safe(message, one_line=True)}", file=sys.stderr)
    except OSError:
        pass


def read_text_file(path: str, limit: int) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``limit`` bytes. A FIFO, a
    device or a directory is refused before a byte is read (never waited on), as is a
    larger file; each with one line that names the path. An empty or blank name (a
    script's empty variable: ``import "$F"``) is refused as such (``invalid_argument``,
    as an empty ID is): it said ": cannot read it (No such file or directory)"."""
    from waymarks.core.arguments import ArgumentError
    from waymarks.files.atomic import NotARegularFile
    from waymarks.files.reading import read_regular

    if not path.strip() and not os.path.lexists(path):  # (a file named " " is read)
        from waymarks.service.outcomes import ServiceError

        what = "empty" if not path else "blank"
        raise ServiceError("invalid_argument", f"the file name is {what}; give the file to "
                           "read (e.g. ./notes.md); nothing was read or written")

    try:
        data = read_regular(path, limit=limit)
    except NotARegularFile as exc:
        raise ArgumentError(f"{path}: {exc.strerror} (give a regular file)") from exc
    except OSError as exc:
        if exc.errno == EFBIG:
            raise ArgumentError(f"{path}: {exc.strerror}; nothing was read (give a smaller "
                                "file)") from exc
        raise ArgumentError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    except ValueError as exc:  # a NUL byte in the name
        raise ArgumentError(f"{path!r}: not a file name ({exc})") from exc
    return _utf8(data, path)


def read_standard_input(limit: int) -> str:
    """The UTF-8 text on standard input, at most ``limit`` bytes; a closed standard input
    (``<&-``) or more is refused with one line."""
    from waymarks.core.arguments import ArgumentError

    stream = sys.stdin
    if stream is None:
        raise ArgumentError("standard input is closed; give a FILE, or pipe the text in")
    try:
        buffer = getattr(stream, "buffer", None)  # (a test's text stream has none)
        data = buffer.read(limit + 1) if buffer is not None \
            else stream.read(limit + 1).encode("utf-8", "surrogateescape")
    except (OSError, ValueError) as exc:  # closed, or not readable (opened for writing)
        raise ArgumentError(f"standard input cannot be read ({exc}); give a FILE, or pipe "
                            "the text in") from exc
    if len(data) > limit:
        raise ArgumentError(f"standard input holds more than {limit} bytes; nothing was "
                            "read (split it, or give a smaller input)")
    return _utf8(data, "standard input")


def _utf8(data: bytes, name: str) -> str:
    """``data`` as text (a leading byte-order mark dropped), or one line on what is wrong:
    the content's error (``bad_input``, exit 2), not the command line's (``usage``)."""
    from waymarks.service.outcomes import ServiceError

    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and exc.reason == "unexpected end of data":  # cut short
            left = len(data) - exc.start
            raise ServiceError("bad_input", f"{name}: ends inside a character (the last "
                               f"{left} byte(s)): it was cut short; copy or export it again "
                               "whole; nothing was read", request=True) from None
        raise ServiceError("bad_input", f"{name}: not UTF-8 text (byte {exc.start} is 0x"
                           f"{data[exc.start]:02x}); save it as UTF-8 and try again; "
                           "nothing was read", request=True) from None
