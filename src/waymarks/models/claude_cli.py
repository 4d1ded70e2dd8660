"""Claude Code's headless mode as a model client: ``claude -p`` with no tools and JSON
output, so a Claude Code user needs no key of their own (EVOLUTION item 48).

The call: ``claude -p --output-format json --max-turns 1 --tools "" --strict-mcp-config
--settings '{"disableAllHooks": true}' --setting-sources user --system-prompt SYSTEM
[--model M]`` with the payload on standard input (never on the command line, where other
users could read it), run in the person's home directory. ``-p`` skips Claude Code's
workspace-trust dialog and reads the settings and ``CLAUDE.md`` of its working directory:
run where Waymarks was started (a project), a repository's ``.claude/settings.json`` could
point ``ANTHROPIC_BASE_URL`` at its own server and receive the payload, and its
``CLAUDE.md`` could steer what is learned. So the child loads the user's settings only,
from a directory that is not the repository's.
The child runs with ``WAYMARKS_EVOLUTION_CHILD=1`` so Waymarks' own hooks inside it capture
nothing and start no recovery (a consolidation call must not feed or trigger another one).

What must stay true: the process is bounded by ``timeout_s`` (its whole process group is
killed after it), and so is its output: standard output is read in pieces as it comes and
the process group is killed once it passes ``OUTPUT_BYTES`` (``invalid_output``), never
held whole in memory; only the JSON envelope's ``result`` and usage are read, and a token
count only as far as it can be believed (:mod:`.usage`); every failure is an allowlisted
``ModelError`` (stderr and the envelope's text are never kept).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from typing import IO, Any, Final

from waymarks.core.evolution_policy import CHILD_ENV
from waymarks.core.model_port import ModelError, ModelReply, ModelRequest, Route
from waymarks.models.usage import token_count

#: no hook runs in the child (Waymarks' own would record the payload as a prompt)
NO_HOOKS: Final = '{"disableAllHooks": true}'
#: standard output larger than this is not a consolidation reply
OUTPUT_BYTES: Final = 1024 * 1024
_STATUS_CODES: Final = {401: "auth", 403: "auth", 402: "quota", 429: "rate_limited",
                        408: "timeout", 400: "bad_request", 404: "bad_request",
                        413: "bad_request", 422: "bad_request"}


class ClaudeCodeClient:
    def __init__(self, executable: str = "claude") -> None:
        self.executable = executable

    def available(self) -> bool:
        return shutil.which(self.executable) is not None

    def argv(self, request: ModelRequest, route: Route) -> list[str]:
        found = shutil.which(self.executable)
        if found is None:
            raise ModelError("unavailable")
        argv = [found, "-p", "--output-format", "json", "--max-turns", "1", "--tools", "",
                "--strict-mcp-config", "--settings", NO_HOOKS, "--setting-sources", "user",
                "--system-prompt", request.system]
        if route.model and route.model != "default":
            argv += ["--model", route.model]
        return argv

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        if timeout_s <= 0:
            raise ModelError("timeout")
        argv = self.argv(request, route)
        env = {**os.environ, CHILD_ENV: "1"}
        try:
            child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=_neutral_dir(),
                                     start_new_session=True)
        except OSError:
            raise ModelError("unavailable") from None
        try:
            out = _output(child, request.prompt.encode("utf-8"),
                          time.monotonic() + timeout_s)
        except BaseException:
            _kill(child)
            raise
        envelope = _envelope(out)
        if envelope is None:
            raise ModelError("unknown" if child.returncode else "invalid_output")
        if child.returncode or envelope.get("is_error") is True or \
                envelope.get("subtype") != "success":
            raise _failure(envelope)
        text = envelope.get("result")
        if not isinstance(text, str):
            raise ModelError("invalid_output")
        usage = _usage(envelope)
        model = envelope.get("model") if isinstance(envelope.get("model"), str) else route.model
        return ModelReply(text, route.provider, str(model) if route.model == "default"
                          else route.model, token_count(usage.get("input_tokens")),
                          token_count(usage.get("output_tokens")))


def _failure(envelope: dict[str, Any]) -> ModelError:
    """The error of an envelope that is no reply. An ``api_error_status`` is the HTTP
    status the API answered with: like an HTTP route's error status
    (:func:`waymarks.models.http.error_for_status`), it served, and billed, nothing
    (``refused``; before, a 500 was billed the whole estimate of the call)."""
    status = envelope.get("api_error_status")
    if isinstance(status, int) and not isinstance(status, bool):
        code = _STATUS_CODES.get(status, "overloaded" if status >= 500 else "unknown")
        return ModelError(code, refused=400 <= status <= 599)  # type: ignore[arg-type]
    return ModelError("invalid_output" if envelope.get("subtype") == "error_max_turns"
                      else "unknown")


def _neutral_dir() -> str:
    """The child's working directory: the person's home, never the project Waymarks runs
    in (``/`` when there is no home directory)."""
    try:
        home = os.path.expanduser("~")
    except (KeyError, RuntimeError):  # no HOME and no passwd entry
        return "/"
    return home if os.path.isabs(home) and os.path.isdir(home) else "/"


def _envelope(out: bytes) -> dict[str, Any] | None:
    try:
        parsed = json.loads(out)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(parsed, list):  # some versions print every message; the result is last
        parsed = next((m for m in reversed(parsed) if isinstance(m, dict)
                       and m.get("type") == "result"), None)
    return parsed if isinstance(parsed, dict) else None


def _output(child: subprocess.Popen[bytes], payload: bytes, deadline: float) -> bytes:
    """The child's standard output once it has exited, read in pieces while a thread writes
    ``payload`` to its standard input: ``timeout`` past ``deadline``, ``invalid_output``
    once it passes ``OUTPUT_BYTES`` (the caller kills the process group)."""
    assert child.stdin is not None and child.stdout is not None
    threading.Thread(target=_feed, args=(child.stdin, payload), daemon=True).start()
    out = bytearray()
    fd = child.stdout.fileno()
    waiting = select.poll()  # (select.select refuses a descriptor past 1023: a long-lived
    waiting.register(fd, select.POLLIN)  # host may hold that many)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ModelError("timeout")
            if not waiting.poll(left * 1000):
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            out += chunk
            if len(out) > OUTPUT_BYTES:
                raise ModelError("invalid_output")
        try:  # its output ended: it is exiting (or holds on without saying more)
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise ModelError("timeout") from None
    finally:
        child.stdout.close()
    return bytes(out)


def _feed(stdin: IO[bytes], payload: bytes) -> None:
    """Write the payload and close (a child that exits without reading it closes the
    pipe: that is its own answer)."""
    with contextlib.suppress(OSError):
        stdin.write(payload)
    with contextlib.suppress(OSError):
        stdin.close()


def _kill(child: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def _usage(envelope: dict[str, Any]) -> dict[str, Any]:
    usage = envelope.get("usage")
    return usage if isinstance(usage, dict) else {}
