"""Importing pi-memory-evolution's JSONL ledgers (EVOLUTION item 80): validation and the
records an import appends. Pure: the two files' text comes in, records go out.

The formats (read from that project's public description, for shapes only):
``memories.jsonl`` rows ``{version: 1, id, kind, content, sourceEntryId, createdAt, scope?,
status?}`` with ``kind`` one of ``compaction_summary|fact|preference|decision|
project_state``; ``memory-actions.jsonl`` rows ``{version: 1, memoryId, type, createdAt,
content? (correct), conflictWith? (conflict)}`` with ``type`` one of ``confirm|correct|
forget|pin|unpin|conflict|resolve``, applied in file order.

What must stay true:
- any invalid row or action (bad JSON, wrong version or type, unknown target, unreadable
  date, an empty correction) halts the whole import: :class:`LegacyError` names the file
  and line, never the content, and nothing is appended;
- forgotten content stays forgotten: a ``forget`` becomes a forget record, which
  suppresses the content in its origin; a correction suppresses the corrected text;
- a missing or empty origin becomes ``legacy``; legacy evidence is ``summary/local`` (the
  weakest known basis: the original kept no host-assigned evidence), dated at creation;
- a date after the import (``now``) is the import's time: a claim dated in the future
  outranked every verdict on it (feedback older than its evidence changes nothing) and
  never aged;
- every text is sanitized as a captured source is (local-only withheld, credentials
  redacted); a compaction summary becomes its bullet claims, as a Waymarks summary does;
- ``pin``/``unpin`` become pin records (item 32: evidence dates kept; a pin on a claim
  that is no longer live is recorded and ignored), and ``confirm`` becomes ``accurate``
  feedback.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from waymarks.core.evolution.aging import later
from waymarks.core.evolution.capture import holds_placeholder, sanitize, summary_claims
from waymarks.core.evolution.model import (
    LEGACY_ORIGIN,
    MAX_CONTENT,
    MIN_CONTENT,
    SCHEMA_VERSION,
    ClaimRecord,
    ConflictRecord,
    CorrectRecord,
    Evidence,
    FeedbackRecord,
    ForgetRecord,
    ImportBatchRecord,
    ImportedRecord,
    ImportRecord,
    LegacyEvent,
    LegacyId,
    PinRecord,
    ResolveRecord,
    SettledRecord,
    SourceRecord,
    claim_id,
    source_id,
    utf16_len,
)
from waymarks.core.privacy import Classification, highest

__all__ = ["LEGACY_ORIGIN", "Conversion", "LegacyError", "convert", "digest"]

#: a legacy ID longer than this is kept cut (an ID, not data: the original's are short)
LEGACY_ID_MAX: Final = 128
MEMORIES: Final = "memories.jsonl"
ACTIONS: Final = "memory-actions.jsonl"
KINDS: Final = frozenset({"compaction_summary", "fact", "preference", "decision",
                          "project_state"})
ACTION_TYPES: Final = frozenset({"confirm", "correct", "forget", "pin", "unpin", "conflict",
                                 "resolve"})


class LegacyError(ValueError):
    """The import stops: ``where`` is ``file:line``; the message never quotes content."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}; the import stopped and nothing was written "
                         "(the original files are untouched)")


@dataclass
class Conversion:
    records: list[ImportedRecord] = field(default_factory=list)
    claims: int = 0
    skipped: int = 0
    #: a database's history, content-free (item 81)
    history: list[LegacyEvent] = field(default_factory=list)
    #: a database's queued jobs: due now (old failures below the cap, cause unknown), and
    #: left settled (at the cap, or a kind Waymarks cannot replay)
    jobs_due: int = 0
    jobs_settled: int = 0
    #: the database's own marker left the JSONL ledgers beside it unconsumed (item 80)
    ledgers_open: bool = False
    #: each legacy memory ID and the claims it became (item 81: lookup by the old ID)
    legacy_ids: dict[str, list[str]] = field(default_factory=dict)
    #: (source ID, old failures) of the queued jobs due now whose old failures are
    #: carried over with their cause unknown (item 81)
    requeued: list[tuple[str, int]] = field(default_factory=list)


def digest(memories: bytes, actions: bytes) -> str:
    return hashlib.sha256(b"%d:" % len(memories) + memories + actions).hexdigest()


