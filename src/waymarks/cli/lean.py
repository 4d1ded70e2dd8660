"""The lean paths of ``waymarks recall`` and ``waymarks mcp``: without click or the
command table.

A fresh ``waymarks recall QUERY`` is what a script or a host runs per question, so its cost
is mostly start-up: importing click, the command table (every command module) and building
it cost more than the recall itself. :func:`recall_fast_path` recognises the plain forms of
the command line,

    waymarks [--home DIR] [--session ID] [--cwd DIR] [--json] recall
             [--history TEXT]... [--provider ID] [--explain] [--json] [--] QUERY...

(options of ``recall`` may stand between the words of the query, as click allows), and
runs them through the same code as the command table's ``recall``
(:func:`waymarks.commands.recalling.recall_result`) and the same runner
(:func:`waymarks.cli.runner.perform`: output, errors, exit status).

What must stay true: anything it does not recognise exactly — help, an unknown or
abbreviated option, ``--opt=value``, upper-case names, a value that starts with ``-``, no
query, text that is not UTF-8 — returns ``None`` and the full CLI answers it (with its
usage errors), so this path can only be faster, never different.
``tests/cli/test_lean_recall.py`` runs both paths on the same home and compares them.

``waymarks [globals] mcp [--claude-code]`` (stdio) takes the same kind of path
(:func:`mcp_fast_path`): an MCP client waits for the server's first answer, and the
command table is not needed to serve; the launcher's own function serves it
(:func:`waymarks.cli.launchers.serve_mcp_stdio`), so both paths check and serve alike.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: this path imports only what it needs
if TYPE_CHECKING:
    from waymarks.cli.runner import CliRuntime
    from waymarks.commands.results import Result

GLOBAL_VALUES = ("--home", "--session", "--cwd")
RECALL_VALUES = ("--history", "--provider")


class _Request:
    """What a recognised command line asks for."""

    def __init__(self) -> None:
        self.globals: dict[str, str] = {}
        self.json = False
        self.history: list[str] = []  # recall
        self.provider: str | None = None
        self.explain = False
        self.query: list[str] = []
        self.claude_code = False  # mcp


def _globals(argv: list[str], wanted: _Request) -> int | None:
    """Read the global options into ``wanted``; the index of the command, or ``None`` if
    the command line is not one this path recognises."""
    for token in argv:
        try:
            token.encode("utf-8")
        except UnicodeEncodeError:
            return None
    index = 0
    while index < len(argv) and argv[index].startswith("-"):
        token = argv[index]
        if token == "--json":
            wanted.json = True
        elif token in GLOBAL_VALUES and index + 1 < len(argv) \
                and not argv[index + 1].startswith("-") and token not in wanted.globals:
            wanted.globals[token] = argv[index + 1]
            index += 1
        else:
            return None
        index += 1
    return index


def parse(argv: list[str]) -> _Request | None:
    """The request, or ``None`` when the full CLI must answer (see the module's rule)."""
    wanted = _Request()
    index = _globals(argv, wanted)
    if index is None or argv[index:index + 1] != ["recall"]:
        return None
    index += 1
    while index < len(argv):
        token = argv[index]
        if token == "--":
            wanted.query += argv[index + 1:]
            break
        if not token.startswith("-") or token == "-":
            wanted.query.append(token)
        elif token == "--json":
            wanted.json = True
        elif token == "--explain":
            wanted.explain = True
        elif token in RECALL_VALUES and index + 1 < len(argv) \
                and not argv[index + 1].startswith("-"):
            index += 1
            if token == "--history":
                wanted.history.append(argv[index])
            elif wanted.provider is not None:  # given twice: the CLI's usage error
                return None
            else:
                wanted.provider = argv[index]
        else:
            return None
        index += 1
    return wanted if " ".join(wanted.query).strip() else None  # (a blank one: the CLI's)


def parse_mcp(argv: list[str]) -> _Request | None:
    """``[globals] mcp [--claude-code]`` (stdio), else ``None``."""
    wanted = _Request()
    index = _globals(argv, wanted)
    if index is None or argv[index:index + 1] != ["mcp"]:
        return None
    rest = argv[index + 1:]
    if rest not in ([], ["--claude-code"]):
        return None
    wanted.claude_code = bool(rest)
    return wanted


def _apply_globals(state: CliRuntime, wanted: _Request) -> None:
    state.home = wanted.globals.get("--home")
    state.session = wanted.globals.get("--session")
    state.cwd = wanted.globals.get("--cwd")
    state.json = wanted.json


def mcp_fast_path(argv: list[str]) -> int | None:
    """``waymarks mcp`` over stdio without click or the command table: an MCP client
    waits for it to start, and the SDK alone costs half a second."""
    wanted = parse_mcp(argv)
    if wanted is None:
        return None
    from waymarks.cli.launchers import LaunchError, serve_mcp_stdio
    from waymarks.cli.runner import Reported, error, perform, usage_text, wants_json
    from waymarks.commands.results import EXIT_REJECTED

    want_json = wants_json(argv)

    def work(state: CliRuntime) -> Result:
        _apply_globals(state, wanted)
        state.protocol = True  # standard output is the client's from the start (a usage
        # error is still answered in JSON: it is reported before, below)
        try:
            return serve_mcp_stdio(state, wanted.claude_code)
        except LaunchError as exc:
            raise Reported(error("usage", usage_text(str(exc), "waymarks mcp"),
                                 EXIT_REJECTED, want_json or state.json)) from exc

    return perform(work, want_json)


def recall_fast_path(argv: list[str]) -> int | None:
    """Run a recognised ``recall`` command line; ``None``: not one (the full CLI runs)."""
    wanted = parse(argv)
    if wanted is None:
        return None
    from waymarks.cli.runner import perform, wants_json

    def work(state: CliRuntime) -> Result:
        from waymarks.commands.recalling import recall_result

        _apply_globals(state, wanted)
        return recall_result(state.app(), wanted.query, wanted.history, wanted.provider,
                             wanted.explain)

    return perform(work, wants_json(argv))
