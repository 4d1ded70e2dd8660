"""Learned (evolved) claims as recall candidates: the model's ``searchTerms`` as aliases.

Evolved claims are scored by the same policy as memory (:mod:`.scoring`: the same gates,
weights and relative cutoff, no recency fallback), with their search terms in the
``aliases`` field, weighed 0.8 like any alias and able to *name* a record's topic when rare
in the store (seed 004's rule). They are a corpus of their own: their statistics (record
count, document frequencies) are computed over the learned claims, so a learned claim
never changes how explicit memory scores, and vice versa.

Pure: the claims come in as plain values, candidates and statistics go out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import msgspec

from waymarks.recall.analysis import analyze, origin_features
from waymarks.recall.scoring import Candidate, Stats


class LearnedClaim(msgspec.Struct, frozen=True):
    id: str
    kind: str
    state: str
    origin: str
    content: str
    search_terms: tuple[str, ...]
    evidence: str  # "basis/method"
    source: str  # the source ID it was learned from
    updated_ms: int
    classification: str | None = None


def candidate(claim: LearnedClaim) -> Candidate:
    """The claim as scoring sees it, analysed as the recall index analyses a record."""
    body = analyze(claim.content)
    aliases = frozenset(f for term in claim.search_terms for f in analyze(term).features)
    origin = frozenset(origin_features(claim.origin)) if claim.origin else frozenset()
    # recallable learned claims pass the lifecycle gate as "active" (callers show them as
    # provisional); any other state stays what it is and is gated out
    status = "active" if claim.state == "provisional" else claim.state
    return Candidate(id=claim.id, kind=claim.kind, status=status, origin=claim.origin,
                     created_at=claim.updated_ms, text=claim.content,
                     body=frozenset(body.features), aliases=aliases,
                     quoted=frozenset(body.quoted), origin_features=origin,
                     body_count=len(body.features), evidence=claim.evidence,
                     source=claim.source, classification=claim.classification)


def corpus_stats(candidates: Sequence[Candidate], features: Iterable[str]) -> Stats:
    """Record count and document frequency of ``features`` over the learned claims."""
    wanted = set(features)
    df: Counter[str] = Counter()
    for c in candidates:
        df.update(wanted & (c.body | c.aliases | c.quoted))
    return Stats(len(candidates), dict(df))
