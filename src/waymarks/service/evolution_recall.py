"""Recall of learned (evolved) claims, for ``recall``, ``memory_recall`` and the planner.

Global by design: every recallable learned claim of the home is a candidate, whatever its
origin (origin is provenance, not a boundary). The relevance policy is recall's own
(:mod:`waymarks.recall.learned`), with the model's search terms as aliases. Results carry
provenance (origin, evidence basis/method, source ID, date) and are always labelled
provisional. Nothing here writes; a home that never learned anything costs one ``stat``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from waymarks.core.egress import Egress
from waymarks.recall.digest import render_digest
from waymarks.recall.engine import RecallResult, evaluate
from waymarks.recall.learned import LearnedClaim, candidate, corpus_stats
from waymarks.recall.plan import direct_plan, plan_query
from waymarks.service.learning import ledger_path

if TYPE_CHECKING:  # the planner loads where a plan is made, not on recall's path
    from waymarks.planner.learned import LearnedBlock


def learned_claims(home: Path) -> list[LearnedClaim]:
    """Every recallable learned claim of ``home`` (none without an evolution ledger)."""
    if not ledger_path(home).is_file():
        return []
    from waymarks.core.evolution.model import RECALLABLE_STATES
    from waymarks.service.evolution import Evolution

    with Evolution(home) as evo:
        rows = evo.claims(sorted(RECALLABLE_STATES))
        levels = {s.source_id: s.classification for s in evo.store.sources()}
    return [LearnedClaim(r.id, r.kind, r.state, r.origin, r.content, r.search_terms,
                         f"{r.basis}/{r.method}", r.source_id, _ms(r.updated_at),
                         levels.get(r.source_id)) for r in rows]


def recall_learned(home: Path, query: str, history: Sequence[str] = (), *,
                   egress: Egress | None = None, inherit: bool = True) -> RecallResult:
    """Learned claims ``query`` (with the recent user turns) is about, precision first;
    with ``egress``, rendered as a digest for that destination (inadmissible ones left out)."""
    plan = plan_query(query, history) if inherit else direct_plan(query)
    claims = learned_claims(home)
    candidates = [candidate(c) for c in claims]
    if egress is not None:
        candidates = [c for c in candidates
                      if egress.admits_all_up_to(egress.level(c.text, c.classification))]
    stats = corpus_stats(candidates, (*plan.focus, *plan.context))
    result = evaluate(plan, candidates, stats)
    if egress is None:
        return result
    # scored as recallable ("active" to the gates); shown for what it is: provisional
    shown = [replace(s, candidate=replace(s.candidate, status="provisional"))
             for s in result.eligible]
    digest, rows = render_digest(shown, egress)
    return replace(result, digest=digest, selected=[str(r["id"]) for r in rows], rows=rows)


def learned_blocks(home: Path, prompt: str, history: Sequence[str]) -> list[LearnedBlock]:
    """The planner's learned block inputs: eligible learned claims, best first (the
    planner applies the privacy policy and the budget, and records what it left out)."""
    from waymarks.planner.learned import LearnedBlock

    result = recall_learned(home, prompt, history)
    return [LearnedBlock(s.candidate.id, s.candidate.kind, s.candidate.text,
                         s.candidate.origin, s.candidate.evidence, s.candidate.source,
                         datetime.fromtimestamp(s.candidate.created_at / 1000, UTC)
                         .strftime("%Y-%m-%d"), s.rank, s.candidate.classification)
            for s in result.eligible[:3]]


def _ms(stamp: str) -> int:
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


LEARNED_LABEL = "[learned, provisional — not confirmed by the person]"


def learned_digest(digest: str) -> str:
    """A learned digest, labelled so it is never mistaken for confirmed memory."""
    return f"{LEARNED_LABEL}\n{digest}" if digest else ""
