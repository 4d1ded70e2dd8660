"""The command line: global options, the command table, the launchers, help, usage
errors; what every run shares (the runtime, errors, exit status, output) is
:mod:`waymarks.cli.runner`, which ``waymarks recall``'s lean path uses too.

Exit status: 0 done (a duplicate is done), 2 refused or bad arguments (nothing was
changed), 1 an environment problem (unreadable session file, newer database schema, disk
full). With ``--json`` every outcome, errors and help included, is exactly one JSON
document on standard output.
"""

from __future__ import annotations

import os

import click

from waymarks import __version__
from waymarks.cli.runner import (
    CliRuntime,
    Reported,
    error,
    perform,
    usage_text,
    wants_json,
)
from waymarks.commands.base import (
    EXIT_ERROR,
    EXIT_REJECTED,
    Group,
    Result,
    Shown,
    command,
    invoke,
    runtime,
)

COMPLETE_VAR = "_WAYMARKS_COMPLETE"
SHELLS = ("bash", "zsh", "fish")


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        raise Shown(Result({"version": __version__}, f"waymarks {__version__}"))


def build_root() -> Group:
    """The whole command line: globals, the command table, ``context``, ``help``,
    ``completion`` and the launchers."""
    from waymarks.cli.launchers import register
    from waymarks.commands.table import build

    root = Group(
        "waymarks", help="Pins and durable memory for coding agents, kept in append-only "
        "session files.\n\nGlobal options go before the command. Pin, memory and session "
        "IDs may be shortened to any unique prefix (a learned claim's are given whole). "
        "Exit status: 0 done, 2 refused (nothing changed), 1 an environment "
        "problem, 130 interrupted (Ctrl-C: a write is whole or absent). WAYMARKS_HOME "
        "overrides the default home.",
        examples=["waymarks pin -- Run the tests before every commit.",
                  "waymarks memory add --scope project -- The database port is 5433.",
                  "waymarks --json memory", "waymarks memory -h"],
        params=[
            click.Option(["--home"], metavar="DIR", help="The Waymarks home (default: "
                         "$WAYMARKS_HOME, else the user data folder). E.g. --home /tmp/wm"),
            click.Option(["--session"], metavar="PATH|ID", help="The session to use: a file, "
                         "an ID or a unique ID prefix (default: the newest of this "
                         "directory). E.g. --session 1f88e432"),
            click.Option(["--cwd"], metavar="DIR", help="Act as if started in DIR (the "
                         "project). E.g. --cwd ~/src/app"),
            click.Option(["--json"], is_flag=True, help="Print exactly one JSON document. "
                         "E.g. waymarks --json pins"),
            click.Option(["--version"], is_flag=True, expose_value=False, is_eager=True,
                         callback=_show_version, help="Print the version and exit."),
        ],
        callback=_globals)
    build(into=root)
    _register_cli_only(root)
    register(root)
    return root


def _globals(home: str | None, session: str | None, cwd: str | None, json: bool) -> None:
    """Applied only when given, so that ``context "…"`` (which parses again) keeps them."""
    run = runtime()
    assert isinstance(run, CliRuntime)
    if home is not None:
        run.home = home  # checked (empty, relative) when the service opens
    if session is not None:
        run.session = session
    if cwd is not None:
        run.cwd = cwd
    if json:
        run.json = True


