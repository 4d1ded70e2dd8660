"""The recall of a query: the candidates a session may see, read from the recall index
(or the long-lived process's cache of it), words and meaning, then judged for the
destination (:meth:`waymarks.service.app.Waymarks.recall` says what it answers)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from waymarks.recall.engine import RecallResult, evaluate
from waymarks.recall.plan import INHERITED, direct_plan, plan_query
from waymarks.recall.scoring import unheld_literal
from waymarks.service import api_args
from waymarks.service.planning import admission, egress_for
from waymarks.spawn.switches import SEMANTIC, switched_on

if TYPE_CHECKING:
    from waymarks.recall.fusion import Semantic
    from waymarks.recall.scoring import Candidate
    from waymarks.service.app import Waymarks
    from waymarks.store.recall_cache import RecallCache
    from waymarks.store.recall_index import RecallIndex


def recall(app: Waymarks, query: str, history: Sequence[str], *, inherit: bool,
           provider: str | None, privacy: bool, every_candidate: bool, eligible_only: bool,
           withheld: bool, every_status: bool) -> RecallResult:
    """:meth:`~waymarks.service.app.Waymarks.recall`, for the ``app`` it was called on."""
    api_args.recall_args(query, history, provider)
    session = app.refresh()
    index = app.projection.recall_index()
    # a long-lived process asks again only once the projection changed since its index
    # was last found up to date (five statements of a warm plan's sixteen, every prompt)
    cache = app._recall_cache if app.keep_recall_index else None
    token = (index.epoch.token() if app.keep_recall_index and index.epoch is not None
             else None)
    checked = cache is not None and token is not None and token == cache.checked
    if not checked and index.behind():
        from waymarks.service.projection_fill import catch_up, unindexed

        if app.read_only:  # (a full disk: nothing can be indexed, and the person is told)
            unindexed(app, index.lag())
        else:
            catch_up(app, index)
        token = None  # (perhaps not all of it in time: asked again by the next recall)
    plan = plan_query(query, history) if inherit else direct_plan(query)
    # without a session, the trusted project's claims (as for `items`)
    visible = (session.session_id if session else "", app.cwd if app.project_trusted
               else None)
    features = (*plan.focus, *plan.context)
    # the admission below needs each candidate's explicit classification: read with
    # the candidates, from the same verified items rows (one query, not three)
    classes: dict[str, str | None] | None = {} if privacy else None
    if not app.keep_recall_index:
        stats = index.stats(features)
    else:
        if app._recall_cache is None:
            from waymarks.service.warm import settle_heap
            from waymarks.store.recall_cache import RecallCache

            app._recall_cache = RecallCache(index)
            app._recall_cache.refresh()
            settle_heap()  # a long-lived process: its working set is loaded now
        cache = app._recall_cache
        cache.index = index
        if not checked:
            cache.refresh()
            cache.checked = token
        stats = cache.stats(features)
    near = None
    if not every_candidate and unheld_literal(plan, stats) is not None:
        candidates = []  # the literal gate refuses every record
    else:
        candidates = (index.candidates(plan, visible_to=visible, stats=stats, classes=classes,
                                       active_only=not every_status) if cache is None
                      else cache.candidates(plan, stats, visible_to=visible, classes=classes,
                                            active_only=not every_status))
        # hybrid recall (issue 20): only the query is embedded (not a follow-up's: its
        # subject is an earlier turn's; by words). Switched off, no embedder is loaded
        # (semantic.load): its modules are not even imported (~1.2 ms of a hook's CPU);
        # nor by a hook's own process that starts a helper for the next prompts
        # (:mod:`~waymarks.service.recall_mode`)
        if plan.reason not in INHERITED and switched_on(os.environ.get(SEMANTIC, "")) \
                and _meaning_allowed():
            candidates, near = _semantic_side(app, index, query, candidates, visible, cache,
                                              active_only=not every_status)
    if not privacy:
        return evaluate(plan, candidates, stats, semantic=near, eligible_only=eligible_only)
    egress = egress_for(app, provider)
    kept, left = admission(app, candidates, egress, classes or {}, withheld)
    return evaluate(plan, kept, stats, None if withheld else egress, near, eligible_only, left)


def _semantic_side(app: Waymarks, index: RecallIndex, query: str,
                   candidates: Sequence[Candidate], visible: tuple[str, str | None],
                   cache: RecallCache | None, *, active_only: bool
                   ) -> tuple[list[Candidate], Semantic | None]:
    """:func:`~waymarks.service.semantic_recall.semantic_side_for`, with the long-lived
    process's memo of the vectors (made at its first recall)."""
    from waymarks.service import semantic_recall
    from waymarks.service.semantic_memo import VectorMemo

    memo = None
    if app.keep_recall_index:
        if app._vector_memo is None:
            app._vector_memo = VectorMemo()
        memo = app._vector_memo
    return semantic_recall.semantic_side_for(app, index, query, candidates, visible, memo,
                                             cache, active_only=active_only)


def _meaning_allowed() -> bool:
    """Whether this process may recall by meaning (:mod:`~waymarks.service.recall_mode`),
    asked only with hybrid recall on: a lexical hook imports no more of it."""
    from waymarks.service.recall_mode import meaning_allowed

    return meaning_allowed()
