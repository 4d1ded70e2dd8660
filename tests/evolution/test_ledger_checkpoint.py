"""A sync whose projection already folded the whole evolution ledger reads 256 bytes of
it, not all of it (every prompt's plan syncs); anything appended, cut or replaced since is
still folded or refused by the full path, and incremental still equals rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    ClaimRecord,
    Evidence,
    claim_id,
    encode_record,
)
from waymarks.ledger.session_file import SessionFile
from waymarks.service.evolution import Evolution
from waymarks.service.learning import ledger_path

T = "2026-12-01T10:00:00.000Z"


def _captured(home: Path, n: int, start: int = 0) -> None:
    """``n`` learned claims appended to the ledger (and projected, as a write does)."""
    with Evolution(home) as evo, evo.ledger.locked():
        for k in range(start, start + n):
            text = f"The build uses worker pool {k}."
            record = ClaimRecord(SCHEMA_VERSION, claim_id("/w/a", "fact", text), "/w/a",
                                 "fact", text, Evidence("user_statement", "model", "s1", T))
            evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                               "data": encode_record(record), "timestamp": T},
                              evo.ids.entry_id)
        evo.sync()


def _claims(home: Path) -> list[tuple[str, str]]:
    with Evolution(home) as evo:
        evo.sync()
        return sorted((r.id, r.state) for r in evo.store.claims())


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    opened: list[Path] = []
    real = SessionFile.open.__func__  # type: ignore[attr-defined]

    def counting(cls: type[SessionFile], path: Path, progress: object = None) -> SessionFile:
        opened.append(path)
        return real(cls, path, progress)  # type: ignore[no-any-return]

    monkeypatch.setattr(SessionFile, "open", classmethod(counting))
    return opened


def test_a_current_projection_does_not_read_the_ledger(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _captured(tmp_path, 3)
    before = _claims(tmp_path)
    opened = _reads(monkeypatch)
    with Evolution(tmp_path) as evo:
        assert evo.sync() == 0
    assert opened == []
    assert _claims(tmp_path) == before and len(before) == 3


def test_bytes_appended_by_another_writer_are_still_folded(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    _captured(tmp_path, 2)
    path = ledger_path(tmp_path)
    folded = path.read_bytes()
    _captured(tmp_path, 2, start=2)  # the lines another process appends
    appended = path.read_bytes()
    with Evolution(tmp_path) as evo:  # this projection saw only the first two
        evo.sync()
        evo.rebuild()
    path.write_bytes(folded)
    with Evolution(tmp_path) as evo:
        evo.rebuild()
    path.write_bytes(appended)
    opened = _reads(monkeypatch)
    assert len(_claims(tmp_path)) == 4
    assert opened == [path]
    incremental = _claims(tmp_path)
    with Evolution(tmp_path) as evo:
        evo.rebuild()
    assert _claims(tmp_path) == incremental


@pytest.mark.parametrize("change", ["cut", "rewritten"])
def test_a_ledger_changed_behind_the_checkpoint_is_read_again(tmp_path: Path, change: str
                                                              ) -> None:
    _captured(tmp_path, 3)
    path = ledger_path(tmp_path)
    data = path.read_bytes()
    if change == "cut":
        path.write_bytes(b"".join(data.splitlines(keepends=True)[:-1]))
    else:  # the same length, another text in the last line
        path.write_bytes(data.replace(b"worker pool 2", b"worker pool 9"))
    assert path.read_bytes() != data
    after = _claims(tmp_path)
    (tmp_path / "waymarks.db").unlink()
    assert after == _claims(tmp_path)  # what a projection folded afresh holds


def test_a_warm_corpus_follows_appended_claims_without_reading_the_ledger(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waymarks.service import evolution_recall
    from waymarks.service.evolution_corpus import corpus_of

    _captured(tmp_path, 3)
    monkeypatch.setattr(evolution_recall, "_CORPORA", {})
    assert evolution_recall._corpus(tmp_path) is not None
    _captured(tmp_path, 2, start=3)  # another process's writes, projected by it
    opened = _reads(monkeypatch)
    warm = evolution_recall._corpus(tmp_path)
    assert opened == []
    assert evolution_recall._CORPORA[str(tmp_path)].deltas == 1
    with Evolution(tmp_path) as evo:
        fresh = corpus_of(evo, None, evolution_recall._ms)[0].corpus
    assert warm is not None
    assert sorted(b.id for _r, b in warm.live_pairs()) == \
        sorted(b.id for _r, b in fresh.live_pairs())
    assert len(warm) == 5
