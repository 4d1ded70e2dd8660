"""The CLI's one launcher module: the commands that start or install adapters.

``mcp`` (the MCP server), ``ui`` (the web inspector), ``bridge`` (the Pi extension's
bridge), ``hook claude-code`` (Claude Code's hooks, and the warm helper they start),
``pi install|uninstall`` and ``claude-code install|uninstall``. This is the only module of
the CLI that imports ``waymarks.hosts``, ``waymarks.mcp`` or ``waymarks.web``
(``tests/test_architecture.py`` checks it); hosts and the MCP server never import the CLI
or each other.

What must stay true: :func:`hook_fast_path` runs on every prompt a person sends in Claude
Code, so this module imports nothing at import time beyond ``os`` and ``sys``: click, rich
and the command table are imported only inside :func:`register`.
"""

import os
import sys

TYPE_CHECKING = False  # not typing's: the hook path must not import typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, NoReturn

    import click

    from waymarks.commands.results import Result, Runtime
    from waymarks.service.app import Waymarks

HELP = ("-h", "--help")


def hook_fast_path(argv: list[str], default_home: "Any", *,
                   owns_process: bool = False) -> int | None:
    """``[--home H] [--json] hook claude-code EVENT``: answered before anything heavy is
    imported. ``None``: not a hook (or a request for help): the full CLI answers.
    ``owns_process`` (the console script's own command line): a hook that ran in this
    process ends it once answered, as its launcher's does (``hook_entry``: no teardown,
    the collector still off: :func:`~waymarks.hosts.cc_client.run`'s ``owns_process``)."""
    from waymarks.hosts.cc_client import hook_arguments, run

    parsed = hook_arguments(argv)
    if parsed is None:
        if not _names_the_hook(argv) or any(a.lower() in HELP for a in argv):
            return None  # not a hook, or help for one: the full CLI answers
        # a hook's command line with a mistake (an extra argument, an unknown option, no
        # event): exit 1, never the usage error's 2, which Claude Code reads as "block the
        # prompt" (every prompt was blocked)
        message = (f"not a hook command line: {' '.join(argv)}; usage: waymarks [--home DIR] "
                   "hook claude-code EVENT (`waymarks claude-code install` writes it; see "
                   "`waymarks hook claude-code --help`)")
        if "--json" in argv:  # the usage document every command gives, with exit 1
            import json

            sys.stdout.write(json.dumps({"outcome": "error", "id": None, "code": "usage",
                                         "conflicts": [], "notices": [],
                                         "message": message}) + "\n")
        else:  # (one line: the arguments it repeats may hold a line break or ESC)
            from waymarks.cli.runner import note

            note(message)
        return 1
    if parsed[1].lower() in HELP:
        return None
    home, event = parsed
    # an empty --home is refused as the CLI refuses it, not taken for the default
    # owns_process: a hook done here ends the process (returns only while a thread runs)
    return run([event], os.path.expanduser(home) if home is not None else str(default_home()),
               owns_process=owns_process)


def _names_the_hook(argv: list[str]) -> bool:
    """Whether the command ``argv`` runs is ``hook claude-code`` (its first words after the
    global options): not words of a text (`memory add -- … hook claude-code …`)."""
    index = 0
    while index < len(argv) and argv[index].startswith("-") and argv[index] != "--":
        index += 2 if argv[index] in ("--home", "--cwd", "--session") else 1
    return argv[index:index + 2] == ["hook", "claude-code"]


class LaunchError(Exception):
    """A launcher's option cannot be used (found before anything is served); the message
    names the option. The CLI reports it as a usage error (exit 2)."""


def prepare_mcp(run: "Runtime", claude_code: bool
                ) -> "tuple[Waymarks, Callable[[], None] | None]":
    """The service the MCP server acts on, checked before serving: a ``--session`` that
    names no session of the project, or an unreadable one, fails now rather than per call.
    Before each call it follows the session Claude Code's hooks last saw here
    (``claude_code``), else the project's newest unless ``--session`` named one."""
    from waymarks.ledger.discovery import resolve_session
    from waymarks.ledger.log import SessionFileError

    run.progress.stop()
    app = run.app()
    named = getattr(run, "session", None)
    if isinstance(named, str):
        try:
            resolve_session(app.home, app.cwd, named)
        except SessionFileError as exc:
            raise LaunchError(f"--session: {exc}") from exc
        app.current_session()  # an unreadable session fails now (exit 1), not per call
    app.keep_recall_index = True  # a long-lived process: the recall index in memory
    from waymarks.service.planning import CLAUDE_CODE_PROVIDER, MCP_CLIENT_PROVIDER

    # the answers go to the client's model, not to the configured default's (a local
    # default let local-only text out through the tools)
    app.host_provider = CLAUDE_CODE_PROVIDER if claude_code else MCP_CLIENT_PROVIDER
    if claude_code:
        from waymarks.hosts.claude_code import follower

        return app, follower(app)
    from waymarks.service.sessions_api import follow_newest

    return app, lambda: follow_newest(app)  # a session started meanwhile, as a command


