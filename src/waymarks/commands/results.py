"""What a command returns and what it may use, without the command-line library: the
result (data for ``--json``, text, an optional table), the exit statuses, the runtime.

Kept apart from :mod:`waymarks.commands.base` (the click classes) so that a path that
runs one command without parsing a command table (``waymarks recall``, see
:mod:`waymarks.cli.lean`) imports neither click nor the table. ``base`` re-exports all of
it: commands keep importing from there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, Final, Literal

import msgspec

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_REJECTED = 2
#: interrupted (Ctrl-C, SIGINT), as shells report it: 128 + 2
EXIT_INTERRUPTED = 130
ProgressFn = Callable[[int, int], None]
#: said after a command's output when the active session could not be read as before
#: (its file replaced or cut short: ``Waymarks.refresh_problem``)
SESSION_NOTE: Final = "note: the active session cannot be read as before: "

class Column(msgspec.Struct, frozen=True):
    name: str
    justify: Literal["left", "right"] = "left"
    #: the column that takes what width is left (and wraps on a terminal)
    wide: bool = False


class Table(msgspec.Struct, frozen=True):
    """Rows for a person: a terminal shows them as a table with colour, anything else
    gets ``Result.text`` (the same rows, one per line)."""

    columns: tuple[Column, ...]
    rows: list[tuple[str, ...]]
    #: a style per row (``"active"``, ``"superseded"`` …), for colour only
    kinds: list[str] = msgspec.field(default_factory=list)
    footer: tuple[str, ...] = ()


class Result(msgspec.Struct, frozen=True):
    data: dict[str, Any]
    text: str
    exit_code: int = EXIT_OK
    table: Table | None = None
    #: the command wrote its own output (a protocol on stdout): print nothing after it
    printed: bool = False
    #: the output is what the command makes (`export` to standard output): output that
    #: cannot be written whole fails the command (exit 1), as a full disk fails `-o FILE`
    produced: bool = False
    #: the text is the command's report even when its status is not 0 (`health`'s
    #: ATTENTION, `import`'s lines): standard output's; any other text of a status that
    #: is not 0 is a refusal or an error, said on standard error
    report: bool = False


def session_noted(result: Result, problem: str | None) -> Result:
    """``result`` with the active session's ``problem`` noted after its text and as
    ``sessionProblem`` (a host's answer, which has no standard error); as it was when
    there is none, or its text names it already (``health``)."""
    if problem is None or problem in result.text:
        return result
    text = "\n".join(filter(None, (result.text.rstrip(), SESSION_NOTE + problem)))
    return msgspec.structs.replace(result, data={**result.data, "sessionProblem": problem},
                                   text=text)


class Shown(Exception):
    """Help or the version, answered during parsing: nothing runs after it."""

    def __init__(self, result: Result) -> None:
        super().__init__(result.text)
        self.result = result


class NullProgress:
    """No progress display (a host, a test, or output that is not a terminal). The CLI
    gives a terminal's (``waymarks.cli.progress``): same three methods."""

    @contextlib.contextmanager
    def bar(self, label: str) -> Iterator[ProgressFn | None]:
        yield None

    @contextlib.contextmanager
    def busy(self, label: str) -> Iterator[None]:
        yield

    def stop(self) -> None:
        """Nothing else may draw on the terminal from now on (an editor opens)."""


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[list[bool]]:
    """While inside, an interrupt (Ctrl-C) is remembered, not raised: the yielded list
    gets an entry, the write under way finishes, and the caller stops between two writes
    and says which were made. A second interrupt is raised at once. Outside the main
    thread (a host's worker), where no handler can be set, nothing is deferred."""
    import signal

    seen: list[bool] = []

    def remember(signum: int, frame: object) -> None:
        seen.append(True)
        signal.signal(signal.SIGINT, previous)  # the next one interrupts

    try:
        previous = signal.signal(signal.SIGINT, remember)
    except ValueError:  # not the main thread
        yield seen
        return
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


class Runtime(msgspec.Struct):
    """What a command may use beyond its arguments.

    ``open_app`` opens the service on first use (so help and usage errors never do);
    ``interactive``: a person at a terminal (an editor may be opened); ``progress``
    shows long work on standard error; ``stdin`` is where ``privacy sanitize`` reads.
    ``read_file(path, limit)`` and ``read_stdin(limit)``: the UTF-8 text of a local
    regular file or of standard input, at most ``limit`` bytes (``ArgumentError`` with
    one line otherwise); ``None`` where there are none to read (a host's slash command).
    """

    open_app: Callable[[], Waymarks]
    json: bool = False
    interactive: bool = False
    progress: Any = msgspec.field(default_factory=NullProgress)
    stdin: IO[str] | None = None
    read_file: Callable[[str, int], str] | None = None
    read_stdin: Callable[[int], str] | None = None
    #: standard output has become a protocol stream (``mcp``, ``bridge``, ``ui``, a
    #: hook): a failure from then on (Ctrl-C) is said on standard error, never written
    #: into it as a JSON document
    protocol: bool = False
    #: `` --home H`` for a command a message names for home ``H`` (``""``: a bare
    #: ``waymarks`` uses it); a host's slash command has no other home to tell apart
    home_option: Callable[[str], str] = lambda home: ""
    _app: Waymarks | None = None

    def app(self) -> Waymarks:
        if self._app is None:
            self._app = self.open_app()
        return self._app

    @property
    def opened(self) -> Waymarks | None:
        return self._app

    def close(self) -> None:
        if self._app is not None:
            self._app.close()
            self._app = None


def refused(code: str, message: str, conflicts: Sequence[str] = ()) -> Result:
    """A refusal decided here (not by a write): exit 2, the documented JSON shape."""
    return Result({"outcome": "rejected", "id": None, "code": code,
                   "conflicts": list(conflicts), "notices": [], "message": message},
                  f"Refused ({code}): {message}", EXIT_REJECTED)
