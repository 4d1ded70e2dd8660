"""Trusting and untrusting from several places at once (each test failed before its fix:
the list was read, changed and replaced with no lock, so writers dropped each other's
change: 12 parallel `trust` left 3 listed)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from waymarks.service import trust
from waymarks.service.trust import TrustStore


@pytest.fixture
def slow_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each replace of the list takes 30 ms (a disk's fsync): the window in which another
    writer's read-modify-write can interleave, as wide on tmpfs as on a real disk."""
    real = trust.write_atomic

    def slow(*args: Any, **kwargs: Any) -> None:
        time.sleep(0.03)
        real(*args, **kwargs)

    monkeypatch.setattr(trust, "write_atomic", slow)


def _all_at_once(calls: list[tuple[str, Path]], home: Path) -> None:
    """Each call from its own thread and its own store (its own lock descriptor, as
    another process has), all started together."""
    start = threading.Barrier(len(calls))
    failures: list[BaseException] = []

    def one(verb: str, path: Path) -> None:
        store = TrustStore(home)
        start.wait()
        try:
            getattr(store, verb)(str(path))
        except BaseException as problem:  # noqa: BLE001 (reported below)
            failures.append(problem)

    threads = [threading.Thread(target=one, args=call) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures


def _listed(home: Path) -> set[str]:
    return set(json.loads((home / "trusted-projects.json").read_text())["projects"])


def _projects(tmp_path: Path, count: int) -> list[Path]:
    made = [tmp_path / f"p{n}" for n in range(count)]
    for path in made:
        path.mkdir()
    return made


@pytest.mark.usefixtures("slow_writes")
def test_parallel_trusts_all_stay(home: Path, tmp_path: Path) -> None:
    projects = _projects(tmp_path, 12)
    _all_at_once([("trust", p) for p in projects], home)
    assert _listed(home) == {str(p.resolve()) for p in projects}


@pytest.mark.usefixtures("slow_writes")
def test_an_untrust_beside_trusts_is_not_undone(home: Path, tmp_path: Path) -> None:
    projects = _projects(tmp_path, 6)
    TrustStore(home).trust(str(projects[0]))
    _all_at_once([("untrust", projects[0]), *(("trust", p) for p in projects[1:])], home)
    assert _listed(home) == {str(p.resolve()) for p in projects[1:]}