def serve_mcp_stdio(run: "Runtime", claude_code: bool) -> "Result":
    """``waymarks [globals] mcp [--claude-code]``: the stdio server, without the command
    table (the lean path of :mod:`waymarks.cli.lean`; the ``mcp`` command's stdio case)."""
    stdin_open()
    app, follow = prepare_mcp(run, claude_code)
    return _serve_stdio(app, follow)  # (its caller has made standard output the protocol's)


def stdin_open() -> None:
    """:class:`LaunchError` when standard input is closed (``<&-``, a supervisor that
    closed it): the stdio server reads its client there, and the event loop failed on it
    at once, said as "Invalid argument (file); nothing was acknowledged", exit 1."""
    try:
        os.fstat(0)
    except OSError:
        raise LaunchError("standard input is closed, and an MCP client speaks to `waymarks "
                          "mcp` over it: start it from the client (e.g. `claude mcp add "
                          "waymarks -- waymarks mcp`), or serve HTTP with --http") from None


def _serve_stdio(app: "Waymarks", follow: "Callable[[], None] | None") -> "Result":
    """Serve MCP over stdio until the input ends; Ctrl-C, how a person stops it, is said
    as that (as ``mcp --http`` says it), not as an interrupted write."""
    from waymarks.commands.results import Result
    from waymarks.mcp.server import serve_stdio

    try:
        serve_stdio(app, follow)
    except KeyboardInterrupt:
        _stopped("the MCP server")
    return Result({}, "", printed=True)
def learning_hint(home: "Any", data: dict[str, object], project: str | None = None) -> str:
    """What an installer says about learning: how to turn it on (never turned on here),
    as ``learn status`` would say it for ``project`` (a project install's: its own file
    may turn it off there) — and that it is off when the configuration cannot be read
    (the hint said how to turn it on, and `learn on` then failed on the file). The
    commands it names carry ``--home`` for a home other than the default: installed with
    ``--home H``, a bare `waymarks learn on` turned learning on where no hook looked."""
    from waymarks.cli.home import home_option
    from waymarks.commands.learn import how_to_turn_on
    from waymarks.service.learning import LearningConfigError, learning_state

    try:
        state = learning_state(home, project)
    except LearningConfigError as exc:
        data["learning"] = False
        return f"\nLearning from conversations is off: {exc}"
    data["learning"] = state.enabled
    named = home_option(str(home), any_shell=True)
    if state.enabled:
        return f"\nLearning from conversations is on (waymarks{named} learn status)."
    if state.home_setting and state.project_off:
        return ("\nLearning from conversations is on, but this project's configuration "
                f"turns it off here (waymarks{named} learn status).")
    return "\n" + how_to_turn_on(named)


