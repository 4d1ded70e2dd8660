"""Read-only inspection of learned memory: list, search, show, history, explain, learning.

Everything here reads the projection (brought up to date from the evolution ledger first)
and returns plain JSON-ready dicts; nothing writes. ``list``, ``search`` and ``show`` return
the claims' text because showing a person their own learned memory is their purpose;
``history`` shows states and field names, ``explain`` scores and features, ``learning``
codes and counts: none of those three carries a claim's or a source's text.

Given an ``egress`` (the MCP ``learned_memory`` tool: its answer goes to a model, not to a
person), ``list``, ``search`` and ``show`` render each claim through it like every other
path to a model: a claim whose level (its source's classification, raised by markers) the
destination may not receive is named by ID only, under ``withheld``; the others' text is
what the destination may see (credentials redacted for a remote provider). A claim the
person forgot is named by ID and state only (``{"id", "state": "forgotten"}``): it never
recalls, and the person wanted it gone from what a model is given (the listing gave its
text to the model); the person's own listing still shows it.

A malformed row never breaks a listing: it is left out and named in ``badRows``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from waymarks.core.egress import Egress
from waymarks.core.evolution.aging import aging
from waymarks.core.evolution.rows import Change, ClaimRow
from waymarks.service.evolution import Evolution
from waymarks.service.learning import has_ledger
from waymarks.service.ports import iso
from waymarks.store.evolution import EventRow

if TYPE_CHECKING:
    from collections.abc import Sequence

    from waymarks.planner.select import MemoryInput, PinInput
    from waymarks.recall.engine import RecallResult
    from waymarks.service.evolution_recall import Contradicted

PAGE_SIZE: Final = 20
SEARCH_LIMIT: Final = 10
HISTORY_LIMIT: Final = 10
LEARNING_LIMIT: Final = 10
LEGACY_ORIGIN: Final = "legacy"
SCOPES: Final = ("all", "here", "legacy")


def _now(now: str | None) -> str:
    return now or iso(datetime.now(UTC))


def claim_json(row: ClaimRow, now: str) -> dict[str, Any]:
    age = aging(row.kind, row.confirmed_at, now)
    return {"id": row.id, "kind": row.kind, "state": row.state, "status": "provisional"
            if row.state == "provisional" else row.state, "origin": row.origin,
            "content": row.content, "searchTerms": list(row.search_terms),
            "evidence": {"basis": row.basis, "method": row.method, "sourceId": row.source_id,
                         "at": row.updated_at},
            "confirmedAt": row.confirmed_at,
            "aging": {"ageDays": round(age.age_days, 2),
                      "freshness": 1.0 if row.pinned else round(age.freshness, 4),
                      "dormant": age.dormant and not row.pinned},
            "pinned": row.pinned,
            "feedback": {"utility": _slot(row.utility), "accuracy": _slot(row.accuracy)},
            "replaces": row.replaces, "supersededBy": row.superseded_by,
            "conflictsWith": row.conflicts_with}


def _rendered(row: ClaimRow, level: str | None, stamp: str, egress: Egress | None
              ) -> dict[str, Any] | None:
    """:func:`claim_json` as ``egress`` may see it (``None``: it may not receive the claim;
    a forgotten claim by ID and state only); without an egress, as it is stored (the
    person's own listing)."""
    if _forgotten_for(row, egress):
        return {"id": row.id, "state": row.state}
    shown = claim_json(row, stamp)
    if egress is None:
        return shown
    folded = egress.level(row.content, level)
    text = egress.text(row.content, folded) if egress.admits_all_up_to(folded) else None
    if text is None:
        return None
    terms = (egress.text(t, folded) for t in row.search_terms)
    # source IDs are read from the learned ledger, which a hand edit can make hold anything
    feedback = {name: slot and {**slot, "sourceId": egress.label(slot["sourceId"])}
                for name, slot in shown["feedback"].items()}
    return {**shown, "content": text, "searchTerms": [t for t in terms if t],
            "origin": egress.label(row.origin), "feedback": feedback,
            "evidence": {**shown["evidence"], "sourceId": egress.label(row.source_id)}}


def _forgotten_for(row: ClaimRow, egress: Egress | None) -> bool:
    """Whether ``row`` is a forgotten claim going to a model (named by ID and state only)."""
    return egress is not None and row.state == "forgotten"


def _slot(slot: tuple[str, str, str] | None) -> dict[str, str] | None:
    return None if slot is None else {"verdict": slot[0], "sourceId": slot[1], "at": slot[2]}


def _empty(home: Path) -> bool:
    return not has_ledger(home)


def list_claims(home: Path, scope: str = "all", page: int = 1, cwd: str = "",
                now: str | None = None, egress: Egress | None = None,
                mine: Contradicted | None = None) -> dict[str, Any]:
    """One page (20) of learned claims in every state, newest update first, then ID;
    ``here``: those learned in ``cwd``'s project (its canonical path); with ``egress``,
    rendered for it (see the module docstring)."""
    from waymarks.ledger.identity import canonical_project_path

    here = canonical_project_path(cwd) if cwd else ""
    stamp = _now(now)
    rows: list[ClaimRow] = []
    bad: list[str] = []
    levels: dict[str, str] = {}
    if not _empty(home):
        with Evolution(home) as evo:
            evo.sync()
            rows, bad = evo.store.readable_claims()
            levels = evo.store.source_levels()
    if scope == "here":
        rows = [r for r in rows if r.origin == here]
    elif scope == "legacy":
        rows = [r for r in rows if r.origin == LEGACY_ORIGIN]
    rows.sort(key=lambda r: r.id)
    rows.sort(key=lambda r: r.updated_at, reverse=True)
    start = (page - 1) * PAGE_SIZE
    claims, withheld = _page(rows[start:start + PAGE_SIZE], levels, stamp, egress,
                             mine=mine)
    return {"scope": scope, "page": page, "pageSize": PAGE_SIZE, "total": len(rows),
            # a bad row is named by its ID, which a hand-made record can fill with anything
            "claims": claims, "badRows": [_labeller(egress)(b) for b in bad],
            **({"withheld": withheld} if egress else {})}


def _page(rows: list[ClaimRow], levels: dict[str, str], stamp: str, egress: Egress | None,
          extra: dict[str, dict[str, Any]] | None = None, mine: Contradicted | None = None
          ) -> tuple[list[dict[str, Any]], list[str]]:
    """``rows`` rendered for ``egress`` (each with its ``extra`` fields), and the IDs of
    those it may not receive; with ``mine``, a claim whose text the person holds or
    contradicts is one of those (as in ``recall_learned``: a learned copy of their
    sensitive sentence, or its contradiction, went to the model through these)."""
    claims, withheld = [], []
    for row in rows:
        held = mine is not None and not _forgotten_for(row, egress) and \
            mine(row.content) is not None
        shown = None if held else _rendered(row, levels.get(row.source_id), stamp, egress)
        if shown is None:
            withheld.append(row.id)
        else:
            claims.append({**shown, **(extra or {}).get(row.id, {})})
    return claims, withheld


def search(home: Path, query: str, now: str | None = None,
           egress: Egress | None = None, mine: Contradicted | None = None) -> dict[str, Any]:
    """Up to 10 recallable learned claims ``query`` alone is about (dormant ones too: this
    is an explicit request), best first; with ``egress``, rendered for it."""
    from waymarks.service.evolution_recall import recall_learned

    stamp = _now(now)
    # only claims the destination may receive are matched: listing the others' IDs for
    # the words they hold told a model, guess by guess, what the withheld text says
    result = recall_learned(home, query, inherit=False, now=stamp, egress=egress, mine=mine)
    ids = [s.candidate.id for s in result.eligible[:SEARCH_LIMIT]]
    rank = {s.candidate.id: s.rank for s in result.eligible}
    rows: list[ClaimRow] = []
    levels: dict[str, str] = {}
    if ids:
        with Evolution(home) as evo:
            rows = [r for r in map(evo.store.view.claim, ids) if r is not None]
            levels = evo.store.source_levels()
    claims, withheld = _page(rows, levels, stamp, egress,
                             {cid: {"rank": round(rank[cid], 4)} for cid in ids}, mine)
    return {"query": query, "claims": claims, **({"withheld": withheld} if egress else {})}


def change_json(change: Change, label: Callable[[str], str] = str) -> dict[str, Any]:
    """A change as states and field names (no content); its claim's ID through ``label``
    (:func:`_labeller`)."""
    before, after = change.before, change.after
    fields = sorted(k for k in after if before is None or before.get(k) != after.get(k))
    return {"claim": label(change.claim_id),
            "before": None if before is None else before["state"],
            "after": after["state"], "fields": fields}


def event_json(event: EventRow, label: Callable[[str], str] = str) -> dict[str, Any]:
    """An event; what its ledger record holds as free text (the subject and every claim
    ID, the actor, the time, the reason a feedback record gives) through ``label``:
    a hand-edited ledger can make any of them hold anything."""
    return {"event": event.seq, "op": event.op, "subject": label(event.subject),
            "applied": event.applied, "reason": label(event.reason),
            "actor": label(event.actor), "at": label(event.at),
            "changes": [change_json(c, label) for c in event.changes]}


def show(home: Path, claim_id: str, now: str | None = None, egress: Egress | None = None,
         mine: Contradicted | None = None) -> dict[str, Any] | None:
    """One claim with provenance, evidence, feedback and receipts, aging and its events
    (``None``: no claim has that ID, nor is it a legacy ID that became exactly one); with
    ``egress``, rendered for it, or only ``{"id", "withheld": true}`` when it may not
    receive the claim (nor one the person holds or contradicts, with ``mine``: as
    :func:`search` and :func:`list_claims`)."""
    return show_or_match(home, claim_id, now, egress, mine)[0]


def show_or_match(home: Path, given: str, now: str | None = None,
                  egress: Egress | None = None, mine: Contradicted | None = None
                  ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """:func:`show`'s answer and, when there is none, what the pi-memory-evolution ID
    ``given`` was imported as and what those claims are now (several of them: a summary's
    ID; ``None``: not a legacy ID any import of this home recorded), for
    ``waymarks evolution show`` to name them. The evolution ledger's import records are
    read once for all of it."""
    if _empty(home):
        return None, None
    from waymarks.service.evolution_legacy_ids import read_imports

    stamp = _now(now)
    with Evolution(home) as evo:
        evo.sync()
        claim_id = given
        row = evo.store.view.claim(claim_id)
        imports = read_imports(evo)  # the one read of the ledger's import records
        legacy: dict[str, Any] = {}
        if row is None:  # a pi-memory-evolution ID names the one claim it became
            match = imports.match(evo, claim_id)
            if match is None:
                return None, None
            if len(match.current) == 1:
                row = evo.store.view.claim(match.current[0])
            if row is None:  # several claims (a summary's ID), or none readable now
                return None, {**match.to_json(), "message": match.message()}
            legacy = match.to_json()
            claim_id = match.current[0]
        source = evo.store.view.source(row.source_id)
        held = mine is not None and not _forgotten_for(row, egress) and \
            mine(row.content) is not None
        claim = None if held else _rendered(
            row, evo.store.source_levels().get(row.source_id), stamp, egress)
        if claim is None:
            return {"id": row.id, "withheld": True}, None
        if _forgotten_for(row, egress):  # nothing more about it: not its provenance either
            return claim, None
        label = _labeller(egress)  # IDs and origins a hand-edited ledger can fill
        provenance = None if source is None else {
            "sourceId": label(source.source_id), "kind": source.kind, "basis": source.basis,
            "origin": label(source.origin), "capturedAt": source.captured_at,
            "classification": source.classification,
            "settled": None if source.settled is None else label(source.settled)}
        receipts = [{"sourceId": label(s), "verdict": v, "at": a, "event": q}
                    for s, v, a, q in evo.store.receipts(claim_id)]
        events = [event_json(e, label) for e in evo.store.history(50, claim_id)]
        old_events = imports.events_of(claim_id)
        old_ids = imports.ids_of(claim_id)
    return {**claim, "provenance": provenance, "receipts": receipts,
            "events": events, **({"legacyEvents": old_events} if old_events else {}),
            **({"legacyIds": old_ids} if old_ids else {}),
            **({"lookedUp": legacy} if legacy else {})}, None


def history(home: Path, limit: int = HISTORY_LIMIT, claim_id: str | None = None,
            before: int | None = None, egress: Egress | None = None) -> dict[str, Any]:
    """The latest events that changed a claim, across every origin (newest first); with
    ``claim_id``, those of that claim (``known``: whether there is such a claim at all, so
    a mistyped ID is told from a claim nothing changed); with ``egress``, the events'
    ledger-held text as that destination may see it."""
    if _empty(home):
        return {"events": [], **({"known": False} if claim_id is not None else {})}
    with Evolution(home) as evo:
        evo.sync()
        label = _labeller(egress)
        events = [event_json(e, label) for e in evo.store.history(limit, claim_id, before)]
        if claim_id is None:
            return {"events": events}
        return {"events": events, "known": evo.store.view.claim(claim_id) is not None}


def _labeller(egress: Egress | None) -> Callable[[str], str]:
    """A ledger-held label (a source ID, an origin) as ``egress`` may see it; as stored
    for the person's own listing."""
    return (lambda value: value) if egress is None else egress.label


def learning(home: Path, limit: int = LEARNING_LIMIT,
             egress: Egress | None = None) -> dict[str, Any]:
    """What the last captures decided: each source's kind, origin, settlement code and how
    many claims it gave, the last work-turn capture/nomination decision and processed
    versus changed counts (no text); with ``egress``, its IDs and origins as that
    destination may see them."""
    from waymarks.service.evolution_observe import last_capture, outcomes

    if _empty(home):
        return {"sources": [], "counts": {}, "lastCapture": last_capture(home),
                "outcomes": outcomes(home)}
    with Evolution(home) as evo:
        evo.sync()
        sources = evo.store.sources()[-limit:]
        learned: dict[str, int] = {}
        for row in evo.store.claims():
            learned[row.source_id] = learned.get(row.source_id, 0) + 1
        counts = evo.store.counts()
    waiting = _waiting(home, [s.source_id for s in sources if s.settled is None])
    label = _labeller(egress)
    return {"counts": counts, "lastCapture": last_capture(home), "outcomes": outcomes(home),
            "sources": [
        {"sourceId": label(s.source_id), "kind": s.kind, "basis": s.basis,
         "origin": label(s.origin),
         "capturedAt": s.captured_at, "classification": s.classification,
         "decision": label(s.settled or waiting.get(s.source_id, "pending")),
         "settledAt": s.settled_at,
         "claims": learned.get(s.source_id, 0)} for s in reversed(sources)]}


def _waiting(home: Path, source_ids: list[str]) -> dict[str, str]:
    """How the queue holds each unsettled source that is not simply due (``paused``,
    ``retrying``, ``given_up``): shown as ``pending``, a paused source that will never run
    on its own looked like one still waiting its turn. Without a readable queue, none."""
    import os

    from waymarks.service.outcomes import ServiceError
    from waymarks.service.recovery import using_job_store
    from waymarks.store.jobs import DB_FILE

    if not source_ids or not os.path.lexists(home / DB_FILE):
        return {}
    try:
        jobs = using_job_store(home, datetime.now(UTC),
                               lambda store: {s: store.job(s) for s in source_ids})
    except (ServiceError, OSError):
        return {}
    return {s: job.state for s, job in jobs.items()
            if job is not None and job.state in ("paused", "retrying", "given_up")}


#: why a plan selects no learned claim where learning is off
LEARNING_OFF = "learning is off for this directory"


def explain(home: Path, query: str, history_turns: tuple[str, ...] = (),
            now: str | None = None, egress: Egress | None = None,
            held: tuple[Sequence[PinInput], Sequence[MemoryInput]] = ((), ()),
            budget: int | None = None, learning: bool = True,
            contradicted: Contradicted | None = None,
            retired: Contradicted | None = None,
            said: Contradicted | None = None) -> dict[str, Any]:
    """What automatic injection to ``egress``'s destination would do for ``query`` now:
    plan features, candidates, scores, verdicts (no bodies, at most 8,000 bytes), the
    claims it would select, with dormant claims left out as automatic injection leaves
    them out and the eligible claims that destination may not receive named as such.
    ``held``: the pins and claims the plan weighs (a learned copy of one is left out, as
    the plan leaves it out: :func:`~waymarks.service.planning.explain_injection`);
    ``budget``: the learned block's (``Budgets.max_learned_tokens``); ``learning``
    false: learning is off in the plan's directory, so a plan selects none (each says so);
    ``contradicted``: the person's own pin or claim a learned claim contradicts,
    ``retired``: their claim saying it that they took out of effect (the plan leaves
    either claim out)."""
    from waymarks.planner.budgets import Budgets
    from waymarks.service.evolution_recall import (
        admitted,
        injection_report,
        planned,
        recall_learned,
    )

    stamp = _now(now)

    def ranked(to: Egress | None) -> RecallResult:
        return recall_learned(home, query, history_turns, egress=to, automatic=True,
                              now=stamp, inherit=bool(history_turns))

    if egress is None:
        return injection_report(ranked(None))
    withheld = [s for s in ranked(None).eligible if not admitted(egress, s.candidate)]
    result = ranked(egress)
    choice = planned(result, egress, *held,
                     Budgets().max_learned_tokens if budget is None else budget,
                     contradicted, retired, said) if learning else ([], dict.fromkeys(
                         (s.candidate.id for s in result.eligible), LEARNING_OFF))
    return injection_report(result, withheld, choice)
