"""A FIFO (or a device) where Waymarks expects a file is refused or skipped, never waited
on: ``open`` on a FIFO blocks until a writer comes, and one such file in a project's docs,
the personal memory directory, a configuration or a team directory had stopped every
request that read it."""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from waymarks.files.atomic import NotARegularFile
from waymarks.files.reading import read_regular
from waymarks.ledger.team import _read_from
from waymarks.personal.docs import DOCS_DIR, load_chunks
from waymarks.personal.entry import PersonalMemoryError
from waymarks.personal.store import PersonalStore
from waymarks.service.learning import LearningConfigError, learning_enabled, learning_state

T = TypeVar("T")


def unblocked(fifos: Sequence[Path], action: Callable[[], T]) -> T:
    """``action()``'s result; fails (after releasing the FIFOs' readers: a writer opens
    and closes each) if it is still waiting after 20 s."""
    result: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(action())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            errors.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():
        for fifo in fifos:  # a reader waits for a writer, a writer for a reader
            for mode in (os.O_WRONLY, os.O_RDONLY):
                with contextlib.suppress(OSError):
                    os.close(os.open(fifo, mode | os.O_NONBLOCK))
        worker.join(5)
        pytest.fail("waited on a FIFO")
    if errors:
        raise errors[0]
    return result[0]


def test_read_regular_reads_files_and_refuses_anything_else(tmp_path: Path) -> None:
    plain, fifo = tmp_path / "plain.md", tmp_path / "pipe.md"
    plain.write_bytes(b"a" * 10)
    os.mkfifo(fifo)
    assert read_regular(plain) == b"a" * 10 and read_regular(plain, limit=10) == b"a" * 10
    with pytest.raises(OSError) as large:
        read_regular(plain, limit=9)
    assert large.value.errno == errno.EFBIG
    for other, kind in ((fifo, "a FIFO"), (tmp_path, "a directory"),
                        (Path(os.devnull), "a character device")):
        with pytest.raises(NotARegularFile, match=kind):
            unblocked([fifo], lambda other=other: read_regular(other))  # type: ignore[misc]
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing.md")


def test_personal_memory_lists_around_a_fifo_and_refuses_to_write_it(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.save("I prefer tabs over spaces.", name="Indentation")
    fifo = store.directory / "pipe.md"
    os.mkfifo(fifo)
    assert [e.name for e in unblocked([fifo], store.entries)] == ["Indentation"]
    with pytest.raises(PersonalMemoryError, match="not a regular file"):
        unblocked([fifo], lambda: store.save("into the pipe?", slug="pipe"))


def test_a_lock_that_is_no_regular_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.save("I prefer tabs over spaces.", name="Indentation")
    lock = store.directory / ".lock"
    lock.unlink()
    os.mkfifo(lock)
    for action in (lambda: store.save("Keep PRs small"), lambda: store.forget("indentation"),
                   store.rebuild_index):
        with pytest.raises(PersonalMemoryError, match=r"\.lock cannot be the lock: it is a "
                                                      r"FIFO; remove it"):
            unblocked([lock], action)
    lock.unlink()
    outside = tmp_path / "created-by-the-lock"
    lock.symlink_to(outside)
    with pytest.raises(PersonalMemoryError, match="it is a symbolic link; remove it"):
        store.save("Keep PRs small")
    assert not outside.exists() and not os.path.lexists(outside)
    lock.unlink()
    lock.mkdir()
    with pytest.raises(PersonalMemoryError, match="cannot be the lock"):
        store.save("Keep PRs small")
    assert [e.slug for e in store.entries()] == ["indentation"]


def test_a_personal_directory_that_is_a_file_is_refused_with_the_fix(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.directory.write_text("not a directory")
    with pytest.raises(PersonalMemoryError, match=r"memory is not a directory; move it or "
                                                  r"set \[personal\] directory"):
        store.save("Keep PRs small")
    assert store.directory.read_text() == "not a directory"
    entries, unread = store.scan()
    assert entries == [] and [u.file for u in unread] == [str(store.directory)]
    assert unread[0].reason.startswith("not a directory; move it")


def test_engineering_docs_skip_a_fifo(tmp_path: Path) -> None:
    docs = tmp_path / DOCS_DIR
    docs.mkdir(parents=True)
    (docs / "deploy.md").write_text("# Deploys\n\nDeploys run from the release branch.\n")
    fifo = docs / "pipe.md"
    os.mkfifo(fifo)
    chunks = unblocked([fifo], lambda: load_chunks(tmp_path))
    assert [c.source.split("#")[0] for c in chunks] == ["docs/engineering/deploy.md"]


def test_a_fifo_for_the_home_configuration_turns_learning_off_with_a_reason(
        tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    assert unblocked([fifo], lambda: learning_enabled(tmp_path)) is False  # fail closed
    with pytest.raises(LearningConfigError):
        unblocked([fifo], lambda: learning_state(tmp_path))


def test_a_fifo_in_the_team_directory_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "alice.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as refused:
        unblocked([fifo], lambda: _read_from(str(fifo), 0))
    assert refused.value.errno == errno.ENODEV
