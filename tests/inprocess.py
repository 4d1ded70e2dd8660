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
import json
import os
import sys
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


@contextlib.contextmanager
def _standard_input(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = saved


def waymarks(*args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None,
             input: str | None = None) -> Ran:
    """Run ``waymarks ARGS`` in this process, with ``env`` added to the environment, in
    ``cwd`` and with ``input`` on standard input, as ``subprocess.run([..., *args],
    input=input, capture_output=True, text=True)`` would."""
    out, err = _captured(), _captured()
    environment = {"WAYMARKS_CC_HELPER": "off", **(env or {})}
    with (_environment(environment, cwd), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err),
          _standard_input(input) if input is not None else contextlib.nullcontext()):
        code = main(list(args))  # it returns the status: SystemExit escaping it is a bug
    return Ran(list(args), code, _text(out), _text(err))


def claude_code_hook(home: Path, body: Mapping[str, str]) -> Ran:
    """``waymarks --home HOME hook claude-code EVENT`` (the event: ``body``'s
    ``hook_event_name``) with ``body`` as JSON on standard input, in this process."""
    return waymarks("--home", str(home), "hook", "claude-code", body["hook_event_name"],
                    input=json.dumps(body))


def _captured() -> io.TextIOWrapper:
    """A standard stream to write to, with the bytes below it (``sys.stdout.buffer``) as a
    process's has: the Claude Code hook writes its answer there."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace",
                            write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", errors="replace")


def edit_in_place(path: Path, old: str, new: str) -> None:
    """Change ``path`` between two requests so that only its ctime tells: rewritten in place
    (the same inode), the same size, its mtime set back (an editor that writes in place,
    then ``touch -r``; ``cp -p`` onto it)."""
    assert len(old) == len(new)
    before = path.stat()
    text = path.read_text()
    assert old in text
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino, before.st_size, before.st_mtime_ns)