def _rows(text: str, name: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise LegacyError(where, "not a JSON object") from exc
        if not isinstance(value, dict) or value.get("version") != 1:
            raise LegacyError(where, "not a version 1 row")
        out.append((where, value))
    return out


def _iso(value: object, where: str, now: str | None = None) -> str:
    """``value``, a date with a time zone (else :class:`LegacyError`), or ``now`` when it is
    after ``now``."""
    if not isinstance(value, str):
        raise LegacyError(where, "createdAt is not a date")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise LegacyError(where, "createdAt is not a date") from exc
    if parsed.tzinfo is None:
        raise LegacyError(where, "createdAt has no time zone")
    return now if now is not None and later(value, now) else value


def _texts(content: str, kind: str, default: Classification = "normal", *,
           correction: bool = False) -> tuple[list[str], Classification]:
    """The claims ``content`` gives (sanitized, unmarked text at ``default``: at
    ``local-only`` nothing is kept) and its classification. A memory's text left holding
    a placeholder gives none; a ``correction``'s is kept (left out, the whole import
    would stop: a correction with no storable text is refused)."""
    clean = sanitize(content, default)
    if clean is None:
        return [], "normal"
    body, level = clean
    if kind == "compaction_summary":
        return summary_claims(body), level
    # a text left holding a placeholder is no claim, as a summary's bullet is not (it was
    # imported, "the token [REDACTED:github-token]" and all, and planned)
    keep = MIN_CONTENT <= utf16_len(body) <= MAX_CONTENT and (
        correction or not holds_placeholder(body))
    return ([body] if keep else []), level


def convert(memories_text: str, actions_text: str,
            default_of: Callable[[str], Classification] = lambda _origin: "normal",
            now: str | None = None) -> Conversion:
    """The records importing these ledgers appends (raises :class:`LegacyError`).
    ``default_of``: the level of unmarked text of an origin (the person's policy's
    ``defaultClassification``, as capture takes it); ``now``: the import's time, which
    no date is after."""
    out = Conversion()
    mapped: dict[str, list[tuple[str, str, str]]] = {}  # legacy id -> (claim id, origin, kind)
    levels: dict[str, Classification] = {}  # legacy id -> the level of what it says now
    for where, row in _rows(memories_text, MEMORIES):
        legacy_id, kind, content, entry = (row.get("id"), row.get("kind"), row.get("content"),
                                           row.get("sourceEntryId"))
        if not (isinstance(legacy_id, str) and legacy_id and isinstance(content, str)
                and isinstance(entry, str) and entry and kind in KINDS):
            raise LegacyError(where, "not a legacy memory (id, kind, content, sourceEntryId)")
        created = _iso(row.get("createdAt"), where, now)
        if legacy_id in mapped:
            continue  # the first row of an ID wins, as in the original
        scope = row.get("scope")
        origin = scope if isinstance(scope, str) and scope.strip() else LEGACY_ORIGIN
        texts, level = _texts(content, str(kind), default_of(origin))
        source_kind = "summary" if kind == "compaction_summary" else "statement"
        sid = source_id(origin, source_kind, "legacy", entry + "\0" + legacy_id)
        claim_kind = "fact" if kind == "compaction_summary" else str(kind)
        out.records.append(SourceRecord(SCHEMA_VERSION, sid, origin, source_kind, "summary",  # type: ignore[arg-type]
                                        "\n".join(texts), level, created, "legacy"))
        out.records.append(SettledRecord(SCHEMA_VERSION, sid, "applied", created,
                                         len(texts)))
        evidence = Evidence("summary", "local", sid, created)
        mapped[legacy_id] = []
        levels[legacy_id] = level
        for text in texts:
            cid = claim_id(origin, claim_kind, text)
            out.records.append(ClaimRecord(SCHEMA_VERSION, cid, origin, claim_kind, text,  # type: ignore[arg-type]
                                           evidence))
            mapped[legacy_id].append((cid, origin, claim_kind))
            out.claims += 1
        if not texts:
            out.skipped += 1
    for number, (where, action) in enumerate(_rows(actions_text, ACTIONS), start=1):
        out.records.extend(_action(action, where, now, number, mapped, levels, default_of))
    # what each legacy ID stands for once its actions applied (a correction's claims)
    out.legacy_ids = {lid: [cid for cid, _o, _k in claims] for lid, claims in mapped.items()
                      if claims}
    return out


def marker(conversion: Conversion, ledgers_digest: str, at: str) -> ImportRecord:
    """The record that completed an import written as separate records (before batches;
    still folded, never written now)."""
    return ImportRecord(SCHEMA_VERSION, ledgers_digest, conversion.claims, at,
                        conversion.skipped)


def batch(conversion: Conversion, ledgers_digest: str, at: str) -> ImportBatchRecord:
    """The whole import as one record (one ledger entry: never half visible)."""
    return ImportBatchRecord(SCHEMA_VERSION, ledgers_digest, conversion.claims, at,
                             tuple(conversion.records), conversion.skipped,
                             conversion.ledgers_open, tuple(conversion.history),
                             tuple(LegacyId(lid[:LEGACY_ID_MAX], tuple(claims))
                                   for lid, claims in sorted(conversion.legacy_ids.items())))


def _action(action: dict[str, Any], where: str, now: str | None, number: int,
            mapped: dict[str, list[tuple[str, str, str]]],
            levels: dict[str, Classification],
            default_of: Callable[[str], Classification]) -> list[ImportedRecord]:
    kind, target = action.get("type"), action.get("memoryId")
    if kind not in ACTION_TYPES or not isinstance(target, str):
        raise LegacyError(where, "not a legacy action (type, memoryId)")
    at = _iso(action.get("createdAt"), where, now)
    if target not in mapped:
        raise LegacyError(where, "the action's memory is not in memories.jsonl")
    claims = mapped[target]
    if kind == "forget":
        return [ForgetRecord(SCHEMA_VERSION, cid, at) for cid, _o, _k in claims]
    if kind == "confirm":
        return [FeedbackRecord(SCHEMA_VERSION, cid, "accurate", f"legacy-action:{number}", at)
                for cid, _o, _k in claims]
    if kind == "resolve":
        return [ResolveRecord(SCHEMA_VERSION, cid, at) for cid, _o, _k in claims]
    if kind in ("pin", "unpin"):
        return [PinRecord(SCHEMA_VERSION, cid, kind == "pin", at) for cid, _o, _k in claims]
    if kind == "conflict":
        other = action.get("conflictWith")
        if not isinstance(other, str) or other not in mapped:
            raise LegacyError(where, "conflictWith is not in memories.jsonl")
        if not claims or not mapped[other]:
            return []
        return [ConflictRecord(SCHEMA_VERSION, claims[0][0], mapped[other][0][0], at)]
    content = action.get("content")
    if not isinstance(content, str) or not content.strip():
        raise LegacyError(where, "a correction without content")
    if not claims:
        return []
    _cid, origin, claim_kind = claims[0]
    texts, found = _texts(content, "compaction_summary" if len(claims) > 1 else claim_kind,
                          default_of(origin), correction=True)
    if not texts:
        raise LegacyError(where, "a correction with no storable text")
    # the correction's own source, at the level its markers gave (sanitizing removed
    # them) and never below the claim it corrects: without it the corrected claim took
    # the old claim's level, and a span marked sensitive went out as normal
    level = levels[target] = highest(levels[target], found)
    sid = source_id(origin, "statement", "legacy", f"action:{number}\0{target}")
    records: list[ImportedRecord] = [
        SourceRecord(SCHEMA_VERSION, sid, origin, "statement", "manual_correction",
                     "\n".join(texts), level, at, "legacy"),
        SettledRecord(SCHEMA_VERSION, sid, "applied", at, len(texts))]
    new_ids = [claim_id(origin, claim_kind, t) for t in texts]
    if len(claims) == 1 and len(texts) == 1:
        records.append(CorrectRecord(SCHEMA_VERSION, claims[0][0], texts[0], at,
                                     source_id=sid))
    else:  # a summary corrected: children it no longer says are forgotten, new ones added
        keep = set(new_ids)
        records += [ForgetRecord(SCHEMA_VERSION, cid, at) for cid, _o, _k in claims
                    if cid not in keep]
        evidence = Evidence("manual_correction", "manual", sid, at)
        old = {cid for cid, _o, _k in claims}
        records += [ClaimRecord(SCHEMA_VERSION, cid, origin, claim_kind, text, evidence)  # type: ignore[arg-type]
                    for cid, text in zip(new_ids, texts, strict=True) if cid not in old]
    mapped[target] = [(cid, origin, claim_kind) for cid in new_ids]
    return records
