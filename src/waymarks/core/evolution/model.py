"""Evolved claims: kinds, states, evidence, priority, IDs, and their ledger records.

An evolved claim is learned, not confirmed: it is always ``provisional`` (or ``conflicted``,
``superseded``, ``forgotten``), carries the ``origin`` it was learned in (the canonical cwd at
capture: provenance, never a recall boundary) and evidence the *host* assigned. Model output
can name only ``kind``/``content``/``replaces``/``searchTerms`` (see :mod:`.contract`), so it
can never set evidence, confidence, verification or feedback.

Records are the ``data`` of Pi ``custom`` entries with ``customType`` ``waymarks-evolution-v1``
in the home's evolution ledger. They are append-only; a record's meaning never depends on
anything but the records before it (see :mod:`.fold`). Field names are camelCase on the wire
and must not change; a new field is optional; a new meaning is a new ``schemaVersion``.
"""

from __future__ import annotations

import json
from typing import Final, Literal

import msgspec

from waymarks.core.digests import sha256
from waymarks.core.evolution.cues import source_id as source_id  # re-exported

EVOLUTION_CUSTOM_TYPE: Final = "waymarks-evolution-v1"
SCHEMA_VERSION: Final = 1

ClaimKind = Literal["fact", "preference", "decision", "project_state"]
KINDS: Final[tuple[str, ...]] = ("fact", "preference", "decision", "project_state")
#: the neutral kind an explicit (DS4) memory claim maps to: it has no learned kind
NEUTRAL_KIND: Final = "memory"
ClaimState = Literal["provisional", "conflicted", "superseded", "forgotten"]
#: states a claim can be recalled in (conflicted/superseded/forgotten never recall)
RECALLABLE_STATES: Final = frozenset({"provisional"})
Basis = Literal["summary", "user_statement", "tool_observation", "manual_correction"]
BASES: Final[tuple[str, ...]] = ("summary", "user_statement", "tool_observation",
                                 "manual_correction")
Method = Literal["local", "model", "manual"]
SourceKind = Literal["statement", "summary", "progress"]  # progress: a work turn

#: a claim's content, in UTF-16 code units (the seed's unit)
MIN_CONTENT: Final = 4
MAX_CONTENT: Final = 800
#: what a confirmed (person) memory or ``accurate`` record is protected at
CONFIRMED_PRIORITY: Final = 4


#: the origin of a legacy claim imported without one (pi-memory-evolution's 0.1 ledgers)
LEGACY_ORIGIN: Final = "legacy"

class Evidence(msgspec.Struct, frozen=True, rename="camel"):
    """Why a claim is believed, as the host recorded it (never the model)."""

    basis: Basis
    method: Method
    source_id: str
    at: str  # ISO-8601


def priority(basis: str | None, kind: str) -> int:
    """The source-priority table (EVOLUTION item 5): how strong evidence of ``basis`` is for
    a claim of ``kind``. A replacement weaker than its target is quarantined, not written.

    unknown 0; summary 1; user statement of a fact or project state 2, of a preference or
    decision 3; tool observation of a project state 3 (of anything else: unknown); manual
    correction 4."""
    if basis == "summary":
        return 1
    if basis == "user_statement":
        return 3 if kind in ("preference", "decision") else 2
    if basis == "tool_observation":
        return 3 if kind == "project_state" else 0
    if basis == "manual_correction":
        return 4
    return 0


def claim_id(origin: str, kind: str, content: str) -> str:
    """24 hex digits of a hash of the JSON tuple (origin, kind, content): the same text from
    two origins gives two IDs, and no separator inside a path can make two tuples collide."""
    encoded = json.dumps([origin, kind, content], ensure_ascii=False, separators=(",", ":"))
    return sha256(encoded.encode("utf-8")).hexdigest()[:24]


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# -- ledger records ------------------------------------------------------------------------


class SourceRecord(msgspec.Struct, frozen=True, tag="source", tag_field="op", rename="camel",
                   omit_defaults=True):
    """Captured evidence, already sanitized (markers resolved, local-only spans withheld,
    credentials redacted). ``classification`` is the highest level left in ``text``."""

    schema_version: int
    source_id: str
    origin: str
    kind: SourceKind
    basis: Basis
    text: str
    classification: str
    captured_at: str
    session: str = ""  # the host session it came from (an ID, not a path)


class ClaimRecord(msgspec.Struct, frozen=True, tag="claim", tag_field="op", rename="camel",
                  omit_defaults=True):
    """A claim written (``provisional``) or quarantined (``conflicted``, naming the record it
    would have replaced). ``replaces`` names an evolved claim this one supersedes."""

    schema_version: int
    id: str
    origin: str
    kind: ClaimKind
    content: str
    evidence: Evidence
    state: ClaimState = "provisional"
    replaces: str | None = None
    conflicts_with: str | None = None
    search_terms: tuple[str, ...] = ()


