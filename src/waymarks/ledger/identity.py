"""A project's identity: its resolved real path (symlinks followed)."""

from __future__ import annotations

import os


def canonical_project_path(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))
