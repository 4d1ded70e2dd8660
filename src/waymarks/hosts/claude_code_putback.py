"""What ``claude-code uninstall`` does to one of Claude Code's files: remove Waymarks'
entries, then put the file back as install found it (the backup's bytes when nothing else
changed since), or write what is left, or remove a file install created; and whether the
backup goes. Only a backup an install wrote (noted in its home,
:data:`~waymarks.hosts.claude_code_files.BACKUPS_RECORD`) is written back or removed: a
``.waymarks-backup`` of the person's own is kept as it is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waymarks.hosts.claude_code_files import (
    Loaded,
    Undo,
    backup_exists,
    backup_path,
    backup_writer,
    dump,
    forget_backup,
    load,
    parse,
    read_backup,
    same,
)


@dataclass
class Change:
    path: Path
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"file": str(self.path), "added": self.added, "removed": self.removed,
                "notes": self.notes}


@dataclass
class PutBack:
    """What uninstall does to one file: ``content`` to write (``None``: leave it, or
    ``remove_file``), and whether the backup goes."""
    loaded: Loaded
    change: Change | None = None
    content: bytes | None = None
    remove_file: bool = False
    remove_backup: bool = False
    #: the home whose install wrote the backup (its record forgets it with the file)
    writer: Path | None = None
    #: the homes whose installs may have written the file's entries (uninstall's first)
    homes: list[Path] = field(default_factory=list)

    def apply(self, undo: Undo) -> Change | None:
        if self.content is not None:
            undo.write(self.loaded, self.content)
        elif self.remove_file:
            undo.remove(self.loaded)
        return self.change

    def drop_backup(self) -> None:
        if self.remove_backup:
            backup_path(self.loaded.path).unlink()
            if self.writer is not None:
                forget_backup(self.writer, self.loaded.path)


def put_back_plan(path: Path, remove: Callable[[dict[str, Any]], list[str]],
                  container: str, homes: Callable[[dict[str, Any]], list[Path]]) -> PutBack:
    """:func:`_put_back` with the backup only when an install wrote it (one of the
    ``homes`` of the file's content: uninstall's, and those its Waymarks entries name):
    another is the person's, kept as it is and never written back (it was deleted, its
    bytes nowhere else)."""
    loaded = load(path)
    named = homes(loaded.data)  # (before the removal, which takes the entries naming them)
    backup = read_backup(path) if loaded.raw is not None else None
    writer = backup_writer(named, path, backup) if backup is not None else None
    plan = _put_back(loaded, remove, container, backup if writer is not None else None)
    plan.writer, plan.homes = writer, named
    if backup is not None and writer is None:
        plan.change = plan.change or Change(path)
        plan.change.notes.append(f"kept {backup_path(path).name} (no install noted writing "
                                 "it: left as it is; remove it when not needed)")
    return plan


def _put_back(loaded: Loaded, remove: Callable[[dict[str, Any]], list[str]], container: str,
              backup: bytes | None) -> PutBack:
    """Remove Waymarks' entries from ``path``, then write what is left: the very bytes from
    before the install when nothing else changed since (the backup), no file at all when
    install created it and nothing else is in it; otherwise what is left. The backup goes,
    and so does one the person made redundant by removing the entries by hand (what is
    left is what was backed up); one that differs from a file without Waymarks' entries is
    kept, and the change says so."""
    path = loaded.path
    if loaded.raw is None:  # removed by hand: its backup, if any, is the person's to keep
        return PutBack(loaded, Change(path, notes=[
            f"kept {backup_path(path).name} (the file as it was before install; the file "
            "itself is gone): remove it when not needed"])) if backup_exists(path) \
            else PutBack(loaded)
    removed = remove(loaded.data)
    try:
        before: object = parse(backup) if backup is not None else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        before = None
    # the removal drops the containers it leaves empty, and so one empty before install
    # ("hooks": {}): the same removal on the backup's copy, which must find nothing of
    # Waymarks to remove (a backup that holds some is never written back). It removes
    # nothing there, so an empty one it would have dropped ("Stop": [], "mcpServers": {})
    # is dropped on both sides before they are compared: the backup's bytes went unwritten
    if isinstance(before, dict) and remove(before):
        before = None
    unchanged = backup is not None and same(_emptied(before, container),
                                            _emptied(loaded.data, container), path)
    if not removed:
        if backup is None:
            return PutBack(loaded)
        if unchanged:
            return PutBack(loaded, Change(path, notes=[f"removed {backup_path(path).name}"]),
                            remove_backup=True)
        return PutBack(loaded, Change(path, notes=[
            f"kept {backup_path(path).name} (the file as it was before install; it has "
            "changed since, and Waymarks' entries are gone): remove it when not needed"]))
    change = Change(path, removed=removed)
    if backup is not None:
        return PutBack(loaded, change, backup if unchanged else dump(loaded.data, path),
                        remove_backup=True)
    if not loaded.data and loaded.target == loaded.path:
        return PutBack(loaded, change, remove_file=True)
    # (a symbolic link's file, a dotfiles checkout's, is written, never removed: removing it
    # left the link leading nowhere, which the next install refuses, and the file gone
    # from the checkout)
    return PutBack(loaded, change, dump(loaded.data, path))


def _emptied(data: Any, container: str) -> Any:
    """``data`` (key order kept) without what the removal drops once it is empty: the
    ``container`` (``hooks``, ``mcpServers``) and an event's list of hook groups."""
    if not isinstance(data, dict) or not isinstance(data.get(container), dict):
        return data
    inner = data[container]
    if container == "hooks":
        inner = {event: groups for event, groups in inner.items() if groups != []}
    return {k: (inner if k == container else v) for k, v in data.items()
            if k != container or inner}