class RefusalRecord(msgspec.Struct, frozen=True, tag="refused", tag_field="op",
                    rename="camel", omit_defaults=True):
    """A replacement the store refused, with a fixed reason (:data:`AUTHORITY_REASONS`)."""

    schema_version: int
    source_id: str
    target: str
    reason: str
    at: str


class SettledRecord(msgspec.Struct, frozen=True, tag="settled", tag_field="op",
                    rename="camel", omit_defaults=True):
    """A source is done: consolidated (``code`` applied/refused_only/no_change/a refusal
    reason) or given up (an allowlisted error code). Settled sources are never
    consolidated again."""

    schema_version: int
    source_id: str
    code: str
    at: str
    written: int = 0
    refused: int = 0


class ForgetRecord(msgspec.Struct, frozen=True, tag="forget", tag_field="op", rename="camel",
                   omit_defaults=True):
    """A person forgot a claim by its exact ID (global recall is not global rewrite: this
    affects the target and its exact same-origin duplicates only: the same content under
    another kind in that origin, never identical text learned elsewhere)."""

    schema_version: int
    id: str
    at: str
    actor: str = "person"


class FeedbackRecord(msgspec.Struct, frozen=True, tag="feedback", tag_field="op",
                     rename="camel", omit_defaults=True):
    """A person's verdict on a claim (:data:`VERDICTS`). ``sourceId`` names where it came
    from (a command invocation or a user message); (sourceId, id) is an idempotency key:
    a second record with the same key changes nothing, even after an undo."""

    schema_version: int
    id: str
    verdict: str
    source_id: str
    at: str
    actor: str = "person"


class CorrectRecord(msgspec.Struct, frozen=True, tag="correct", tag_field="op",
                    rename="camel", omit_defaults=True):
    """A person's correction: ``content`` replaces the claim (same origin and kind) with
    evidence ``manual_correction/manual``, which outranks anything the model learned.
    ``sourceId``: a source recorded for the correction (a legacy import's, at the level
    its markers gave); without it the source is ``manual:<at>``, at the level of the claim
    it corrects."""

    schema_version: int
    id: str
    content: str
    at: str
    actor: str = "person"
    source_id: str = ""


class ConflictRecord(msgspec.Struct, frozen=True, tag="conflict", tag_field="op",
                     rename="camel", omit_defaults=True):
    """A person marked two claims as contradicting each other: neither recalls until one is
    resolved."""

    schema_version: int
    a: str
    b: str
    at: str
    actor: str = "person"


class ResolveRecord(msgspec.Struct, frozen=True, tag="resolve", tag_field="op",
                    rename="camel", omit_defaults=True):
    """A person chose a conflicted claim: it recalls again (its partner stays conflicted)."""

    schema_version: int
    id: str
    at: str
    actor: str = "person"


class PinRecord(msgspec.Struct, frozen=True, tag="pin", tag_field="op", rename="camel",
                omit_defaults=True):
    """A person pinned (``pinned``) or unpinned a learned claim (004 pin, item 32): a pinned
    claim keeps freshness 1, is never dormant and is never replaced by the model. It gets
    no credibility bonus and its state does not change (a conflicted claim stays
    conflicted); its evidence dates are kept."""

    schema_version: int
    id: str
    pinned: bool
    at: str
    actor: str = "person"


class AdoptRecord(msgspec.Struct, frozen=True, tag="adopt", tag_field="op", rename="camel",
                  omit_defaults=True):
    """A person labelled a ``legacy`` claim (imported without an origin) with a directory
    (item 74's legacy ``adopt``; optional: legacy claims are recalled without it). A
    claim's ID hashes its origin, so the claim moves to a new ID in ``origin`` with
    everything else kept (evidence dates, basis, aliases, feedback, pin) and the legacy
    one is marked superseded by it; content the legacy claim was corrected away from is
    suppressed in ``origin`` too. An event: ``undo`` takes it back."""

    schema_version: int
    id: str
    origin: str
    at: str
    actor: str = "person"


class UndoRecord(msgspec.Struct, frozen=True, tag="undo", tag_field="op", rename="camel",
                 omit_defaults=True):
    """Undo the event folded at position ``event`` of the ledger (its changes' before
    states come back, a claim it created becomes a tombstone), only if every claim it
    changed is still in that event's after state. Suppressions and receipts stay."""

    schema_version: int
    event: int
    at: str
    actor: str = "person"


class ConfirmRecord(msgspec.Struct, frozen=True, tag="confirm", tag_field="op",
                    rename="camel", omit_defaults=True):
    """A source confirmed claims without changing them: it derived the same content again,
    or it was measured to mention them and left them standing. Moves only their
    confirmation stamp (decay and dormancy run from it), never ``updatedAt``, and is not an
    event that changes a claim (nothing to undo). Never for project state."""

    schema_version: int
    source_id: str
    ids: tuple[str, ...]
    at: str


class ImportRecord(msgspec.Struct, frozen=True, tag="imported", tag_field="op",
                   rename="camel", omit_defaults=True):
    """A legacy (pi-memory-evolution) import completed: ``digest`` is the SHA-256 of the
    ledgers imported. Written last, after every record the import made; an import is done
    once per home and never replayed."""

    schema_version: int
    digest: str
    claims: int
    at: str
    skipped: int = 0


