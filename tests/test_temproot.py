"""Where the tests' temporary folders go (tests/temproot.py)."""

from __future__ import annotations

from pathlib import Path

from tests.durability.test_disk_full import tmpfs
from tests.temproot import MEMORY_TMP_MIN_FREE, memory_root


def test_a_memory_folder_that_may_not_run_programs_is_not_used(tmp_path: Path) -> None:
    """Tests run scripts they write into their temporary folders (a fake browser, pager,
    git hook, ``claude`` on PATH): on a ``noexec`` /dev/shm (Docker's default, and
    hardened hosts') those failed with 'permission denied' or were silently ignored (the
    git hook), where the same tests passed on disk."""
    size = f"size={2 * MEMORY_TMP_MIN_FREE}"  # a limit: tmpfs takes memory as files grow
    with tmpfs(tmp_path / "exec", size) as mount:
        assert memory_root(mount) == mount
    with tmpfs(tmp_path / "noexec", f"{size},noexec") as mount:
        assert memory_root(mount) is None
    with tmpfs(tmp_path / "small", f"size={MEMORY_TMP_MIN_FREE // 2}") as mount:
        assert memory_root(mount) is None
