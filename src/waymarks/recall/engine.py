"""One recall evaluation: plan, score, gate, digest, and a bounded explanation.

Pure: candidates and statistics come in (from the SQLite index), a result goes out.
The explanation carries features, scores and verdicts but never record bodies, and is
capped at 8,000 bytes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.core.egress import Egress
from waymarks.recall.digest import MAX_CLAIMS, render_digest
from waymarks.recall.scoring import Candidate, QueryPlan, Scored, Stats, score_all
from waymarks.recall.subject import settle

if TYPE_CHECKING:  # (a recall without a semantic side never imports the fusion)
    from waymarks.recall.fusion import Semantic

MAX_EXPLAIN_BYTES: Final = 8000
MAX_EXPLAINED: Final = 10
MAX_FEATURES_SHOWN: Final = 32
MAX_MATCHES_SHOWN: Final = 16
MAX_FEATURE_CHARS: Final = 120


class RecallResult(msgspec.Struct, frozen=True):
    plan: QueryPlan
    scored: list[Scored]
    #: the digest for the destination ("" when nothing fits, or no egress was given)
    digest: str
    #: the IDs in the digest, and its rows (as the destination may see them)
    selected: list[str]
    rows: list[dict[str, object]]

    @property
    def eligible(self) -> list[Scored]:
        return [s for s in self.scored if s.eligible]

    def verdicts(self) -> dict[str, str]:
        """Each scored candidate's verdict as a person reads it, by ID: an eligible claim
        the digest left out says so (scoring calls every eligible one "selected"; the
        digest keeps at most 3, those whose rows fit)."""
        out = {s.candidate.id: s.reason for s in self.scored}
        chosen = set(self.selected)
        for at, s in enumerate(self.eligible):
            if s.reason == "selected" and s.candidate.id not in chosen:
                out[s.candidate.id] = (PAST_THE_CAP if at >= MAX_CLAIMS else
                                       "eligible, not in the digest (no room for its row, "
                                       "or nothing of it may be shown here)")
        return out


#: the verdict of an eligible claim past the digest's cap
PAST_THE_CAP: Final = f"eligible, past the digest's {MAX_CLAIMS} claims"


def evaluate(plan: QueryPlan, candidates: Sequence[Candidate], stats: Stats,
             egress: Egress | None = None, semantic: Semantic | None = None,
             eligible_only: bool = False, withheld: Collection[str] = frozenset()
             ) -> RecallResult:
    """Score and gate ``candidates``; with the destination's ``egress``, render the digest
    (without one, for callers that render the chosen records themselves, there is none).
    ``semantic``: the query's similarities, fused before the gates (see ``fusion``).
    ``eligible_only``: only the eligible ones are wanted (``scored`` may then lack some
    of the others; see :func:`score_all`). ``withheld``: the IDs of candidates the
    destination may not receive, judged only to be recorded as left out (never in the
    digest)."""
    plan = settle(plan, stats)  # (the result names the reading used)
    scored = score_all(plan, candidates, stats, semantic, eligible_only, withheld)
    if egress is None:
        return RecallResult(plan, scored, "", [], [])
    digest, rows = render_digest([s for s in scored if s.eligible
                                  and s.candidate.id not in withheld], egress)
    return RecallResult(plan, scored, digest, [str(r["id"]) for r in rows], rows)


def explain(result: RecallResult) -> dict[str, Any]:
    """Diagnostics without record bodies, at most 8,000 bytes when serialized."""
    import json  # (a recall that is not explained imports no json)

    verdicts = result.verdicts()
    report: dict[str, Any] = {
        "mode": result.plan.reason,
        "focus": list(result.plan.focus[:MAX_FEATURES_SHOWN]),
        "context": list(result.plan.context[:MAX_FEATURES_SHOWN]),
        "literals": sorted(result.plan.literals)[:MAX_FEATURES_SHOWN],
        **({"earlier": list(result.plan.earlier[:MAX_FEATURES_SHOWN])}
           if result.plan.earlier else {}),
        "candidates": len(result.scored),
        "eligible": len(result.eligible),
        "selected": result.selected,
        "scored": [
            {"id": s.candidate.id, "kind": s.candidate.kind, "status": s.candidate.status,
             "relevance": round(s.relevance, 4), "coverage": round(s.coverage, 4),
             "rank": round(s.rank, 4), "named": s.named, "eligible": s.eligible,
             "verdict": verdicts[s.candidate.id], "matched": list(s.matched[:MAX_MATCHES_SHOWN])}
            for s in result.scored[:MAX_EXPLAINED]
        ],
    }
    while len(json.dumps(report, ensure_ascii=False).encode()) > MAX_EXPLAIN_BYTES:
        report["truncated"] = True
        if report["scored"]:
            report["scored"].pop()
            continue
        for name in ("focus", "context", "literals"):  # very long literal features
            report[name] = [f[:MAX_FEATURE_CHARS] for f in report[name][: len(report[name]) // 2]]
        if not any(report[name] for name in ("focus", "context", "literals")):
            break
    return report
