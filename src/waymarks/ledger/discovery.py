"""Where session files live and how a command finds the one it means.

Layout (the same as Pi's): ``<home>/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`` where
``<cwd>`` is the working directory without its leading separator and with ``/``, ``\\``
and ``:`` replaced by ``-``, and ``<timestamp>`` is ISO-8601 UTC with ``:`` and ``.``
replaced by ``-`` so that names sort by creation time.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.session_file import SessionFileError

__all__ = ["canonical_project_path", "list_sessions", "newest_session", "resolve_session",
           "session_dir", "session_file_name"]

_SEPARATORS = re.compile(r"[/\\:]")


def session_dir(home: Path, cwd: str) -> Path:
    encoded = _SEPARATORS.sub("-", re.sub(r"^[/\\]", "", cwd))  # Pi drops one leading separator
    return home / "sessions" / f"--{encoded}--"


def session_file_name(timestamp_iso: str, session_id: str) -> str:
    return f"{timestamp_iso.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def list_sessions(home: Path, cwd: str) -> list[Path]:
    """Session files for ``cwd``, oldest first."""
    directory = session_dir(home, cwd)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.jsonl") if p.is_file())


def newest_session(home: Path, cwd: str) -> Path | None:
    sessions = list_sessions(home, cwd)
    return sessions[-1] if sessions else None


def resolve_session(home: Path, cwd: str, ref: str) -> Path:
    """A session given as a path, a session ID or a unique ID prefix."""
    candidate = Path(ref).expanduser()
    if candidate.is_file():
        return candidate.resolve()
    if os.sep in ref or ref.endswith(".jsonl"):
        raise SessionFileError(f"{ref}: no such session file")
    matches = [p for p in list_sessions(home, cwd) if p.stem.split("_", 1)[-1].startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionFileError(
            f"no session {ref!r} for {cwd}; list them with `waymarks session list`"
        )
    raise SessionFileError(f"session prefix {ref!r} is ambiguous: {len(matches)} sessions match")
