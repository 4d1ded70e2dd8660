"""The process that started this one, past the shells between: on the lean path of a
Claude Code hook (``hosts.cc_client``) and in its MCP server (``hosts.claude_code``), so
it imports nothing beyond ``posix``.

What must stay true: no import but ``posix`` (``tests/test_lean_paths.py``); no
``from __future__``.
"""

import posix

#: what runs a hook command for Claude Code without being it (``sh -c COMMAND``)
_SHELLS = (b"sh", b"bash", b"dash", b"zsh", b"ksh", b"fish")


def claude_pid(parent: int = 0) -> int:
    """The process that started this one, past any shell between (Claude Code runs its
    hook commands under ``sh -c``; its MCP servers may be started so too): the Claude
    Code whose session a hook notes, and an MCP server looks up (``claude_code
    .pid_pointer``). Shells are seen through ``/proc`` (Linux); elsewhere the parent."""
    pid = parent or posix.getppid()
    for _ in range(3):
        try:
            stat = posix.open(f"/proc/{pid}/stat", posix.O_RDONLY)
            try:
                head, _, rest = posix.read(stat, 4096).rpartition(b")")
            finally:
                posix.close(stat)
            name, above = head.partition(b"(")[2], int(rest.split()[1])
        except (OSError, ValueError, IndexError):
            return pid  # not Linux, or the process is gone
        if name not in _SHELLS or above < 1:  # (Claude Code may be PID 1: a container's)
            return pid
        pid = above
    return pid
