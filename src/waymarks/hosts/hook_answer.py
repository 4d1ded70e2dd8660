"""How a Claude Code hook prints its answer, whoever ran the hook (the lean client with the
helper's answer, or the hook in its own process). Imports only ``posix`` and ``sys``: the
client's path imports nothing more before the helper has answered; no
``from __future__``."""

import posix
import sys


def write_answer(data: bytes) -> None:
    """Print a hook's answer. A reader that left (`| true`, Claude Code past its wait), a
    closed standard output (``>&-``) or a full disk loses the answer alone: what the hook
    had to record is recorded already, so it still exits 0, silent. Standard output then
    goes to the null device, so that no later flush (the interpreter's exit) fails again:
    it printed "Exception ignored … BrokenPipeError" and the process exited 120."""
    try:
        if sys.stdout is None:  # (closed when the process started)
            return
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except (OSError, ValueError):
        try:
            posix.dup2(posix.open("/dev/null", posix.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            sys.stdout = None