#: the records a legacy import batch may hold
ImportedRecord = (SourceRecord | ClaimRecord | SettledRecord | ForgetRecord | FeedbackRecord
                  | CorrectRecord | ConflictRecord | ResolveRecord | PinRecord)


class LegacyEvent(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    """One event of a pi-memory-evolution database's history, kept without content: its
    ID and time, who acted (``migration|model|user|host|unknown``) and the Waymarks IDs of
    the claims it touched (before and after; rows that are not imported are left out)."""

    id: str
    at: str
    actor: str
    claims: tuple[str, ...] = ()


class LegacyId(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    """A pi-memory-evolution memory's own ID and the Waymarks claims it became (ours hash
    origin, kind and content, so its ID could not be kept): a person who knew a memory
    by its old ID can still name it (item 81). An ID, never content."""

    id: str
    claims: tuple[str, ...] = ()


class ImportBatchRecord(msgspec.Struct, frozen=True, tag="importBatch", tag_field="op",
                        rename="camel", omit_defaults=True):
    """A whole legacy import as ONE ledger entry (item 80): a line is appended whole or, torn
    by a crash, never read, so no half import is ever visible. Its records fold in order
    as one event (op ``imported``: the import is done once per home and never replayed);
    ``digest`` is the SHA-256 of the ledgers imported."""

    schema_version: int
    digest: str
    claims: int
    at: str
    records: tuple[ImportedRecord, ...]
    skipped: int = 0
    #: a pi-memory-evolution database whose own marker shows it never consumed the JSONL
    #: ledgers beside it (none found, failed, or a digest-proven empty v6 snapshot): a
    #: later import of those ledgers stays open (item 80)
    ledgers_open: bool = False
    #: that database's event history, content-free (item 81)
    history: tuple[LegacyEvent, ...] = ()
    #: each imported memory's legacy ID and the claims it became (item 81; imports
    #: written before this field have none: their legacy IDs cannot be looked up)
    legacy_ids: tuple[LegacyId, ...] = ()


class RefreshRecord(msgspec.Struct, frozen=True, tag="refresh", tag_field="op",
                    rename="camel", omit_defaults=True):
    """A work (``progress``) source's observations were weighed and left a pending project
    state standing unchanged: its evidence date moves to ``at`` (the source's capture time)
    and its evidence link to the source (EVOLUTION item 47). Content, search terms, basis
    and method stay (a refresh never raises a claim's authority); only
    a progress source may write one, and only for a claim nominated for it."""

    schema_version: int
    id: str
    source_id: str
    at: str


EvolutionRecord = (SourceRecord | ClaimRecord | RefusalRecord | SettledRecord | ForgetRecord
                   | FeedbackRecord | CorrectRecord | ConflictRecord | ResolveRecord
                   | UndoRecord | ImportRecord | ConfirmRecord | PinRecord
                   | ImportBatchRecord | RefreshRecord | AdoptRecord)
#: feedback verdicts, by slot
UTILITY_VERDICTS: Final = frozenset({"useful", "unhelpful"})
ACCURACY_VERDICTS: Final = frozenset({"accurate", "incorrect"})
VERDICTS: Final = UTILITY_VERDICTS | ACCURACY_VERDICTS

_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder(EvolutionRecord)

#: fixed reasons a replacement is refused or quarantined (recorded, never model text)
AUTHORITY_REASONS: Final = frozenset({
    "pinned",            # the target is a pin
    "person_confirmed",  # the target is a memory a person confirmed
    "cross_origin",      # the target was learned in another origin
    "newer",             # the target changed after the source was captured
    "not_mentioned",     # the source did not mention (was not offered) the target
    "kind_change",       # a replacement may not change the kind
    "duplicate_target",  # two claims of one reply replace the same record
    "not_active",        # the target is superseded, conflicted or forgotten
    "weaker",            # weaker evidence than the target: quarantined as conflicted
    "still_redacted",    # the content holds a credential or a redaction placeholder
    "forgotten",         # the content was forgotten in this origin
    "incorrect",         # a person marked a repeated claim incorrect (its source retired)
    "progress_only",     # a work (progress) source may only update project state
    "not_nominated",     # a work source may only replace a claim nominated for it
})


def encode_record(record: EvolutionRecord) -> dict[str, object]:
    """The record as a JSON object (the ``data`` of its custom entry)."""
    decoded: dict[str, object] = msgspec.json.decode(_ENCODER.encode(record))
    return decoded


def decode_record(data: object) -> EvolutionRecord | None:
    """A record from a custom entry's ``data``; ``None`` when it is not one this version
    understands (unknown op or version, wrong fields): kept in the ledger, never applied."""
    if not isinstance(data, dict) or data.get("schemaVersion") != SCHEMA_VERSION:
        return None
    try:
        return _DECODER.decode(_ENCODER.encode(data))
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
