"""``waymarks`` entry point: global options, dispatch, output, exit status.

Exit status: 0 success (including ``duplicate``), 2 a rejected write or bad arguments
(nothing was changed), 1 an environment problem (unreadable session file, newer
database schema, disk full). With ``--json`` every outcome, errors included, is printed
as exactly one JSON document on standard output.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: the hook path must not import typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TextIO

GLOBAL_VALUE_OPTIONS = ("--home", "--session", "--cwd")
#: service errors caused by the request, not the environment: exit 2, like rejections
REQUEST_ERRORS = frozenset({"not_found", "empty", "invalid_argument", "no_session",
                            "active_source", "credential"})
VERSION = "0.1.0"


def default_home() -> Path:
    from pathlib import Path

    env = os.environ.get("WAYMARKS_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("waymarks", appauthor=False))


def split_globals(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """Take global options off the front of ``argv``; the rest is the command."""
    from waymarks.core.arguments import ArgumentError

    options: dict[str, str] = {}
    index = 0
    while index < len(argv):
        token = argv[index]
        name, eq, value = token.partition("=")
        if name in GLOBAL_VALUE_OPTIONS:
            if not eq:
                if index + 1 >= len(argv):
                    raise ArgumentError(f"{name} needs a value")
                value = argv[index + 1]
                index += 1
            options[name[2:]] = value
        elif token in ("--json", "--help", "-h", "--version"):
            options[token.lstrip("-")] = "true"
        else:
            break
        index += 1
    return options, argv[index:]


class ProgressBar:
    """A one-line progress bar on a terminal, shown only when work takes over half a second."""

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream = stream
        self.label = label
        import time

        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        import time

        if time.monotonic() - self.started < 0.5 and not self.shown:
            return
        self.shown = True
        fraction = done / total if total else 1.0
        bar = "#" * int(fraction * 30)
        self.stream.write(f"\r{self.label} [{bar:<30}] {fraction:6.1%}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _hook_fast_path(argv: list[str]) -> int | None:
    """``[--home H] hook claude-code EVENT``: answered before anything heavy is imported
    (it runs on every prompt the person sends)."""
    home = None
    index = 0
    while index < len(argv) and argv[index] in ("--home", "--json"):
        if argv[index] == "--home" and index + 1 < len(argv):
            home = argv[index + 1]
            index += 1
        index += 1
    if argv[index:index + 2] != ["hook", "claude-code"]:
        return None
    from waymarks.hosts.cc_helper import run

    return run(argv[index + 2:], os.path.expanduser(home) if home else str(default_home()))


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `waymarks … | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    hooked = _hook_fast_path(argv)
    if hooked is not None:
        return hooked
    from waymarks.core.arguments import ArgumentError
    from waymarks.core.text import is_unicode

    want_json = "--json" in argv[:1] or False
    try:
        options, rest = split_globals(argv)
        want_json = "json" in options
        if {"help", "h"} & options.keys() or rest[:1] == ["help"]:
            from waymarks.cli.commands import help_text

            _answer({"usage": help_text()}, help_text(), want_json)
            return 0
        if "version" in options:
            _answer({"version": VERSION}, f"waymarks {VERSION}", want_json)
            return 0
        bad = next((n for n, token in enumerate(argv, 1) if not is_unicode(token)), None)
        if bad is not None:
            return _error("usage", f"argument {bad} is not valid UTF-8 text", 2, want_json)
        return _run(options, rest, want_json)
    except ArgumentError as exc:
        return _error("usage", str(exc), 2, want_json)


def _run(options: dict[str, str], rest: list[str], want_json: bool) -> int:
    from waymarks.cli.commands import EXIT_ERROR, EXIT_REJECTED, Env, run_tokens
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import ServiceError

    if rest[:1] == ["context"]:
        from waymarks.core.arguments import tokenize

        rest = tokenize(" ".join(rest[1:]))
    from pathlib import Path

    home = Path(options["home"]).expanduser() if "home" in options else default_home()
    cwd = options.get("cwd")
    if cwd is not None and not os.path.isdir(cwd):
        return _error("invalid_argument", f"--cwd {cwd}: not a directory", 2, want_json)
    flags: set[str] = set()
    env = Env(extra={"read_file": _read_text_file, "session": options.get("session")})
    if sys.stderr.isatty():
        env.progress = ProgressBar(sys.stderr, "rebuild")
    try:
        with Waymarks(home, cwd=cwd, session=options.get("session")) as app:
            result = run_tokens(app, rest, env, flags)
    except ServiceError as exc:
        status = EXIT_REJECTED if exc.code in REQUEST_ERRORS else EXIT_ERROR
        return _error(exc.code, str(exc), status, want_json or "json" in flags)
    except OSError as exc:
        message = f"{exc.strerror or exc} ({exc.filename or 'file'}); nothing was acknowledged"
        return _error("io_error", message, EXIT_ERROR, want_json or "json" in flags)
    if rest[:1] in (["mcp"], ["bridge"]):
        return result.exit_code  # stdout belonged to the protocol: print nothing after it
    if want_json or "json" in flags:
        _print_json(result.data)
    else:
        print(result.text)
    return result.exit_code


def _answer(data: dict[str, Any], text: str, want_json: bool) -> None:
    if want_json:
        _print_json(data)
    else:
        print(text)


def _read_text_file(path: str) -> str:
    from waymarks.core.arguments import ArgumentError

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ArgumentError(f"--file {path}: cannot read it as UTF-8 text ({exc})") from exc


def _error(code: str, message: str, status: int, want_json: bool) -> int:
    if want_json:
        _print_json({"outcome": "error" if status == 1 else "rejected", "id": None,
                     "code": code, "conflicts": [], "message": message})
    else:
        print(f"waymarks: {message}", file=sys.stderr)
    return status


def _print_json(data: dict[str, Any]) -> None:
    import json

    print(json.dumps(data, ensure_ascii=False, indent=None))


if __name__ == "__main__":
    sys.exit(main())