def register(root: "click.Group") -> None:
    """Add the launchers to the CLI's root group."""
    import click

    from waymarks.commands.base import EXIT_REJECTED, Group, Result, command, runtime
    from waymarks.commands.options import Whole

    @command(root, "mcp", summary="Serve the MCP tools over stdio, or HTTP with a token.",
             examples=["waymarks mcp", "claude mcp add waymarks -- /path/to/waymarks mcp",
                       "waymarks mcp --http --port 8765"])
    @click.option("--http", is_flag=True,
                  help="Serve streamable HTTP instead of stdio; needs [mcp] token in "
                       "config.toml. E.g. --http")
    @click.option("--port", type=Whole(0, 65535), metavar="N",
                  help="HTTP port (with --http; default 8765; 0 picks a free one, named in "
                       "the line it prints on stderr once it listens). E.g. --port 9000")
    @click.option("--host", metavar="ADDR",
                  help="HTTP address (with --http; default 127.0.0.1). E.g. --host ::1")
    @click.option("--allow-remote", is_flag=True,
                  help="Accept a --host beyond loopback (plain HTTP: prefer an SSH tunnel). "
                       "E.g. --host 0.0.0.0 --allow-remote")
    @click.option("--claude-code", is_flag=True,
                  help="Act on the session Claude Code's hooks last saw in this project "
                       "(what `claude-code install` registers). E.g. --claude-code")
    def mcp(http: bool, port: int | None, host: str | None, allow_remote: bool,
            claude_code: bool) -> Result:
        """Tools: memory_recall, recall_memory, remember, context_persistence,
        personal_memory_entry, capture_note, learned_memory, learned_memory_edit.

        It runs in the directory the client starts it in. A --session that names no
        session of the project exits 2 before serving. Standard output belongs to the
        protocol: nothing else is printed there."""
        from waymarks.mcp.http_transport import (
            is_loopback,
            remote_warning,
            serve_http,
            token_exposed,
        )
        from waymarks.service.config import CONFIG_FILE
        from waymarks.service.planning import settings_for

        run = runtime()
        http_only = [name for name, given in (("port", port is not None),
                                              ("host", host is not None),
                                              ("allow-remote", allow_remote)) if given]
        if not http and http_only:
            raise click.UsageError(f"--{http_only[0]} applies to --http only: waymarks mcp "
                                   f"--http --{http_only[0]} ...")
        try:
            if not http:
                stdin_open()
            app, follow = prepare_mcp(run, claude_code)
        except LaunchError as exc:
            raise click.UsageError(str(exc)) from exc
        if not http:
            run.protocol = True
            return _serve_stdio(app, follow)
        address = host or "127.0.0.1"
        if not is_loopback(address) and not allow_remote:
            raise click.UsageError(
                f"--host {address} serves MCP over plain HTTP beyond this machine: the bearer"
                " token and memory would cross the network unencrypted. Keep the default "
                "--host 127.0.0.1 and reach it through an SSH tunnel (ssh -L "
                "8765:127.0.0.1:8765 ...) or a TLS proxy on this machine that sends Host "
                "127.0.0.1:8765 (docs/hosts.md: MCP over HTTP); or add --allow-remote to accept "
                "that risk")
        section = settings_for(app).raw.get("mcp")
        token = section.get("token") if isinstance(section, dict) else None
        if not isinstance(token, str) or len(token) < 16 or not all(
                "!" <= c <= "~" for c in token):  # what an Authorization header carries
            raise click.UsageError(  # which file: a project's may not set it (see config)
                "waymarks mcp --http needs a bearer token of at least 16 characters, "
                f"printable ASCII without spaces, in {app.home / CONFIG_FILE}: [mcp] token "
                "= \"...\" (the home's configuration; a project's .waymarks/config.toml "
                "may not set it)")
        exposed = token_exposed(app.home / CONFIG_FILE)
        if exposed is not None:
            raise click.UsageError(exposed)
        from waymarks.web.server import BindError, base_url, bind, unspecified_loopback

        try:
            sock = bind(address, 8765 if port is None else port)
        except BindError as exc:
            raise click.UsageError(str(exc)) from exc
        listening = int(sock.getsockname()[1])  # the one it got (--port 0: any free one)
        if not is_loopback(address):
            print(remote_warning(address, listening), file=sys.stderr, flush=True)
        # once it listens, where: what a script started with --port 0 reads the port from;
        # bound to every interface, the loopback address that reaches it (some clients
        # refuse to connect to http://0.0.0.0), as the inspector names it
        everywhere = unspecified_loopback(address)
        print(f"waymarks: serving MCP over HTTP at "
              f"{base_url(everywhere or address, listening)}/mcp ("
              + ("on every interface: from another machine, through this one's "
                 "address; " if everywhere else "") + "Ctrl-C stops it)",
              file=sys.stderr, flush=True)
        try:
            serve_http(app, sock=sock, host=address, token=token, follow=follow)
        except KeyboardInterrupt:
            _stopped("the MCP server")
        finally:
            sock.close()
        return Result({}, "", printed=True)

    @command(root, "ui", summary="The web inspector: see, search, explain and correct "
             "memory in a browser (local, behind a per-launch token).",
             examples=["waymarks ui", "waymarks ui --open", "waymarks ui --port 8767"])
    @click.option("--port", type=Whole(0, 65535), default=8766, metavar="N",
                  help="Port to listen on (default 8766; 0 picks a free one). E.g. --port 0")
    @click.option("--host", default="127.0.0.1", metavar="ADDR",
                  help="Address to listen on (default 127.0.0.1). E.g. --host ::1")
    @click.option("--allow-remote", is_flag=True,
                  help="Accept a --host beyond loopback (plain HTTP: prefer an SSH tunnel). "
                       "E.g. --host 0.0.0.0 --allow-remote")
    @click.option("--open", "open_", is_flag=True,
                  help="Open the printed URL in the default browser. E.g. --open")
    def ui(port: int, host: str, allow_remote: bool, open_: bool) -> Result:
        """Prints a URL carrying a token made for this launch; every request needs it,
        every action is confirmed on the page and checked against cross-site forgery.
        Runs until interrupted (Ctrl-C). With --json the URL comes as one JSON line
        ({"outcome": "serving", "url", "host", "port", "project"}) once it listens."""
        from waymarks.web.security import is_loopback
        from waymarks.web.server import BindError, Stopped, UnresolvedHost, serve

        run = runtime()
        if not is_loopback(host) and not allow_remote:
            raise click.UsageError(
                f"--host {host} serves the inspector over plain HTTP beyond this machine: "
                "its token and all memory would cross the network unencrypted, and anyone "
                "with the URL could change memory. Keep the default --host 127.0.0.1 and "
                "use an SSH tunnel (ssh -L 8766:127.0.0.1:8766 ...); or add --allow-remote "
                "to accept that risk")
        run.progress.stop()
        app = run.app()
        app.keep_recall_index = True  # a long-lived process: the recall index in memory
        run.protocol = True  # (its one JSON line, then HTTP: a later failure to stderr)
        try:
            serve(app, host=host, port=port, open_browser=open_, as_json=run.json)
        except KeyboardInterrupt:
            _stopped("the inspector")
        except Stopped as stop:  # Ctrl-C, kill or a closed terminal, said as each
            if stop.abandoned:  # their work still runs in a thread: not waited for
                from waymarks.cli.runner import note
                from waymarks.spawn.imports import end_process

                note(f"the inspector stopped (Ctrl-C twice), without waiting for "
                     f"{', '.join(stop.abandoned)}: its page said so; an action waiting for "
                     "its turn to write was not made (one under way is whole or absent: "
                     "`waymarks health` checks)")
                end_process(stop.status, leaving_threads=True)
            _stopped("the inspector", stop.how, stop.status)
        except UnresolvedHost as exc:
            raise click.UsageError(str(exc)) from exc
        except BindError as exc:
            raise click.UsageError(f"{exc} (or --port 0 for any free one)") from exc
        return Result({}, "", printed=True)

    @command(root, "bridge", summary="The JSON-RPC bridge the Pi extension starts (stdio; "
             "not for people).", examples=["waymarks bridge"])
    def bridge() -> Result:
        """Line-delimited JSON-RPC on standard input and output, one process per Pi
        session; see `waymarks pi install`."""
        from waymarks.hosts.pi_bridge import serve

        run = runtime()
        run.progress.stop()
        run.protocol = True
        try:
            serve(run.app().home)  # the bridge opens its own service, bound to Pi's session
        except BrokenPipeError:  # Pi went away: the bridge ended as a shutdown ends
            from waymarks.cli.runner import reader_left

            reader_left()
        return Result({}, "", printed=True)

    hook = Group("hook", help="Hooks a host runs (not for people): `waymarks hook "
                 "claude-code EVENT` reads the hook's JSON on standard input.",
                 examples=["waymarks hook claude-code UserPromptSubmit < event.json"])
    root.add_command(hook)

    @command(hook, "claude-code", summary="One Claude Code hook event: SessionStart, "
             "UserPromptSubmit, PreCompact, Stop, PostToolUse, PostToolUseFailure or "
             "SessionEnd (never exits 2, which would block the prompt).",
             examples=["waymarks --home ~/.local/share/waymarks hook claude-code "
                       "SessionStart < event.json"])
    @click.argument("event", metavar="EVENT")
    def hook_claude_code(event: str) -> Result:
        """Malformed input never blocks the prompt: nothing is printed and the reason is
        logged (never the content). `claude-code install` registers these hooks."""
        from waymarks.hosts.cc_client import run as run_hook

        run = runtime()
        run.progress.stop()
        run.protocol = True
        run_hook([event], str(run.app().home))
        return Result({}, "", printed=True)

    pi = Group("pi", help="Make Pi load the Waymarks extension (pins, memory and /context "
               "inside Pi).", examples=["waymarks pi install", "waymarks pi uninstall"])
    root.add_command(pi)
    agent_dir = click.option(
        "--agent-dir", metavar="DIR",
        help="Pi's agent directory (default: $PI_CODING_AGENT_DIR, else ~/.pi/agent). E.g. "
             "--agent-dir ~/.pi/agent")

    def pi_action(install: bool, directory: str | None, create: bool = False) -> Result:
        from waymarks.commands.render import cell
        from waymarks.hosts import pi_install

        where = pi_install.agent_dir(directory)
        # Pi's own default is made when missing, named (`--agent-dir ~/.pi/agent`, the
        # docs' example, was refused on a fresh machine where no flag made it) or not
        if install and directory is not None and where != pi_install.agent_dir():
            where = pi_install.checked_agent_dir(where, directory, runtime().app().cwd, create)
        try:
            path, changed = pi_install.install(where, _unless_default(runtime().app().home)) \
                if install else pi_install.uninstall(where)
        except (FileExistsError, FileNotFoundError) as exc:
            return Result({"outcome": "rejected", "code": "conflict", "id": None,
                           "conflicts": [], "notices": [],
                           "message": str(exc)}, f"Refused: {cell(str(exc))}",
                          EXIT_REJECTED)
        verb = ("Installed" if changed else "Already installed") if install else (
            "Removed" if changed else "Nothing to remove at")
        data: dict[str, object] = {"path": str(path), "changed": changed,
                                   "installed": install}
        text = f"{verb} {cell(str(path))}" + ("; restart Pi to load it" if install and changed
                                              else "")
        if install:
            text += _environment_home(runtime().app().home, data)
            text += host_missing("pi", "Pi", data)
            text += learning_hint(runtime().app().home, data)
        return Result(data, text)

    @command(pi, "install", summary="Write <agent dir>/extensions/waymarks.ts, which loads "
             "the extension from this installation.",
             examples=["waymarks pi install",
                       "waymarks pi install --agent-dir ~/pi-test/agent --create"])
    @agent_dir
    @click.option("--create", is_flag=True,
                  help="Make --agent-dir's folder when it does not exist (refused "
                       "without). E.g. --agent-dir ~/pi-test/agent --create")
    def pi_install_command(agent_dir: str | None, create: bool) -> Result:
        """Restart Pi afterwards. Refused (exit 2) if a waymarks.ts that Waymarks did not
        write is in the way, or if --agent-dir does not exist (unless --create, or it is
        Pi's own default, made as without the flag), is inside the project or in a system
        folder."""
        return pi_action(True, agent_dir, create)

    @command(pi, "uninstall", summary="Remove what `pi install` added (the loader, and "
             "folders it created if they are empty).", examples=["waymarks pi uninstall"])
    @agent_dir
    def pi_uninstall_command(agent_dir: str | None) -> Result:
        return pi_action(False, agent_dir)

    claude = Group("claude-code", help="Add or remove Waymarks' hooks and MCP server in "
                   "Claude Code's configuration.",
                   examples=["waymarks claude-code install",
                             "waymarks claude-code install --user",
                             "waymarks claude-code uninstall"])
    root.add_command(claude)
    scope_user = click.option(
        "--user", is_flag=True,
        help="Every project: ~/.claude/settings.json and ~/.claude.json. E.g. --user")
    scope_project = click.option(
        "--project", is_flag=True,
        help="This project (the default): .claude/settings.json and .mcp.json. E.g. "
             "--project")

    def claude_action(install: bool, user: bool, project: bool = False) -> Result:
        from pathlib import Path

        from waymarks.commands.render import cell
        from waymarks.hosts import claude_code_install as cc

        if user and project:  # one of the two would be dropped without a word
            raise click.UsageError("give --project or --user, not both (run it once for "
                                   "each scope to have both)")
        app = runtime().app()
        scope: cc.Scope = "user" if user else "project"
        try:
            if install:
                changes = cc.install(scope, Path(app.cwd), Path.home(), app.home)
            else:
                changes = cc.uninstall(scope, Path(app.cwd), Path.home(), app.home)
        except cc.InstallError as exc:
            return Result({"outcome": "rejected", "code": "invalid_config", "id": None,
                           "conflicts": [], "notices": [],
                           "message": str(exc)}, f"Refused: {cell(str(exc))}",
                          EXIT_REJECTED)
        lines = [f"{cell(str(c.path))}: " + ", ".join([*(f"+{a}" for a in c.added),
                                             *(f"-{r}" for r in c.removed), *c.notes])
                 for c in changes]
        verb = "installed" if install else "uninstalled"
        added = any(c.added for c in changes)
        if install and lines and not added:  # a warning alone: nothing new to load
            lines.insert(0, f"Nothing to change: already {verb}.")
        text = "\n".join(lines) if lines else f"Nothing to change: already {verb}."
        if install and added:
            text += "\nRestart Claude Code to load the hooks and the MCP server."
        data: dict[str, object] = {"scope": scope, "changes": [c.to_json() for c in changes]}
        if install:
            disabled = cc.hooks_disabled(scope, Path(app.cwd), Path.home())
            data["hooksDisabled"] = None if disabled is None else str(disabled[0])
            if disabled is not None:  # "restart to load the hooks": none would ever run
                text += (f"\nwarning: {cell(str(disabled[0]))} sets \"{disabled[1]}\": "
                         "true, so Claude Code runs none of these hooks (no context, nothing "
                         "recorded or learned) until that setting is removed")
            text += host_missing("claude", "Claude Code", data)
            text += learning_hint(app.home, data, app.cwd if scope == "project" else None)
        return Result(data, text)

    @command(claude, "install", summary="Merge the hooks and the MCP server into Claude "
             "Code's settings (idempotent; other settings kept).",
             examples=["waymarks claude-code install", "waymarks claude-code install --user"])
    @scope_project
    @scope_user
    def claude_install(project: bool, user: bool) -> Result:
        """Project scope writes absolute paths of this machine: keep those files out of
        shared commits, or use --user. A file that is not valid JSON is refused."""
        return claude_action(True, user, project)

    @command(claude, "uninstall", summary="Remove exactly what install added: files are "
             "restored, or removed if install created them.",
             examples=["waymarks claude-code uninstall",
                       "waymarks claude-code uninstall --user"])
    @scope_project
    @scope_user
    def claude_uninstall(project: bool, user: bool) -> Result:
        return claude_action(False, user, project)


