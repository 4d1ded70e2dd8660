"""What the suite wrote into the real home of whoever ran it, found at the session's end.

Every test and every command it starts has a home of its own (``tmp_path``, the suite's
``XDG_CACHE_HOME``); a subprocess given an environment of its own without them found the
person's home (``$HOME``, else the password database's) and wrote there: CI's clean run left
``~/.cache/waymarks/engine-files.json`` in root's home. Only the places Waymarks writes are
looked at. Claude Code's and Pi's folders are the person's tools' too, written while the suite
runs (a transcript, a todo): there only what names Waymarks counts, a file whose name says
``waymarks`` or a settings file holding more of it than before where an install writes (a
hook or a server that ``claude-code install --user`` would add: not a command the person
allowed meanwhile). Not a folder named for the person's project: who
works on Waymarks has a checkout named for it, and their agents' transcripts of it
(``~/.claude/projects/-home-ada-src-waymarks/…``, Pi's sessions alike) and Claude Code's
table of it in ``~/.claude.json`` (``projects``) grew while the suite ran, failing it.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

#: folders only Waymarks writes, below a user's home
OWN = (".cache/waymarks", ".local/share/waymarks", ".waymarks")
#: folders of the person's agents, where Waymarks installs itself
SHARED = (".claude", ".pi")
#: files of those agents' settings where an install names Waymarks (``~/.claude.json``: the
#: MCP servers Claude Code reads)
SETTINGS = (".claude/settings.json", ".claude.json", ".pi/agent/settings.json")

State = dict[str, tuple[int, ...]]


def user_homes() -> list[Path]:
    """The homes a process can take for the user's: ``$HOME`` and, for a process whose
    environment has none, the password database's."""
    homes = []
    if os.path.isabs(os.environ.get("HOME", "")):
        homes.append(Path(os.environ["HOME"]))
    with suppress(KeyError):  # (a user the password database does not know)
        homes.append(Path(pwd.getpwuid(os.getuid()).pw_dir))
    return list(dict.fromkeys(homes))


def places() -> tuple[list[Path], list[Path]]:
    """The user's homes (:func:`user_homes`) and the folders of Waymarks' own their XDG
    variables choose, when set to an absolute path: ``$XDG_DATA_HOME/waymarks``, the
    default home then, and ``$XDG_CACHE_HOME/waymarks``, the engine's cache (looked in
    below ``~/.local/share`` and ``~/.cache`` alone, a run that wrote there passed)."""
    chosen = [os.environ.get(name, "") for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME")]
    return user_homes(), [Path(base) / "waymarks" for base in chosen if os.path.isabs(base)]


def state(where: list[Path] | tuple[list[Path], list[Path]]) -> State:
    """What of those places exists (homes, or :func:`places`): a file's or folder's size
    and modification time; for a settings file, how often it says ``waymarks``."""
    homes, own = where if isinstance(where, tuple) else (where, [])
    found: State = {}
    for folder in own:
        _walk(folder.parent, folder.name, found, counts=lambda path, is_folder: True)
    for home in homes:
        for place in (*OWN, *SHARED):
            _walk(home, place, found, counts=lambda path, folder, place=place: place in OWN
                  or (not folder and "waymarks" in os.path.basename(path).lower()))
        for name in SETTINGS:
            try:
                found[str(home / name)] = (_named(Path(home / name).read_bytes()),)
            except OSError:
                continue
    return found


def _named(settings: bytes) -> int:
    """How often a settings file says ``waymarks`` where an install writes: ``hooks``
    (``~/.claude/settings.json``) and ``mcpServers`` (``~/.claude.json``). Claude Code
    writes the rest itself while the suite runs: its table of the person's projects
    (``projects``, keyed by their paths, a checkout named for Waymarks among them), a
    command the person allowed for good (``permissions``: ``Bash(waymarks status:*)``)."""
    import json

    try:
        data = json.loads(settings)
    except ValueError:  # (not JSON, or caught mid-write: every mention counts)
        data = None
    if isinstance(data, dict):
        settings = json.dumps([data.get("hooks"), data.get("mcpServers")]).encode()
    return settings.lower().count(b"waymarks")


def written(before: State, after: State) -> list[str]:
    """What appeared or changed between ``before`` and ``after`` (a settings file: only
    when it names Waymarks more often)."""
    return sorted(path for path, seen in after.items() if before.get(path) != seen and not (
        len(seen) == 1 and seen[0] <= before.get(path, (0,))[0]))


def _walk(home: Path, place: str, found: State, counts: Callable[[str, bool], bool]) -> None:
    """Each file and folder of ``home / place`` that ``counts`` (given its path in the
    home and whether it is a folder), with its size (a folder's 0) and modification time."""
    root = home / place
    try:
        top = root.lstat()
    except OSError:
        return
    if counts(place, root.is_dir()):
        found[str(root)] = (top.st_size if not root.is_dir() else 0, top.st_mtime_ns)
    if not root.is_dir() or root.is_symlink():
        return
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            if counts(os.path.relpath(path, home), name in dirs):
                try:
                    seen = os.lstat(path)
                except OSError:
                    continue
                found[path] = (0 if name in dirs else seen.st_size, seen.st_mtime_ns)
