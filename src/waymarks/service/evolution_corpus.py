"""The ranking corpus of a home's learned claims, kept per process and following writes.

Why: a long-lived process (the MCP server, the Claude Code helper, Pi's bridge) ranks
learned claims for every prompt. Building the corpus (reading every recallable claim, its
postings, document frequencies and the arrays of :mod:`.evolution_rank_dense`) costs
seconds of CPU at 100k claims; paying that after every write would make each prompt that
follows a capture, a feedback or an edit slow. So a built corpus follows the projection:
after a change it reads only the claims the change touched and updates itself in place
(:meth:`~waymarks.service.evolution_rank.Corpus.update`).

What must stay true:
- the corpus after a delta ranks exactly as one built afresh from the same projection
  (``tests/evolution/test_corpus_delta.py`` changes claims between queries in one process
  and compares every query with a fresh corpus's ranking);
- the touched claims are every claim an event after the cached checkpoint changed (the
  projection records those) and every claim a record appended since names (a confirmation
  or a re-derivation moves a claim's stamp without an event):
  :func:`waymarks.core.evolution.touched.claims_named`;
- anything the delta cannot vouch for builds afresh: another ledger, a shorter one, bytes
  before the old checkpoint that changed (a rewrite), a rebuilt projection folded past a
  different history, or slots emptied past a quarter of the live ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    RECALLABLE_STATES,
    decode_record,
)
from waymarks.core.evolution.touched import claims_named
from waymarks.ledger.entries import custom_entries_between
from waymarks.ledger.session_file import SessionFile
from waymarks.service.learning import ledger_path

if TYPE_CHECKING:
    from waymarks.core.evolution.rows import Analysis, ClaimRow
    from waymarks.recall.scoring import Candidate
    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution_rank import Corpus


class Cached(msgspec.Struct):
    """A corpus and the projection checkpoint it holds (signature, entries read)."""

    signature: tuple[str, str, str, str]
    entries: int
    corpus: Corpus
    #: deltas applied since it was built (diagnostics and tests)
    deltas: int = 0


def corpus_of(evo: Evolution, cached: Cached | None, to_ms: Callable[[str], int]
              ) -> tuple[Cached, list[tuple[str, Analysis]]]:
    """The corpus of ``evo``'s projection now (synced by the caller): ``cached`` itself
    when nothing changed, ``cached`` brought up to date by a delta when it can be, else a
    fresh one; with the analyses computed now (the caller persists them: outside this
    read transaction). ``to_ms``: a claim's date in epoch milliseconds, as recall's."""
    from waymarks.service.evolution_analysis import stored_candidate
    from waymarks.service.evolution_rank import Corpus

    with evo.store.reading():
        signature = evo.store.signature()
        entries = evo.store.entries_folded()
        if cached is not None and cached.signature == signature:
            return cached, []
        if cached is not None:
            fresh = _delta(evo, cached, signature, to_ms)
            if fresh is not None:
                cached.signature, cached.entries = signature, entries
                cached.deltas += 1
                return cached, fresh
        rows, _bad = evo.store.readable_claims(sorted(RECALLABLE_STATES))
        levels = evo.store.source_levels()
        stored = evo.store.analyses()
    pairs = []
    computed: list[tuple[str, Analysis]] = []
    for r in rows:
        base, analysis = stored_candidate(r, levels.get(r.source_id), to_ms(r.updated_at),
                                          stored.get(r.id))
        pairs.append((r, base))
        if analysis is not None:
            computed.append((r.id, analysis))
    return Cached(signature, entries, Corpus(pairs)), computed


def _delta(evo: Evolution, cached: Cached, signature: tuple[str, str, str, str],
           to_ms: Callable[[str], int]) -> list[tuple[str, Analysis]] | None:
    """Update ``cached.corpus`` by the claims touched since its checkpoint; ``None``
    (the corpus may be half updated: the caller builds afresh) when it cannot."""
    from waymarks.service.evolution_analysis import base_candidate, stored_candidate

    ledger, folded, offset, fingerprint = cached.signature
    if (signature[0] != ledger or int(signature[1]) < int(folded)
            or int(signature[2]) < int(offset)):
        return None
    # only the bytes the projection folded since the corpus's checkpoint are read: opening
    # the ledger read all of it (seconds at 60k learned claims) for a capture's few lines
    log = SessionFile.unread(ledger_path(evo.home))
    touched = evo.store.changed_since(int(folded))
    try:
        if log.fingerprint(int(offset)) != fingerprint:
            return None  # not the ledger the corpus was built from
        for entry in custom_entries_between(log, EVOLUTION_CUSTOM_TYPE, int(offset),
                                            int(signature[2])):
            record = decode_record(entry.data)
            if record is not None:
                touched |= claims_named(record)
    except OSError:  # gone or unreadable since the sync: build afresh (it says why)
        return None
    if not touched:
        return []
    rows, _bad = evo.store.readable_by_id(sorted(touched), sorted(RECALLABLE_STATES))
    corpus = cached.corpus
    changed: list[tuple[ClaimRow, Candidate]] = []
    computed: list[tuple[str, Analysis]] = []
    levels = evo.store.source_levels()
    for row in rows:
        level = levels.get(row.source_id)
        if row.id in corpus.position:  # the same ID: the same content, origin and terms
            changed.append((row, base_candidate(row, level, to_ms(row.updated_at))))
            continue
        base, analysis = stored_candidate(row, level, to_ms(row.updated_at), None)
        changed.append((row, base))
        if analysis is not None:
            computed.append((row.id, analysis))
    kept = {row.id for row in rows}
    removed = sorted(cid for cid in touched if cid not in kept)
    return computed if corpus.update(changed, removed) else None