def _register_cli_only(root: Group) -> None:
    @command(root, "context", summary="Run any command given as one string, with the "
             "/context quoting rules (what a host's slash command passes through).",
             examples=["waymarks context \"memory add --key deploy -- 'Deploys go to "
                       "\\\"staging\\\" first.'\"", "waymarks context \"pins --status active\""],
             context_settings={"ignore_unknown_options": True,
                               "allow_interspersed_args": False})
    @click.argument("words", nargs=-1, type=click.UNPROCESSED, metavar="\"COMMAND ...\"")
    def context(words: tuple[str, ...]) -> Result:
        """Quoting: single and double quotes, backslash escapes; `--` ends options."""
        from waymarks.core.arguments import tokenize

        # one string is split by the /context rules; several words are the command's
        # words as the shell split them (joined and split again, an empty word vanished,
        # `--key "db port"` became the key 'db', and quotes inside a word were removed)
        tokens = tokenize(words[0]) if len(words) == 1 else list(words)
        if not tokens:
            raise click.UsageError("give the command to run, e.g. waymarks context \"pins\"")
        run = runtime()
        assert isinstance(run, CliRuntime)
        if run.in_context:  # "context context … pins" recursed until the stack overflowed
            raise click.UsageError("context runs one command, not another context: give "
                                   "the command itself, e.g. waymarks context \"pins\"")
        run.in_context = True
        if wants_json(tokens):  # before parsing: its usage errors and help answer in JSON
            run.json = True
        try:
            return invoke(root, tokens, run)
        finally:
            run.in_context = False

    @command(root, "help", summary="Help for a command, with examples.",
             examples=["waymarks help", "waymarks help memory add"])
    @click.argument("words", nargs=-1, metavar="[COMMAND]...")
    def help_(words: tuple[str, ...]) -> Result:
        return invoke(root, [*words, "--help"], runtime())

    @command(root, "completion", summary="Print the shell completion script for bash, zsh "
             "or fish.",
             examples=["eval \"$(waymarks completion bash)\"   # in ~/.bashrc",
                       "eval \"$(waymarks completion zsh)\"    # in ~/.zshrc",
                       "waymarks completion fish > ~/.config/fish/completions/waymarks.fish"])
    @click.argument("shell", type=click.Choice(SHELLS, case_sensitive=False))
    def completion(shell: str) -> Result:
        """Completes commands, subcommands, options and their choices."""
        from click.shell_completion import get_completion_class

        cls = get_completion_class(shell.lower())
        assert cls is not None
        script = cls(root, {}, "waymarks", COMPLETE_VAR).source()
        return Result({"shell": shell.lower(), "script": script}, script.rstrip("\n"),
                      produced=True)  # `> waymarks.fish` on a full disk: a cut script


def complete() -> int:
    """Answer a shell's completion request (``_WAYMARKS_COMPLETE`` is set)."""
    from click.shell_completion import shell_complete

    root = build_root()
    instruction = os.environ.get(COMPLETE_VAR, "")
    run = CliRuntime(open_app=lambda: None)  # type: ignore[arg-type,return-value]
    return shell_complete(root, {"obj": run}, "waymarks", COMPLETE_VAR, instruction)


def run(argv: list[str]) -> int:
    """Parse and run one command line; print its result; the exit status."""
    from waymarks.core.text import is_unicode

    want_json = wants_json(argv)
    bad = next((n for n, token in enumerate(argv, 1) if not is_unicode(token)), None)
    if bad is not None:
        return error("usage", f"argument {bad} is not valid UTF-8 text", EXIT_REJECTED,
                     want_json)

    def work(state: CliRuntime) -> Result:
        """Click's outcomes become the runner's: usage errors exit 2, ``Abort`` 1."""
        try:
            return invoke(build_root(), argv, state)
        except click.UsageError as exc:
            raise Reported(error("usage", usage_message(exc), EXIT_REJECTED,
                                 want_json or state.json)) from exc
        except click.ClickException as exc:
            raise Reported(error("usage", exc.format_message(), EXIT_REJECTED,
                                 want_json or state.json)) from exc
        except click.exceptions.Exit as exc:
            raise Reported(exc.exit_code) from exc
        except click.Abort as exc:
            raise Reported(error("aborted", "aborted; nothing more was done", EXIT_ERROR,
                                 want_json or state.json)) from exc

    return perform(work, want_json)


def usage_message(exc: click.UsageError) -> str:
    """Click's message, with where to look next (and the `--` rule for text), on one line
    (a missing choice's list is click's one per line: said on one line, not escaped)."""
    message = exc.format_message().replace(":\n\t", ": ").replace(",\n\t", ", ").rstrip(".")
    if isinstance(exc, click.NoSuchOption) and exc.option_name.startswith("-") and \
            not exc.option_name.startswith("--"):
        message += " (text that starts with '-' needs '--' before it: waymarks pin -- -x)"
    return usage_text(message, exc.ctx.command_path if exc.ctx is not None else "waymarks")
