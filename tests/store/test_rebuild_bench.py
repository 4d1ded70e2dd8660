"""``benchmarks/rebuild.py`` times the rebuild ``waymarks rebuild-index`` runs: the
projection rebuilt in place, in one transaction (``Projection.rebuild``). It kept a branch
for ``Projection.rebuild_fresh`` (a rebuild into a new file, reverted in 48a97980), dead
since, which a tree having that method would have timed instead. Its smallest run here."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import pytest

from waymarks.store.projection import Projection

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_benchmark_times_the_in_place_rebuild(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import rebuild

    calls: list[int] = []
    real = Projection.rebuild

    def counted(self: Projection, *args: Any, **kwargs: Any) -> int:
        calls.append(1)
        return real(self, *args, **kwargs)

    def elsewhere(self: Projection, *args: Any) -> NoReturn:
        raise AssertionError("not the rebuild rebuild-index runs")

    monkeypatch.setattr(Projection, "rebuild", counted)
    monkeypatch.setattr(Projection, "rebuild_fresh", elsewhere, raising=False)
    result = rebuild.run_one(200, 1, str(tmp_path))
    assert calls == [1]
    assert result["mutations"] == 200
    assert result["replayed"] == 200
    assert result["recall_records"] > 0
    assert result["dump"]  # row digests of the tables written
