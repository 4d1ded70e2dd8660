"""Fixtures of the recall tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.recall.everyday_store import Everyday, everyday_home


@pytest.fixture(scope="session")
def everyday(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Everyday]:
    """The everyday store, written once per process (a worker's): its tests only recall."""
    with everyday_home(tmp_path_factory.mktemp("everyday")) as store:
        yield store
