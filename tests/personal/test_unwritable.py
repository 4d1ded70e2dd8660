"""A personal directory that cannot be written: ``remember`` asks nobody about a save that
cannot happen, and the lock's error states what is wrong rather than advising a removal
that fixes nothing.

Permissions mean nothing to root: the permission case runs its check in a child process
as ``nobody`` (as any other user, as that user); the read-only file system case mounts a
tmpfs and remounts it read-only (root only, else skipped), which binds root too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.durability.test_disk_full import tmpfs
from tests.durability.test_read_only import other_user
from waymarks.personal.entry import PersonalMemoryError
from waymarks.personal.store import PersonalStore
from waymarks.personal.tools import plan_remember

CHILD = """
import json, sys
from pathlib import Path
from waymarks.personal.store import PersonalStore
from waymarks.personal.tools import RememberPlan, plan_remember
found = {}
for name in sys.argv[1:]:
    store = PersonalStore(Path(name))
    plan = plan_remember(store, "I prefer tabs")
    found[name] = [store.unusable(), None if isinstance(plan, RememberPlan) else plan]
print(json.dumps(found))
"""


@pytest.fixture
def as_user() -> Iterator[tuple[Path, dict[str, object], list[str], dict[str, str]]]:
    """A folder another user (``nobody`` under root) may reach, and how to run as them."""
    uid, gid, found = other_user()
    root = Path(tempfile.mkdtemp(prefix="waymarks-personal-ro-"))  # pytest's is closed
    try:
        root.chmod(0o755)
        user = {"user": uid, "group": gid, "extra_groups": []} if os.geteuid() == 0 else {}
        yield root, user, [found[0]], found[1]
    finally:
        for path in root.rglob("*"):
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)


def test_a_directory_the_user_cannot_write_is_unusable_before_anyone_is_asked(
        as_user: tuple[Path, dict[str, object], list[str], dict[str, str]]) -> None:
    root, user, python, env = as_user
    (root / "closed" / "memory").mkdir(parents=True)
    (root / "open").mkdir()
    if os.geteuid() == 0:
        os.chown(root / "open", int(user["user"]), int(user["group"]))  # type: ignore[call-overload]
    for path in (root / "closed" / "memory", root / "closed"):
        path.chmod(0o555)
    names = [root / "closed" / "memory", root / "closed" / "new" / "memory",
             root / "open" / "memory"]
    done = subprocess.run([*python, "-c", CHILD, *map(str, names)], capture_output=True,
                          text=True, check=False, cwd=root, env=env,
                          **user)  # type: ignore[call-overload]
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    unavailable = {"outcome": "unavailable", "category": "runtime-unavailable"}
    existing, missing, writable = (found[str(name)] for name in names)
    assert existing[0] == "cannot be written (permission denied)"
    assert missing[0] == "cannot be created (permission denied)"
    for problem, answer in (existing, missing):
        assert answer == {**unavailable, "message": f"personal memory is unavailable: its "
                          f"directory {problem} (`waymarks personal list` names it)"}
    assert writable == [None, None]  # a directory it may make is no problem
    assert sorted(p.name for p in root.rglob("*")) == ["closed", "memory", "open"]


@pytest.fixture
def read_only_store(tmp_path: Path) -> Iterator[PersonalStore]:
    """An entry ``tabs`` on a tmpfs remounted read-only, no lock made there yet."""
    with tmpfs(tmp_path / "fs", "size=1m") as mount:
        store = PersonalStore(mount / "memory")
        store.save("I prefer tabs", slug="tabs")
        (store.directory / ".lock").unlink()  # as on a first save on that file system
        remounted = subprocess.run(["mount", "-o", "remount,ro", str(mount)],
                                   capture_output=True, text=True, check=False)
        if remounted.returncode != 0:
            pytest.skip(f"cannot remount the tmpfs read-only: {remounted.stderr.strip()}")
        yield store


def test_a_read_only_file_system_is_unusable_before_anyone_is_asked(
        read_only_store: PersonalStore) -> None:
    """A tmpfs remounted read-only: ``unusable`` said nothing, so ``remember`` asked the
    person for a yes to a save that then failed (``runtime-unavailable``)."""
    assert read_only_store.unusable() == "cannot be written (a read-only file system)"
    assert plan_remember(read_only_store, "I prefer spaces") == {
        "outcome": "unavailable", "category": "runtime-unavailable",
        "message": "personal memory is unavailable: its directory cannot be written (a "
                   "read-only file system) (`waymarks personal list` names it)"}


def test_the_lock_is_not_blamed_for_a_read_only_file_system(
        read_only_store: PersonalStore) -> None:
    """The save failed with '.lock cannot be the lock: Read-only file system; remove it
    (Waymarks makes it anew)': nothing there to remove, nor could it be removed."""
    before = sorted(p.name for p in read_only_store.directory.iterdir())
    with pytest.raises(PersonalMemoryError) as refused:
        read_only_store.save("I prefer spaces", slug="tabs")
    message = str(refused.value)
    assert "Read-only file system" in message and "nothing changed" in message
    assert "remove it" not in message
    assert sorted(p.name for p in read_only_store.directory.iterdir()) == before
    entry = read_only_store.get("tabs")
    assert entry is not None and entry.body == "I prefer tabs"


@pytest.mark.parametrize("where", ["directory", "parent", "loop"])
def test_a_broken_link_for_the_directory_is_named_and_asks_nobody(
        tmp_path: Path, where: str) -> None:
    """The directory a link to a drive that is not mounted (or a link on its way there,
    or a loop of links) read as a missing one: ``personal list`` said "no personal memory
    yet" with nothing to fix, and ``remember`` asked the person about a save that then
    failed ("cannot be created (File exists)") after the yes."""
    home = tmp_path / "home"
    home.mkdir()
    if where == "loop":
        (home / "memory").symlink_to("memory")
        directory = home / "memory"
    else:
        (home / "pi").symlink_to(tmp_path / "unmounted")
        directory = home / "pi" / "memory" if where == "parent" else home / "pi"
    store = PersonalStore(directory)
    problem = store.unusable()
    assert problem is not None and problem == store.unreadable()
    assert ("loop of links" if where == "loop" else "link to nothing") in problem
    assert plan_remember(store, "I prefer tabs")["category"] == "runtime-unavailable"  # type: ignore[index]
    assert [u.file for u in store.scan()[1]] == [str(directory)]
    with pytest.raises(PersonalMemoryError, match="link"):
        store.save("I prefer tabs")
    assert not (tmp_path / "unmounted").exists() and sorted(os.listdir(home)) == [
        "memory" if where == "loop" else "pi"]
