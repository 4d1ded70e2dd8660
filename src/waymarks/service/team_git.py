"""What team memory asks of git: the person's name, and which commit added each line.

Every call runs the ``git`` executable in the repository (no shell, a fixed argument
list, a timeout); a missing git, a directory that is no repository, or a failing call
answers ``None`` (the caller shows "uncommitted" or falls back), never raises.
Provenance is cached per file by (size, mtime): a plan asks for it on every prompt.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Final

_TIMEOUT_S: Final = 10
_HEADER: Final = re.compile(rb"^([0-9a-f]{40}) \d+ (\d+)")
_ZERO: Final = "0" * 40
_BLAME: dict[str, tuple[tuple[int, int], dict[int, str]]] = {}


def _git(cwd: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True,
                              timeout=_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def user_name(cwd: Path) -> str | None:
    """``git config user.name`` of the repository, if set."""
    out = _git(cwd, "config", "user.name")
    name = out.decode("utf-8", "replace").strip() if out else ""
    return name or None


def is_repository(cwd: Path) -> bool:
    return _git(cwd, "rev-parse", "--is-inside-work-tree") is not None


def line_commits(path: Path, size: int, mtime_ns: int) -> dict[int, str]:
    """Line number (1-based) -> abbreviated commit that added it, for committed lines
    (``git blame --porcelain``); lines not yet committed are absent."""
    key = str(path)
    cached = _BLAME.get(key)
    if cached is not None and cached[0] == (size, mtime_ns):
        return cached[1]
    out = _git(path.parent, "blame", "--porcelain", "--", path.name)
    commits: dict[int, str] = {}
    for line in (out or b"").splitlines():
        match = _HEADER.match(line)
        if match:
            sha = match.group(1).decode()
            if sha != _ZERO:
                commits[int(match.group(2))] = sha[:12]
    if len(_BLAME) > 256:
        _BLAME.clear()
    _BLAME[key] = ((size, mtime_ns), commits)
    return commits