def host_missing(command: str, host: str, data: dict[str, object]) -> str:
    """A line saying the host's ``command`` is not on PATH (``""`` when it is), with
    ``hostFound`` added to ``data``: an install writes its files all the same (the host
    may be installed later, or run with another PATH), but "restart it" alone read as if
    it were there."""
    import shutil

    data["hostFound"] = found = shutil.which(command) is not None
    return "" if found else (f"\n`{command}` was not found on PATH: {host} is not installed "
                             "here (or not on this PATH); what was written takes effect "
                             "once it runs.")


def _environment_home(home: "Path", data: dict[str, object]) -> str:
    """A warning when this environment's ``WAYMARKS_HOME`` names another home than the
    one installed for (``--home``): the loader sets the bridge's home only where none is
    set, so a Pi started from here uses that one (``environmentHome`` in ``data``)."""
    chosen = os.environ.get("WAYMARKS_HOME")
    named = os.path.expanduser(chosen) if chosen else None
    if named is not None and os.path.realpath(named) == os.path.realpath(home):
        named = None
    data["environmentHome"] = named
    if named is None:
        return ""
    from waymarks.commands.render import cell

    return (f"\nwarning: WAYMARKS_HOME in this environment names {cell(named)}, which wins "
            f"over the home the loader names ({cell(str(home))}): a Pi started with it set "
            "uses that one; unset it where Pi starts, or install for that home")


def _unless_default(home: "Path") -> "Path | None":
    """``home``, or ``None`` when it is the default one (a loader then names none)."""
    from waymarks.cli.home import user_data_dir

    return None if os.path.abspath(home) == os.path.abspath(user_data_dir()) else home


def _stopped(server: str, how: str = "Ctrl-C", status: int | None = None) -> "NoReturn":
    """Ctrl-C, the documented way to stop ``server``, said as that, with its status (130;
    ``how`` and ``status``: another signal's, ``kill``'s SIGTERM and 143): the runner's
    "interrupted; nothing more was done (a write that was under way is either whole or
    absent: `waymarks health` says all is well)" read as a failure."""
    from waymarks.cli.runner import Reported, note
    from waymarks.commands.results import EXIT_INTERRUPTED

    note(f"{server} stopped ({how})")
    raise Reported(EXIT_INTERRUPTED if status is None else status) from None
