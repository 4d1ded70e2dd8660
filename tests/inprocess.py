"""The real ``waymarks`` entry point run inside the test process, answered as a subprocess
would be: ``returncode``, ``stdout``, ``stderr``.

A command run this way takes a few milliseconds where a new interpreter takes a quarter of
a second (most of a fast-lane test that runs the CLI a dozen times). What it does not test
is the start of a new process: keep ``subprocess`` for tests about that (a FIFO that must
not hang a process, a closed or full standard stream, bytes that are not UTF-8 on standard
input, a deleted working directory, signals). Module state that outlives a command here
outlives it in the long-lived hosts too (the Pi bridge, the MCP server, the Claude Code
helper), so a test that passes only in a fresh process has found a defect of theirs.

Anything escaping ``main`` is a failure of the test (a traceback from a subprocess would
have been one too).
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from waymarks.cli.main import main


@dataclass(frozen=True)
class Ran:
    """What one command did: ``subprocess.CompletedProcess``'s fields, as text."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _environment(env: Mapping[str, str], cwd: Path | None) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    before = os.getcwd()
    os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def waymarks(*args: str, env: Mapping[str, str] | None = None,
             cwd: Path | None = None) -> Ran:
    """Run ``waymarks ARGS`` in this process, with ``env`` added to the environment and in
    ``cwd``, as ``subprocess.run([..., *args], capture_output=True, text=True)`` would."""
    out, err = io.StringIO(), io.StringIO()
    environment = {"WAYMARKS_CC_HELPER": "off", **(env or {})}
    with (_environment(environment, cwd), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        try:
            code = main(list(args))
        except SystemExit as exit_:  # as a process would have ended
            code = exit_.code if isinstance(exit_.code, int) else 1
    return Ran(list(args), code, out.getvalue(), err.getvalue())
