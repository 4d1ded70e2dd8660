"""A learned claim's analysis (:func:`waymarks.recall.learned.candidate`: its features as
scoring sees them, without read-time factors), computed once: cached per process by (ID,
content, search terms, classification, update), so a long-lived host process analyses a
claim once, and persisted by :func:`analysis_key`, so a new process reads it back instead
of analysing every claim again (:func:`stored_candidate`).

What must stay true: a stored analysis is used only when its key is the digest of what it
was computed from, the analyser's fingerprint (:func:`_analyser`) included, so a change to
the analysis code, its rules or the Chinese segmenter in use is never answered with an
analysis made otherwise; and a candidate built from a stored analysis is the value
:func:`base_candidate` gives.
"""

from __future__ import annotations

import json
from typing import Final

import msgspec

from waymarks.core.digests import sha256
from waymarks.core.evolution.rows import Analysis, ClaimRow
from waymarks.recall.learned import LearnedClaim, candidate
from waymarks.recall.scoring import Candidate
from waymarks.service.segmenter import segmenter

MAX_CACHED: Final = 250_000
_CACHE: dict[tuple[str, str, tuple[str, ...], str | None, str], Candidate] = {}


def learned(row: ClaimRow, level: str | None, updated_ms: int) -> LearnedClaim:
    return LearnedClaim(row.id, row.kind, row.state, row.origin, row.content, row.search_terms,
                        f"{row.basis}/{row.method}", row.source_id, updated_ms, level)


def base_candidate(row: ClaimRow, level: str | None, updated_ms: int) -> Candidate:
    """The claim analysed as scoring sees it (cached), without read-time factors."""
    key = (row.id, row.content, row.search_terms, level, row.updated_at)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= MAX_CACHED:
            _CACHE.clear()
        found = _CACHE[key] = candidate(learned(row, level, updated_ms))
    return found


#: bump when :func:`waymarks.recall.learned.candidate` analyses a claim differently
ANALYSIS_VERSION: Final = 3
#: (no Han character: analysing one loads the segmenter, which the fingerprint names)
_PROBE: Final = ("Deploy the `api-v2` to /srv/app.toml on port 8080 with Kamal; "
                 "'tabs' not spaces, staging-db")
_ANALYSER: list[str] = []


def _analyser() -> str:
    """A fingerprint of the analyser: the version, the digest of the analysis code (as the
    recall index re-indexes by it), what it makes of a probe text (a change to the
    analysis rules changes it, so persisted analyses are not reused) and the Chinese
    segmenter it would use (:mod:`waymarks.service.segmenter`)."""
    if not _ANALYSER:
        from waymarks.store.recall_index import analysis_fingerprint

        probe = candidate(LearnedClaim("p", "fact", "provisional", "/probe/origin", _PROBE,
                                       ("probe term",), "", "", 0))
        parts = [sorted(probe.body), sorted(probe.aliases), sorted(probe.quoted),
                 sorted(probe.origin_features), probe.body_count]
        _ANALYSER.append(f"{ANALYSIS_VERSION}:{analysis_fingerprint()}:"
                         f"{json.dumps(parts, ensure_ascii=False)}:{segmenter()}")
    return _ANALYSER[0]


def analysis_key(row: ClaimRow) -> str:
    """The digest of what a claim's analysis is computed from."""
    data = _KEY_ENCODER.encode((_analyser(), row.content, row.search_terms, row.origin))
    return sha256(data).hexdigest()


_KEY_ENCODER: Final = msgspec.json.Encoder()


def analysis_of(base: Candidate, key: str) -> Analysis:
    """The persisted form of a base candidate's analysis."""
    return Analysis(key, tuple(sorted(base.body)), tuple(sorted(base.aliases)),
                    tuple(sorted(base.quoted)), tuple(sorted(base.origin_features)),
                    base.body_count)


def stored_candidate(row: ClaimRow, level: str | None, updated_ms: int,
                     stored: Analysis | None) -> tuple[Candidate, Analysis | None]:
    """The claim's base candidate from its stored analysis when that was computed from
    the same inputs (no analysis: the same value :func:`base_candidate` gives), else
    analysed now; with the analysis to store when it had to be computed."""
    key = analysis_key(row)
    if stored is not None and stored.key == key:
        cache_key = (row.id, row.content, row.search_terms, level, row.updated_at)
        found = _CACHE.get(cache_key)
        if found is None:  # the fields :func:`candidate` takes from the claim, as it does
            found = Candidate(
                id=row.id, kind=row.kind,
                status="active" if row.state == "provisional" else row.state,
                origin=row.origin, created_at=updated_ms, text=row.content,
                body=frozenset(stored.body), aliases=frozenset(stored.aliases),
                quoted=frozenset(stored.quoted), origin_features=frozenset(stored.origin),
                body_count=stored.body_count, evidence=f"{row.basis}/{row.method}",
                source=row.source_id, classification=level)
            if len(_CACHE) >= MAX_CACHED:
                _CACHE.clear()
            _CACHE[cache_key] = found
        return found, None
    base = base_candidate(row, level, updated_ms)
    return base, analysis_of(base, key)
