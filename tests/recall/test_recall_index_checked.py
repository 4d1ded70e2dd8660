"""A long-lived process (``keep_recall_index=True``) asks whether its recall index is
behind only when the projection changed since it last found it was not (the change token
of :mod:`waymarks.store.epoch`): a helper's prompts, one after another on a store nothing
writes to, each asked again (five statements of a plan's sixteen). A change by this
process or another is still indexed before the next recall ranks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import CountingIds
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

#: the statements of the index's check (:meth:`~waymarks.store.recall_index.RecallIndex
#: .behind`) and of the cache's refresh (:meth:`~waymarks.store.recall_cache.RecallCache
#: .refresh`): the watermark, the analysis note, the generation, the last memory's number
CHECKS = ("recall_seq", "recall_generation", "WITH RECURSIVE owners")


def test_a_warm_recall_checks_the_index_only_after_a_change(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    helper = make_app(keep_recall_index=True, ids=CountingIds(1))
    assert isinstance(helper.remember("The billing service listens on port 8080."), Committed)
    helper.recall("which port does the billing service use?")  # (indexes the claim)
    first = helper.recall("which port does the billing service use?")  # (finds it indexed)
    assert len(first.selected) == 1
    statements: list[str] = []
    helper.projection.db.set_trace_callback(statements.append)
    again = helper.recall("which port does the billing service use?")
    helper.projection.db.set_trace_callback(None)
    assert again.selected == first.selected
    assert statements  # (the refresh still reads the session's checkpoint)
    assert [s for s in statements if any(check in s for check in CHECKS)] == []

    # another process's claim, in the same session: indexed before the next recall ranks
    writer = make_app(ids=CountingIds(2))
    assert isinstance(writer.remember("The search service listens on port 9090."), Committed)
    assert len(helper.recall("which port does the search service use?").selected) == 1
    # and this process's own
    assert isinstance(helper.remember("The gateway service listens on port 7070."), Committed)
    assert len(helper.recall("which port does the gateway service use?").selected) == 1
