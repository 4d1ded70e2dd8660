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
  is kept in its source key, so importing the same row twice yields the same source;
- every text is sanitized as a captured source is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Final

from waymarks.core.evolution.legacy import LEGACY_ORIGIN, Conversion, LegacyError, _iso, _texts
from waymarks.core.evolution.model import (
    BASES,
    SCHEMA_VERSION,
    VERDICTS,
    ClaimRecord,
    Evidence,
    FeedbackRecord,
    ForgetRecord,
    PinRecord,
    SettledRecord,
    SourceRecord,
    claim_id,
    source_id,
)

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


def convert_rows(schema: str, rows: Sequence[Row]) -> Conversion:
    """The records importing these rows appends (raises ``LegacyError``)."""
    if schema not in SUPPORTED_SCHEMAS:
        raise LegacyError(DATABASE, f"schema {schema[:8]!r} is not one of 2-7 (not a "
                          "pi-memory-evolution database this version reads)")
    out = Conversion()
    for number, row in enumerate(sorted(rows), start=1):
        where = f"{DATABASE}: memories row {number}"
        _memory(_decode(row, where), row, where, out)
    return out


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


def _memory(data: dict[str, Any], row: Row, where: str, out: Conversion) -> None:
    created = _iso(data.get("createdAt"), where)
    updated = _iso(data.get("updatedAt", created), where)
    scope = str(data["scope"]).strip() or LEGACY_ORIGIN
    kind = str(data["kind"])
    texts, level = _texts(str(data["content"]), kind)
    if len(texts) != 1:  # nothing storable left after sanitizing (or too long)
        out.skipped += 1
        return
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
