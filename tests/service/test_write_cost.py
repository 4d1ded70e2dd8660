"""What one write costs beyond append, project and flush (issue 15): a write compares its
claim with every active claim its session sees, and must not analyse each of them again."""

from __future__ import annotations

from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected


def test_a_write_analyses_only_claims_it_has_not_seen(app: Waymarks) -> None:
    for i in range(40):
        assert isinstance(app.remember(f"Worker pool {i} runs {i + 2} threads"), Committed)
    before = signature.cache_info()
    assert isinstance(app.remember("Worker pool 99 runs 7 threads"), Committed)
    after = signature.cache_info()
    # the 40 earlier claims were still compared (hits), but only the new one analysed
    assert after.misses - before.misses <= 1
    assert after.hits - before.hits >= 40


def test_memoised_signatures_still_refuse_a_contradiction(app: Waymarks) -> None:
    assert isinstance(app.remember("Package export mode defaults to PerEndpoint."), Committed)
    assert isinstance(app.remember("Package export mode defaults to SingleFile."), Rejected)
