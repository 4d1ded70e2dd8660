"""Importing pi-memory-evolution's SQLite database, schemas 2-7 (EVOLUTION item 81): the
records an import of its ``memories`` rows appends. Pure: the rows come in (read by
:mod:`waymarks.store.legacy_sqlite` from a copy; the original is never opened), records
go out, as :class:`~waymarks.core.evolution.legacy.Conversion` for one import batch.

The format (from that project's public source, shapes only): ``metadata(key, value)`` with
``schema`` = "2".."7"; ``memories(id, scope, hash, data)`` where ``data`` is a JSON object
``{id, kind, content, scope, sourceEntryId, createdAt, updatedAt, revision, layer:
durable|pinned, status: provisional|confirmed|forgotten|conflicted, searchTerms?,
evidence?, feedback?}``.

What must stay true:
- any row that is not such an object (bad JSON, a kind or status not listed, an ``id``
  or ``scope`` that disagrees with its columns, an unreadable date) halts the import:
  :class:`~waymarks.core.evolution.legacy.LegacyError` names the row number, never its
  content, and nothing is appended;
- dates are kept (the evidence date is ``updatedAt``), search terms stay aliases, an empty
  scope becomes ``legacy``; evidence is the row's own basis when it is one Waymarks knows,
  else ``summary/local`` (the weakest);
- ``forgotten`` rows are imported as tombstones whose content is suppressed in their
  origin (never revived), ``conflicted`` rows stay conflicted, ``pinned`` rows are pinned,
  ``confirmed`` rows get ``accurate`` feedback; the last utility/accuracy verdicts come
  along as feedback;
- the legacy IDs are not Waymarks IDs (ours hash origin, kind and content): each row's ID
  is kept in its source key, so importing the same row twice yields the same source, and
  beside the claim it became (``legacy_ids``), so it can still be looked up;
- every text is sanitized as a captured source is;
- the JSONL ledgers beside the database stay importable when its own ``legacy_import``
  marker shows they were never consumed (none found, pending, failed, or a completed
  import of a digest-proven empty v6 snapshot with no migration event); zero claims from a
  real ledger is not enough (item 80); an unreadable marker halts the import;
- its job state comes along (item 81): pending, running (a dead lease) and failed sources
  below the failure cap are queued again and due now; their old failures are kept per
  job (:attr:`~waymarks.core.evolution.legacy.Conversion.requeued`), labelled cause
  ``cause_unknown`` (route waits are not carried over: Waymarks keeps them apart from a
  source's backoff);
  done sources never run again; sources at the cap, or of a kind Waymarks cannot replay
  (``progress``), are recorded settled ``unknown``;
- its ``events`` history comes along without content: ID, time, actor and the Waymarks IDs
  of the claims each event touched.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any, Final

from waymarks.core.evolution.capture import sanitize
from waymarks.core.evolution.legacy import LEGACY_ORIGIN, Conversion, LegacyError, _iso, _texts
from waymarks.core.evolution.model import (
    BASES,
    SCHEMA_VERSION,
    VERDICTS,
    ClaimRecord,
    Evidence,
    FeedbackRecord,
    ForgetRecord,
    LegacyEvent,
    PinRecord,
    SettledRecord,
    SourceRecord,
    claim_id,
    source_id,
)
from waymarks.core.privacy import Classification

DATABASE: Final = "memory.sqlite"
SUPPORTED_SCHEMAS: Final = frozenset({"2", "3", "4", "5", "6", "7"})
MEMORY_KINDS: Final = frozenset({"fact", "preference", "decision", "project_state"})
STATUSES: Final = frozenset({"provisional", "confirmed", "forgotten", "conflicted"})

#: one ``memories`` row: (id, scope, hash, data)
Row = tuple[str, str, str, str]


def rows_digest(schema: str, rows: Sequence[Row]) -> str:
    """What identifies the imported state: the schema and every row, in ID order."""
    data = json.dumps([schema, sorted([r[0], r[1], r[3]] for r in rows)], ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


#: a source with this many failures is paused in the original (not due again by itself)
MAX_FAILURES: Final = 5
ACTORS: Final = frozenset({"migration", "model", "user", "host"})


def convert_rows(schema: str, rows: Sequence[Row],
                 sources: Sequence[tuple[str, str, str, int, str]] = (),
                 events: Sequence[tuple[str, str]] = (),
                 default_of: Callable[[str], Classification] = lambda _origin: "normal",
                 now: str | None = None) -> Conversion:
    """The records importing these rows (and the database's ``sources`` job state and
    ``events`` history) appends (raises ``LegacyError``). ``default_of``: the level of an
    origin's unmarked text, ``now`` the import's time, which no date is after
    (:func:`~waymarks.core.evolution.legacy.convert`)."""
    if schema not in SUPPORTED_SCHEMAS:
        raise LegacyError(DATABASE, f"schema {schema[:8]!r} is not one of 2-7 (not a "
                          "pi-memory-evolution database this version reads)")
    out = Conversion()
    ids: dict[str, str] = {}
    for number, row in enumerate(sorted(rows), start=1):
        where = f"{DATABASE}: memories row {number}"
        cid = _memory(_decode(row, where), row, where, out, default_of, now)
        if cid is not None:
            ids[row[0]] = cid
            out.legacy_ids[row[0]] = [cid]
    for number, source in enumerate(sources, start=1):
        _job(source, f"{DATABASE}: sources row {number}", out, default_of, now)
    for number, (event_id, data) in enumerate(events, start=1):
        out.history.append(_event(event_id, data, f"{DATABASE}: events row {number}", ids,
                                  now))
    return out


def empty_ledgers_digest(digest: object) -> bool:
    """Whether ``digest`` is the original's digest of empty JSONL ledgers (each missing,
    empty or a lone line break): SHA-256 of the JSON array of the two texts."""
    texts = (None, "", "\n", "\r\n")
    return isinstance(digest, str) and any(
        hashlib.sha256(json.dumps([a, b], separators=(",", ":")).encode()).hexdigest()
        == digest for a in texts for b in texts)


def ledgers_open(schema: str, marker: str | None, migration_event: bool,
                 rows: Sequence[Row]) -> bool:
    """Whether the database's own marker shows the JSONL ledgers beside it unconsumed (an
    unreadable marker raises ``LegacyError``: guessing could replay or lose an import)."""
    if marker is None:  # before markers: consumed if an import left any trace
        return not migration_event and not any(r[1] == LEGACY_ORIGIN for r in rows)
    try:
        value = json.loads(marker)
    except (ValueError, RecursionError) as exc:
        raise LegacyError(DATABASE, "its legacy_import marker is not JSON") from exc
    state = value.get("state") if isinstance(value, dict) else None
    if state not in ("pending", "not_found", "completed", "failed", "unknown"):
        raise LegacyError(DATABASE, "its legacy_import marker is not one this version reads")
    if state == "completed":  # only a digest-proven empty v6 snapshot reopens
        return bool(schema in ("6", "7") and value.get("count") == 0 and not migration_event
                    and empty_ledgers_digest(value.get("digest")))
    return bool(state != "unknown")


def _decode(row: Row, where: str) -> dict[str, Any]:
    try:
        data = json.loads(row[3])
    except (ValueError, TypeError, RecursionError) as exc:
        raise LegacyError(where, "data is not JSON") from exc
    if not isinstance(data, dict):
        raise LegacyError(where, "data is not a JSON object")
    if data.get("id") != row[0] or data.get("scope") != row[1]:
        raise LegacyError(where, "data does not match the row's id and scope")
    if data.get("kind") not in MEMORY_KINDS or data.get("status") not in STATUSES:
        raise LegacyError(where, "not a legacy memory (kind, status)")
    if not isinstance(data.get("content"), str) or data.get("layer") not in (
            None, "durable", "pinned"):
        raise LegacyError(where, "not a legacy memory (content, layer)")
    return data


def _memory(data: dict[str, Any], row: Row, where: str, out: Conversion,
            default_of: Callable[[str], Classification], now: str | None) -> str | None:
    created = _iso(data.get("createdAt"), where, now)
    updated = _iso(data.get("updatedAt", created), where, now)
    scope = str(data["scope"]).strip() or LEGACY_ORIGIN
    kind = str(data["kind"])
    texts, level = _texts(str(data["content"]), kind, default_of(scope))
    if len(texts) != 1:  # nothing storable left after sanitizing (or too long)
        out.skipped += 1
        return None
    text = texts[0]
    entry = data.get("sourceEntryId")
    sid = source_id(scope, "statement", "legacy-sqlite",
                    (entry if isinstance(entry, str) else "") + "\0" + row[0])
    out.records.append(SourceRecord(SCHEMA_VERSION, sid, scope, "statement", "summary",
                                    text, level, created, "legacy"))
    out.records.append(SettledRecord(SCHEMA_VERSION, sid, "applied", updated, 1))
    cid = claim_id(scope, kind, text)
    terms = data.get("searchTerms")
    aliases = tuple(t for t in terms if isinstance(t, str) and t.strip())[:8] \
        if isinstance(terms, list) else ()
    status = str(data["status"])
    out.records.append(ClaimRecord(
        SCHEMA_VERSION, cid, scope, kind, text, _evidence(data, sid, updated),  # type: ignore[arg-type]
        "conflicted" if status == "conflicted" else "provisional", None, None, aliases))
    out.claims += 1
    if data.get("layer") == "pinned" and status != "forgotten":
        out.records.append(PinRecord(SCHEMA_VERSION, cid, True, updated))
    verdicts = _verdicts(data.get("feedback"))
    if status == "confirmed" and "accurate" not in verdicts and "incorrect" not in verdicts:
        verdicts.append("accurate")
    for verdict in verdicts:
        out.records.append(FeedbackRecord(SCHEMA_VERSION, cid, verdict,
                                          f"legacy-sqlite:{row[0]}:{verdict}", updated))
    if status == "forgotten":  # a tombstone, its content suppressed in its origin
        out.records.append(ForgetRecord(SCHEMA_VERSION, cid, updated))
    return cid


def _job(source: tuple[str, str, str, int, str], where: str, out: Conversion,
         default_of: Callable[[str], Classification], now: str | None) -> None:
    """One ``sources`` row: queued again (due now), settled, or left (done)."""
    legacy_id, raw, state, failures, _error = source
    if state == "done":
        return  # completed jobs never run again
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise LegacyError(where, "data is not JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("content"), str) or \
            data.get("kind") not in ("summary", "user", "progress"):
        raise LegacyError(where, "not a legacy source (kind, content)")
    if state not in ("pending", "running", "failed"):
        raise LegacyError(where, "not a legacy job state")
    captured = _iso(data.get("createdAt"), where, now)
    scope = str(data.get("scope") or "").strip() or LEGACY_ORIGIN
    clean = sanitize(str(data["content"]), default_of(scope))
    if clean is None or not clean[0].strip():
        out.jobs_settled += 1
        return
    text, level = clean
    kind = "summary" if data["kind"] == "summary" else (
        "statement" if data["kind"] == "user" else "progress")
    sid = source_id(scope, kind, "legacy-sqlite-job", legacy_id)
    out.records.append(SourceRecord(SCHEMA_VERSION, sid, scope, kind, "summary"  # type: ignore[arg-type]
                                    if kind == "summary" else "user_statement", text, level,
                                    captured, "legacy"))
    if kind == "progress" or (state == "failed" and failures >= MAX_FAILURES):
        # paused there (or a work source whose observations are not in this format)
        out.records.append(SettledRecord(SCHEMA_VERSION, sid, "unknown", captured))
        out.jobs_settled += 1
    else:
        out.jobs_due += 1  # due now; old failures (below the cap) kept, cause unknown
        if failures > 0 or state != "pending":  # failed (schema 3 kept no count), or
            # running when the store stopped (a lease that died): at least one failure
            out.requeued.append((sid, min(max(failures, 1), MAX_FAILURES - 1)))


def _event(event_id: str, raw: str, where: str, ids: dict[str, str],
           now: str | None) -> LegacyEvent:
    """One ``events`` row without content: its ID, time, actor and the claims touched."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise LegacyError(where, "data is not JSON") from exc
    if not isinstance(data, dict):
        raise LegacyError(where, "data is not a JSON object")
    at = _iso(data.get("at"), where, now)
    actor = data.get("actor")
    touched: list[str] = []
    for side in ("before", "after"):
        states = data.get(side)
        for state in states if isinstance(states, list) else ():
            mid = state.get("id") if isinstance(state, dict) else None
            cid = ids.get(mid) if isinstance(mid, str) else None
            if cid is not None and cid not in touched:
                touched.append(cid)
    return LegacyEvent(event_id[:64], at, actor if actor in ACTORS else "unknown",
                       tuple(touched))


def _evidence(data: dict[str, Any], sid: str, at: str) -> Evidence:
    given = data.get("evidence")
    basis = given.get("basis") if isinstance(given, dict) else None
    if basis in BASES and basis != "manual_correction":
        return Evidence(basis, "local", sid, at)
    return Evidence("summary", "local", sid, at)


def _verdicts(feedback: object) -> list[str]:
    """The last utility and accuracy verdicts of a row's ``feedback`` (unknown shapes are
    ignored: feedback is never invented)."""
    if not isinstance(feedback, dict):
        return []
    out = []
    for slot in ("utility", "accuracy"):
        value = feedback.get(slot)
        verdict = value.get("verdict") if isinstance(value, dict) else value
        if isinstance(verdict, str) and verdict in VERDICTS:
            out.append(verdict)
    return out
