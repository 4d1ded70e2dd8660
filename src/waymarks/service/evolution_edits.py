"""A person's edits to learned claims: forget, correct, conflict, resolve, pin, undo,
feedback (:mod:`.evolution_feedback`, re-exported here).

Each edit is one record appended to the evolution ledger (canonical, so it survives a
deleted ``waymarks.db``) under the ledger's lock, with the projection brought up to date
first; the edit is validated against that state and refused with a fixed code and a
message saying what to do, changing nothing. After appending, the folded event is read
back: an edit is reported done only when its event applied (``EditOutcome.event`` is the
event's ID, for ``undo`` and ``history``).

Messages name IDs and codes, never a claim's content. Forget is logical, not secure
erasure: the text stays in the append-only ledger, marked forgotten and suppressed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from waymarks.core.decisions import refuse_credentials
from waymarks.core.evolution.feedback import parse_feedback
from waymarks.core.evolution.model import (
    MAX_CONTENT,
    MIN_CONTENT,
    SCHEMA_VERSION,
    ConflictRecord,
    CorrectRecord,
    EvolutionRecord,
    ForgetRecord,
    PinRecord,
    ResolveRecord,
    SettledRecord,
    UndoRecord,
    claim_id,
    utf16_len,
)
from waymarks.core.evolution.rows import (
    ClaimRow,
    correctable_to,
    same_state,
    snapshot,
    suppression_key,
)
from waymarks.core.privacy import Classification
from waymarks.core.text import escaped
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_feedback import (
    REFUSALS,
    EditOutcome,
    _commit,
    _live,
    _refuse,
    _retire_repeats,
    feedback,
    natural_feedback,
    replaced_by,
    stop_feedback,
    twins_said,
    worded_twins,
)
from waymarks.service.learning import ledger_path
from waymarks.service.ports import iso

if TYPE_CHECKING:
    from waymarks.core.evolution import legacy as legacy_types
    from waymarks.store.evolution import EventRow

__all__ = ["REFUSALS", "EditOutcome", "feedback", "natural_feedback", "stop_feedback"]

def forget(evo: Evolution, cid: str) -> EditOutcome:
    """Forget a claim (any state but forgotten; a hash-mismatched row too) and its
    same-origin duplicates (the fold takes the exact ones; those with another case,
    spacing or closing punctuation each get a forget of their own: "the CI runs on GitHub
    Actions." stayed provisional and injected once "The CI runs on GitHub Actions" was
    forgotten); suppress its content in its origin; retire repeating sources."""
    with evo.ledger.locked():
        evo._locked_sync()
        claim = _live(evo, cid)
        if isinstance(claim, EditOutcome):
            return claim
        if claim.state == "forgotten" and evo.store.view.suppressed(
                suppression_key(claim.origin, claim.content)):
            return _refuse("not_active", f"{cid} is already forgotten")
        at = iso(evo.clock.now())
        variants = worded_twins(evo, claim, ("provisional", "conflicted", "superseded"))
        records: list[EvolutionRecord] = [ForgetRecord(SCHEMA_VERSION, i, at)
                                          for i in (cid, *variants)]
        retired = _retire_repeats(evo, claim.origin, claim.content, "forgotten")
        return _commit(evo, [*records, *retired], f"Forgot {cid}{twins_said(variants)} "
                       "(logical, not secure erasure: the text stays in the append-only "
                       "ledger, suppressed in its origin).", id=cid,
                       retiredSources=len(retired), variants=variants)


#: the states a forget by origin takes (every one a forget of one claim takes)
UNFORGOTTEN: Final = ("provisional", "conflicted", "superseded")


def forget_origin(evo: Evolution, origin: str) -> EditOutcome:
    """Forget every learned claim of ``origin`` not forgotten yet, each by its own event
    (``evolution undo`` takes one back), and settle the origin's queued sources (their
    model pass would learn there again). One append, under one lock: all or nothing.
    ``data``: the claims (ID, kind, state, content) and the sources retired; in a
    :func:`dry_run`, what it would do. Why: a project's learned claims are recalled in
    every project, and one learned from a repository later found hostile had to be
    forgotten one ID at a time."""
    with evo.ledger.locked():
        evo._locked_sync()
        claims = evo.store.claims(states=UNFORGOTTEN, origin=origin)
        at = iso(evo.clock.now())
        # (a source captured, not learned yet: the next model pass would learn it)
        retired = [SettledRecord(SCHEMA_VERSION, s.source_id, "forgotten", at)
                   for s in evo.store.unsettled(1_000_000) if s.origin == origin]
        if not claims and not retired:
            return _refuse("not_found", f"no learned claim in effect and no queued source "
                           f"comes from {escaped(origin)}; see `waymarks learn list` (its "
                           "ORIGIN column); nothing changed")
        data = {"origin": origin, "retiredSources": len(retired),
                "claims": [{"id": c.id, "kind": c.kind, "state": c.state,
                            "content": c.content} for c in claims]}
        said = (f"{len(claims)} learned claim(s) of {escaped(origin)} and {len(retired)} "
                "queued source(s)")
        if evo.dry_run:
            return EditOutcome(True, "done", f"Would forget {said}.", None, data)
        first = evo.store.last_seq() + 1
        evo._append([*(ForgetRecord(SCHEMA_VERSION, c.id, at) for c in claims), *retired])
        left = [c.id for c in evo.store.claims(states=UNFORGOTTEN, origin=origin)
                if c.id in {claim.id for claim in claims}]
        if left:  # (the fold refused one: history says why)
            return _refuse("not_applied", f"{len(left)} of the claims did not become "
                           "forgotten; see `waymarks evolution history`")
        return EditOutcome(True, "done", f"Forgot {said} (logical, not secure erasure: the "
                           "text stays in the append-only ledger, suppressed in its origin).",
                           first, data)


def correction_fits(text: str) -> bool:
    """Whether ``text`` (stripped) has the length of a claim (4-800 UTF-16 units)."""
    return MIN_CONTENT <= utf16_len(text.strip()) <= MAX_CONTENT


def correct(evo: Evolution, cid: str, text: str) -> EditOutcome:
    """Replace a claim's text with a person's correction (evidence manual_correction)."""
    content = text.strip()
    if not correction_fits(content):
        return _refuse("bad_input", f"a correction is {MIN_CONTENT}-{MAX_CONTENT} characters; "
                       "nothing changed")
    refused = refuse_credentials(content, "the correction")
    if refused is not None:  # as memory add refuses it: ledgers are plain text
        return _refuse(refused.code, refused.message)
    with evo.ledger.locked():
        evo._locked_sync()
        claim = _editable(evo, cid, "corrected", command=("correct", "{id}", "TEXT"))
        if isinstance(claim, EditOutcome):
            return claim
        new_id = claim_id(claim.origin, claim.kind, content)
        if evo.store.view.suppressed(suppression_key(claim.origin, content)):
            return _refuse("forgotten", "that text was forgotten in this claim's origin; it "
                           "is never added there again")
        if not correctable_to(evo.store.view.claim(new_id)):
            return _refuse("duplicate", f"that text is already claim {new_id}; forget "
                           f"{cid} instead, or resolve a conflict between them")
        return _commit(evo, [CorrectRecord(SCHEMA_VERSION, cid, content,
                                           iso(evo.clock.now()))],
                       f"Corrected {cid}: the correction is {new_id} (manual correction "
                       "outranks anything learned).", id=cid, correctedBy=new_id)


def _editable(evo: Evolution, cid: str, done: str, claim: ClaimRow | None = None,
              command: tuple[str, ...] = ()) -> ClaimRow | EditOutcome:
    """The claim ``cid`` (``claim``: read already) if a person may edit it, being
    provisional or conflicted; else why not (it can be ``done`` to only those), with the
    claim that replaced it and ``command`` aimed at that one (:func:`replaced_by`)."""
    found = claim if claim is not None else _live(evo, cid)
    if isinstance(found, EditOutcome) or found.state in ("provisional", "conflicted"):
        return found
    return _refuse("not_active", f"{cid} is {found.state}; only a provisional or "
                   f"conflicted claim can be {done}"
                   + (replaced_by(evo, found, *command) if command else ""))


def conflict(evo: Evolution, a: str, b: str) -> EditOutcome:
    if a == b:
        return _refuse("bad_input", "a conflict needs two different claim IDs")
    with evo.ledger.locked():
        evo._locked_sync()
        for cid in (a, b):
            claim = _live(evo, cid)
            if isinstance(claim, EditOutcome):
                return claim
            if claim.state not in ("provisional", "conflicted"):
                other = b if cid == a else a
                return _refuse("not_active", f"{cid} is {claim.state}" + replaced_by(
                    evo, claim, "conflict", *(("{id}", other) if cid == a else (other, "{id}"))))
        return _commit(evo, [ConflictRecord(SCHEMA_VERSION, a, b, iso(evo.clock.now()))],
                       f"{a} and {b} are conflicted: neither is recalled until one is "
                       f"resolved (`waymarks evolution resolve ID`).", a=a, b=b)


def resolve(evo: Evolution, cid: str) -> EditOutcome:
    with evo.ledger.locked():
        evo._locked_sync()
        claim = _live(evo, cid)
        if isinstance(claim, EditOutcome):
            return claim
        if claim.state != "conflicted":
            return _refuse("not_active", f"{cid} is {claim.state}, not conflicted")
        return _commit(evo, [ResolveRecord(SCHEMA_VERSION, cid, iso(evo.clock.now()))],
                       f"Resolved {cid}: it is recalled again.", id=cid)


def pin(evo: Evolution, cid: str, pinned: bool = True) -> EditOutcome:
    """Pin (or unpin) a learned claim (item 32): freshness 1, never dormant, never replaced
    by the model; no credibility bonus; its state and evidence dates stay (a conflicted
    claim stays conflicted). An event: ``undo`` takes it back."""
    with evo.ledger.locked():
        evo._locked_sync()
        claim = _editable(evo, cid, "pinned or unpinned",
                          command=("pin" if pinned else "unpin", "{id}"))
        if isinstance(claim, EditOutcome):
            return claim
        if claim.pinned == pinned:
            return _refuse("bad_input", f"{cid} is already {'pinned' if pinned else 'not pinned'}"
                           "; nothing changed")
        verb = "Pinned" if pinned else "Unpinned"
        return _commit(evo, [PinRecord(SCHEMA_VERSION, cid, pinned, iso(evo.clock.now()))],
                       f"{verb} {cid}" + (" (kept fresh, never dormant, never replaced by the "
                                          "model; undo takes it back)." if pinned else "."),
                       id=cid, pinned=pinned)


def adopt(evo: Evolution, cid: str, directory: str,
          label: Callable[[str], str] = escaped) -> EditOutcome:
    """Label a ``legacy`` claim with ``directory`` (item 74: optional; legacy
    claims are recalled without it). Its ID hashes its origin, so it gets a new ID there,
    with its evidence dates, basis, aliases, feedback and pin kept; the legacy claim is
    marked superseded by it. Undoable. The answer (and a refusal) names the origin, a
    project's path, through ``label``, as :func:`undo` names its claims: the model's
    egress for a model (a credential in a folder's name reached it unredacted)."""
    from waymarks.core.evolution.model import AdoptRecord

    with evo.ledger.locked():
        evo._locked_sync()
        found = _adoption(evo, cid, directory, label)
        if isinstance(found, EditOutcome):
            return found
        origin, new_id = found
        named = label(origin)
        return _commit(evo, [AdoptRecord(SCHEMA_VERSION, cid, origin, iso(evo.clock.now()))],
                       f"Adopted {cid} into {named} as {new_id} (evidence dates kept; undo "
                       "takes it back).", id=new_id, adopted=cid, origin=named)


def _adoption(evo: Evolution, cid: str, directory: str, label: Callable[[str], str]
              ) -> EditOutcome | tuple[str, str]:
    """Adopt's checks against the folded state: a refusal, or (origin, the new ID)."""
    from waymarks.core.evolution.model import LEGACY_ORIGIN
    from waymarks.ledger.identity import canonical_project_path

    origin = canonical_project_path(directory) if directory.startswith("/") else directory
    if not origin.startswith("/"):
        return _refuse("bad_input", "adopt labels a claim with a directory (an absolute "
                       "path); run it in that directory")
    claim = _live(evo, cid)
    if isinstance(claim, EditOutcome):
        return claim
    if claim.origin != LEGACY_ORIGIN:
        return _refuse("bad_input", f"{cid} has an origin already; only a legacy claim "
                       "(see `waymarks evolution list legacy`) can be adopted")
    claim = _editable(evo, cid, "adopted", claim)
    if isinstance(claim, EditOutcome):
        return claim
    new_id = claim_id(origin, claim.kind, claim.content)
    if evo.store.view.claim(new_id) is not None:
        return _refuse("duplicate", f"{label(origin)} already holds this claim as {new_id}")
    if evo.store.view.suppressed(suppression_key(origin, claim.content)):
        return _refuse("forgotten", f"this content was forgotten in {label(origin)}; "
                       "adopting it there would bring it back")
    return origin, new_id


def changed_since(evo: Evolution, row: EventRow) -> str | None:
    """The first claim event ``row`` changed that is no longer as the event left it (a
    later event changed it, or it is gone); ``None`` when every one is: then :func:`undo`
    takes the event (the inspector offers Undo on such an event alone)."""
    for change in row.changes:
        current = evo.store.view.claim(change.claim_id)
        if current is None or not same_state(snapshot(current), change.after):
            return change.claim_id
    return None


def undo(evo: Evolution, event: int, label: Callable[[str], str] = escaped) -> EditOutcome:
    """Undo one event, only if every claim it changed is still as the event left it. The
    claim IDs it names are the ledger's (a hand edit can fill them with anything), so they
    are named through ``label``: the model's egress (``Egress.label``) for a model; by
    default escaped, for a person (a line break or a bidi override in one stays visible)."""
    with evo.ledger.locked():
        evo._locked_sync()
        row = evo.store.event(event)
        if row is None or not row.changes:
            return _refuse("not_found", f"event {event} changed no claim; see "
                           "`waymarks evolution history`")
        changed = changed_since(evo, row)
        by = None if changed is None else evo.store.undone_by(event)
        if by is not None and evo.store.undone_by(by) is None:
            # ("undo the later events first" undid the undo: what it undid came back)
            return _refuse("changed_since", f"event {event} was already undone by event "
                           f"{by}; see `waymarks evolution history`")
        if changed is not None:
            return _refuse("changed_since", f"{label(changed)} changed after "
                           f"event {event}; undo the later events first (newest first)")
        return _commit(evo, [UndoRecord(SCHEMA_VERSION, event, iso(evo.clock.now()))],
                       f"Undid event {event} ({row.op}). Suppressions and feedback receipts "
                       "stay.", undone=event,
                       claims=[label(c.claim_id) for c in row.changes])


def feedback_from_turn(home: Path, messages: Sequence[tuple[str, str]]) -> dict[str, int]:
    """Apply natural feedback found in a turn's *user* messages (``(key, text)``: the key
    identifies the message, so a turn seen twice gives one receipt). Content-free counts;
    an unknown ID or a refused verdict is counted, never raised, so the rest of the hook
    runs. Nothing is opened when no message is feedback or nothing was ever learned."""
    found = [(key, text) for key, text in messages if parse_feedback(text) is not None]
    if not found or not ledger_path(home).is_file():
        return {"feedback": 0, "feedbackRefused": 0}
    applied = refused = 0
    with Evolution(home) as evo:
        for key, text in found:
            outcome = natural_feedback(evo, text, key)
            if outcome is not None and outcome.ok:
                applied += 1
            else:
                refused += 1
    return {"feedback": applied, "feedbackRefused": refused}


def import_legacy(evo: Evolution, directory: Path) -> EditOutcome:
    """Import pi-memory-evolution's ``memories.jsonl`` + ``memory-actions.jsonl`` from
    ``directory`` once (read only; the originals are never written). Missing or empty
    ledgers do not use up the import; any invalid row halts it with nothing written. The
    import is one ledger entry (:class:`~waymarks.core.evolution.model.ImportBatchRecord`):
    all of it becomes visible at once, or none of it."""
    from waymarks.core.evolution import legacy
    from waymarks.core.evolution.legacy_sqlite import DATABASE

    # the newer store holds any JSONL it imported; once imported, only its own marker
    # leaving the ledgers beside it open lets them be imported (nothing learned yet: no
    # import either, and no ledger is created to find that out)
    if (directory / DATABASE).is_file() and (
            not ledger_path(evo.home).is_file() or _imported(evo) != "open"):
        return _import_sqlite(evo, directory / DATABASE)
    from waymarks.files.reading import read_regular

    blobs = []
    for name in (legacy.MEMORIES, legacy.ACTIONS):
        try:  # a FIFO in a ledger's place is refused, never waited on (it hung the import)
            blobs.append(read_regular(directory / name))
        except FileNotFoundError:
            blobs.append(b"")
        except OSError as exc:
            return _refuse("bad_input", f"{directory / name}: cannot be read "
                           f"({exc.strerror or type(exc).__name__}); nothing was written")
    if not blobs[0].strip():
        if (directory / DATABASE).is_file():  # the database there was imported already
            return _refuse("duplicate", f"{directory / DATABASE} was already imported into "
                           f"this home (an import is never replayed); no {legacy.MEMORIES} "
                           "beside it to import")
        return _refuse("not_found", f"no legacy memories in {directory} ({legacy.MEMORIES} "
                       "missing or empty); the import stays available")
    now = iso(evo.clock.now())  # the import's time: no imported date is after it
    try:
        texts = [b.decode("utf-8") for b in blobs]
        conversion = legacy.convert(texts[0], texts[1], _unmarked_of(evo), now)
    except UnicodeDecodeError:
        return _refuse("bad_input", "a legacy ledger is not UTF-8 text; the import stopped "
                       "and nothing was written")
    except legacy.LegacyError as exc:
        return _refuse("bad_input", str(exc))
    with evo.ledger.locked():
        evo._locked_sync()
        if evo.store.imported():
            return _refuse("duplicate", "legacy memory was already imported into this home; "
                           "an import is never replayed")
        # one record, one ledger entry: a crash leaves all of the import or none of it
        evo._append([legacy.batch(conversion, legacy.digest(*blobs), now)])
        last = evo.store.event(evo.store.last_seq())
        if last is None or last.op != "imported" or not last.applied:
            return _refuse("not_applied", "the import did not complete; see "
                           "`waymarks evolution learning`")
        return EditOutcome(True, "done", f"Imported {conversion.claims} legacy claims "
                           f"({conversion.skipped} skipped: nothing storable).",
                           last.seq, {"claims": conversion.claims,
                                      "skipped": conversion.skipped})


def _unmarked_of(evo: Evolution) -> Callable[[str], Classification]:
    """The level of an origin's unmarked legacy text: the person's policy's
    ``defaultClassification`` for it (read once an origin), as capture takes it; imported
    at ``normal``, a pending job went to a route the policy kept that text from."""
    from functools import cache

    from waymarks.service.config import unmarked_level

    return cache(lambda origin: unmarked_level(evo.home, origin))


def _imported(evo: Evolution) -> str:
    """``none``, ``open`` (only imports that left the JSONL ledgers open) or ``closed``."""
    evo.sync()
    if evo.store.imported():
        return "closed"
    return "open" if evo.store.imported(consumed=False) else "none"


def _import_sqlite(evo: Evolution, path: Path) -> EditOutcome:
    """Import a pi-memory-evolution ``memory.sqlite`` (schemas 2-7; item 81), read from a
    copy (the original is never opened or changed), as one ledger entry."""
    from waymarks.core.evolution import legacy
    from waymarks.core.evolution.legacy_sqlite import convert_rows, ledgers_open, rows_digest
    from waymarks.store.legacy_sqlite import LegacySqliteError, read_legacy_sqlite

    try:
        snapshot = read_legacy_sqlite(path)
    except LegacySqliteError as exc:
        return _refuse("bad_input", f"{path} {exc}; nothing was written")
    if not snapshot.rows:
        return _refuse("not_found", f"no legacy memories in {path}; the import stays "
                       "available")
    now = iso(evo.clock.now())  # the import's time: no imported date is after it
    try:
        conversion = convert_rows(snapshot.schema, snapshot.rows, snapshot.sources,
                                  snapshot.events, _unmarked_of(evo), now)
        conversion.ledgers_open = ledgers_open(snapshot.schema, snapshot.import_marker,
                                               snapshot.migration_event, snapshot.rows)
    except legacy.LegacyError as exc:
        return _refuse("bad_input", str(exc))
    with evo.ledger.locked():
        evo._locked_sync()
        if evo.store.imported(consumed=False):
            return _refuse("duplicate", "legacy memory was already imported into this home; "
                           "an import is never replayed")
        evo._append([legacy.batch(conversion, rows_digest(snapshot.schema, snapshot.rows),
                                  now)])
        last = evo.store.event(evo.store.last_seq())
        if last is None or last.op != "imported" or not last.applied:
            return _refuse("not_applied", "the import did not complete; see "
                           "`waymarks evolution learning`")
        requeued = _requeue(evo, conversion)
        opened = (" Its own marker shows the JSONL ledgers beside it were never imported: "
                  "`waymarks evolution import DIR` again imports them once."
                  if conversion.ledgers_open else "")
        return EditOutcome(True, "done", f"Imported {conversion.claims} legacy claims from "
                           f"{path} (schema {snapshot.schema}; {conversion.skipped} skipped: "
                           f"nothing storable), {len(conversion.history)} history events and "
                           f"{conversion.jobs_due} queued jobs (due now; {requeued} of "
                           "them keep their old failures, cause unknown). The database was "
                           "only read." + opened, last.seq,
                           {"claims": conversion.claims, "skipped": conversion.skipped,
                            "schema": snapshot.schema, "history": len(conversion.history),
                            "jobsDue": conversion.jobs_due, "jobsRequeued": requeued,
                            "jobsSettled": conversion.jobs_settled,
                            "ledgersOpen": conversion.ledgers_open})


def _requeue(evo: Evolution, conversion: legacy_types.Conversion) -> int:
    """Queue the imported jobs that had failed, with their old failure count and the cause
    ``cause_unknown`` (item 81): the queue's own state, kept in ``evolution.db`` (jobs
    are operational state; the sources themselves are in the ledger)."""
    from waymarks.core.evolution.model import SourceRecord
    from waymarks.core.model_port import SourceRef
    from waymarks.service.recovery import using_job_store

    if not conversion.requeued:
        return 0
    sources = {r.source_id: r for r in conversion.records if isinstance(r, SourceRecord)}
    refs = [(SourceRef(s.source_id, s.origin, s.classification, s.captured_at), failures)
            for sid, failures in conversion.requeued if (s := sources.get(sid)) is not None]
    now = evo.clock.now()
    return using_job_store(evo.home, now, lambda store: store.add_requeued(
        refs, int(now.timestamp() * 1000)))


def archive_legacy(evo: Evolution, directory: Path) -> EditOutcome:
    """Back up imported pi-memory-evolution ledgers (item 80): a copy-only archive, as the
    original's ``archive-legacy`` makes; the originals stay where they are, unchanged.
    Only after a completed import of exactly these bytes (their digest is the one
    imported), into ``DIR/waymarks-archive-<time>/``; a copy that does not read back
    byte-identical is removed and refused. Writes nothing to the evolution ledger."""
    import shutil

    from waymarks.core.evolution import legacy

    evo.sync()
    digests = evo.store.imported_digests()
    if not digests:
        return _refuse("not_found", "no legacy import has completed in this home; run "
                       "`waymarks evolution import DIR` first")
    names = [n for n in (legacy.MEMORIES, legacy.ACTIONS) if (directory / n).is_file()]
    if legacy.MEMORIES not in names:
        return _refuse("not_found", f"no {legacy.MEMORIES} in {directory}; nothing copied")
    from waymarks.files.reading import read_regular

    try:
        blobs = {n: read_regular(directory / n) for n in names}
    except OSError as exc:
        return _refuse("bad_input", f"the legacy ledgers cannot be read "
                       f"({type(exc).__name__}); nothing copied")
    if legacy.digest(blobs[legacy.MEMORIES], blobs.get(legacy.ACTIONS, b"")) not in digests:
        return _refuse("changed_since", "these ledgers are not the ones imported (they "
                       "changed since, or come from elsewhere); nothing copied")
    stamp = iso(evo.clock.now()).replace(":", "").replace("-", "").replace(".", "")
    target = directory / f"waymarks-archive-{stamp}"
    try:
        target.mkdir(mode=0o700)
        for name in names:
            shutil.copyfile(directory / name, target / name)
        same = all((target / n).read_bytes() == blobs[n] for n in names)
    except OSError as exc:
        shutil.rmtree(target, ignore_errors=True)
        return _refuse("bad_input", f"cannot write the archive {target} "
                       f"({type(exc).__name__}); nothing kept")
    if not same:  # changed while being copied
        shutil.rmtree(target, ignore_errors=True)
        return _refuse("changed_since", "a ledger changed while it was copied; nothing kept")
    return EditOutcome(True, "done", f"Copied {', '.join(names)} to {target} (a backup; the "
                       "originals are unchanged and the import stays done).", None,
                       {"archive": str(target), "files": names})
