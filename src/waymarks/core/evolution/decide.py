"""Conservative writes: what a validated reply may change (EVOLUTION items 51, 55, 56).

Given a source, the claims a reply proposes (already past :mod:`.contract`) and what the
store knows about each record a proposal names, decide the records to append. Pure: the
service looks the targets up and appends what comes out, under the ledger lock.

A proposal that replaces a record is refused, with a fixed reason, when the record:
- is a pin (``pinned``) or a memory a person confirmed (``person_confirmed``): evolved claims
  never replace, hide or outrank what a person confirmed;
- was learned in another origin (``cross_origin``): global recall is not global rewrite;
- changed after the source was captured (``newer``);
- was not offered to the model for this source (``not_mentioned``), is not active
  (``not_active``), has another kind (``kind_change``), or is named twice (``duplicate_target``).
A refusal names its target by an ID the store knows (the record replaced, else the new
claim's own): never by the model's text, which held a route's key (the contract takes only
an ID's shape as ``replaces``; a well-formed ID of no record is no record's either).
Any such refusal is an **authority stop** for the whole reply: nothing of it is written (not
even its other, acceptable claims), only the refusals are recorded, and the source is *not*
settled. The queue pauses its job as ``write_rejected`` (seed 004: a refusal pauses at once,
because the same evidence would be refused again; a paused job is not settled), so the
evolution ledger, its projection, the queue and ``evolution status`` all say "unsettled,
paused"; ``waymarks evolve SOURCE`` may try it again.
A replacement backed by weaker evidence than its target (the priority table of
:func:`~.model.priority`; a claim the person marked ``accurate`` is protected at
``CONFIRMED_PRIORITY``, so only a manual correction outranks it) is withheld: the
target stays, the new variant is stored ``conflicted`` (quarantined, never recalled) and
the refusal is recorded as ``weaker``.
Content that still holds a credential (a route's own API key among them) or a placeholder
(a redaction, text withheld by the privacy policy, ``[waymarks:omitted]``) is refused
(``still_redacted``, a stop); content forgotten in this origin is refused alone
(``forgotten``: recorded, the reply's other claims written, the source settled), and so is
content a claim of this origin holds that the person marked ``incorrect`` (``incorrect``:
the verdict quarantined every claim of that text, and one learned again as another kind,
a new ID, was written provisional); a search
term that holds a credential is dropped from its claim.

A reply that settles says what it did: ``applied`` when it wrote a claim (or refreshed a
state), ``refused_only`` when its only new claims were refused alone (``forgotten``,
``weaker``), ``no_change`` when it proposed nothing new.

Claims are written ``provisional`` with host-assigned evidence: the source's basis, method
``model``, the source's ID, and the source's capture time as the evidence date.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Protocol

from waymarks.core.evolution.capture import holds_placeholder
from waymarks.core.evolution.contract import ProposedClaim
from waymarks.core.evolution.fold import SourceRow
from waymarks.core.evolution.model import (
    CONFIRMED_PRIORITY,
    SCHEMA_VERSION,
    ClaimRecord,
    Evidence,
    EvolutionRecord,
    RefreshRecord,
    RefusalRecord,
    claim_id,
    priority,
)
from waymarks.core.evolution.progress import progress_refusal, refreshes
from waymarks.core.secrets import holds_credential

#: refusals that are quarantines, not authority stops (the source is still applied)
QUARANTINE: Final = "weaker"
#: refusals of one claim that leave the rest of the reply standing: text forgotten in
#: this origin is never shown to the model, so it may well say it again, and stopping
#: the reply for it lost the reply's other claims and paused the source on every retry
#: (seed 004's store-authority stops are pinned, cross-origin, newer and still-redacted);
#: so is text the person marked incorrect in this origin (``incorrect``)
DROPPED: Final = frozenset({QUARANTINE, "forgotten", "incorrect"})


@dataclass(frozen=True, slots=True)
class Target:
    """A record a proposal names, as the store knows it."""

    namespace: str  # "evolved" | "pin" | "memory"
    origin: str
    kind: str
    state: str  # evolved: provisional/conflicted/...; pins and memory: their status
    updated_at: str  # ISO-8601 evidence date
    basis: str = ""
    pinned: bool = False  # an evolved claim a person pinned: never replaced by the model
    accurate: bool = False  # an evolved claim whose last accuracy verdict is "accurate"

    @property
    def strength(self) -> int:
        """How strong the evidence a replacement must match is (EVOLUTION item 5): the
        priority table's, or ``CONFIRMED_PRIORITY`` for a record the person confirmed as
        accurate (a summary replaced one: its own summary basis was compared, 1 to 1)."""
        return CONFIRMED_PRIORITY if self.accurate else priority(self.basis, self.kind)


class Lookup(Protocol):
    def target(self, record_id: str) -> Target | None: ...

    def exists(self, claim_id: str) -> bool: ...

    def forgotten(self, origin: str, content: str) -> bool:
        """Whether ``content`` is suppressed in ``origin``, itself or as a duplicate (the
        same text but for case, spacing and closing punctuation) of a suppressed text."""
        ...

    def disputed(self, origin: str, content: str) -> bool:
        """Whether a claim of ``content`` in ``origin`` is quarantined by the person's
        ``incorrect`` verdict."""
        ...


@dataclass(frozen=True, slots=True)
class Decision:
    records: list[EvolutionRecord] = field(default_factory=list)
    code: str = "no_change"
    written: int = 0
    refused: int = 0
    #: False for an authority stop: nothing is written and the source stays unsettled
    settles: bool = True


def decide(source: SourceRow, proposed: list[ProposedClaim], offered: frozenset[str],
           lookup: Lookup, at: str, *, secrets: frozenset[str] = frozenset()) -> Decision:
    """The records that applying ``proposed`` for ``source`` appends (refusals included).
    ``secrets``: values that count as credentials here (the routes' own API keys, which no
    credential pattern may know: a hostile provider echoed its key into a claim, stored
    and then recalled to every model)."""
    records: list[EvolutionRecord] = []
    written = refused = 0
    stops: list[str] = []
    replaced: set[str] = set()
    seen: set[str] = set()
    evidence = Evidence(basis=source.basis, method="model", source_id=source.source_id,  # type: ignore[arg-type]
                        at=source.captured_at)

    def refuse(target: str, reason: str) -> None:
        nonlocal refused
        refused += 1
        if reason not in DROPPED:
            stops.append(reason)
        records.append(RefusalRecord(SCHEMA_VERSION, source.source_id, target, reason, at))

    for claim in proposed:
        new_id = claim_id(source.origin, claim.kind, claim.content)
        # a refusal names the record replaced only when it is one the store knows: a
        # model's `replaces` is its text, never stored as such (it held a route's key)
        named = (claim.replaces if claim.replaces is not None
                 and lookup.target(claim.replaces) is not None else new_id)
        limited = progress_refusal(source, claim, offered)  # a work source's narrow authority
        if limited is not None:
            refuse(named, limited)
            continue
        if _redacted(claim.content, secrets):
            refuse(new_id, "still_redacted")
            continue
        if lookup.forgotten(source.origin, claim.content):
            refuse(new_id, "forgotten")
            continue
        if new_id == claim.replaces and refreshes(source, claim, offered, replaced):
            replaced.add(new_id)  # a work source left a pending state standing (item 47)
            records.append(RefreshRecord(SCHEMA_VERSION, new_id, source.source_id,
                                         source.captured_at))
            written += 1
            continue
        if new_id in seen or new_id == claim.replaces or lookup.exists(new_id):
            continue  # already known: nothing to write
        if lookup.disputed(source.origin, claim.content):
            # the person said this text is incorrect here: learned again as another kind
            # (a new ID), it came back provisional and was injected again
            refuse(new_id, "incorrect")
            continue
        state = "provisional"
        conflicts: str | None = None
        replaces = claim.replaces
        if replaces is not None:
            reason = _replacement_refusal(source, claim, replaces, offered, replaced, lookup)
            if reason is not None:
                refuse(named, reason)
                continue
            replaced.add(replaces)
            target = lookup.target(replaces)
            assert target is not None
            if priority(source.basis, claim.kind) < target.strength:
                refuse(replaces, QUARANTINE)
                state, conflicts, replaces = "conflicted", claim.replaces, None
        seen.add(new_id)
        records.append(ClaimRecord(
            SCHEMA_VERSION, new_id, source.origin, claim.kind, claim.content,  # type: ignore[arg-type]
            evidence, state, replaces, conflicts, _clean_terms(claim.search_terms, secrets)))  # type: ignore[arg-type]
        written += state == "provisional"
    if stops:
        # an authority stop changes nothing: only the refusals are recorded, and the source
        # is not settled (its job pauses; the same evidence would be refused again)
        kept: list[EvolutionRecord] = [
            r for r in records if isinstance(r, RefusalRecord) and r.reason != QUARANTINE]
        return Decision(kept, stops[0], 0, len(kept), settles=False)
    # a reply whose every new claim was refused alone (forgotten here, or quarantined as
    # weaker) learned nothing: it settles as refused_only, never "applied" (which said
    # "learned" of a reply that wrote no claim)
    code = "applied" if written else "refused_only" if refused else "no_change"
    return Decision(records, code, written, refused)


def _replacement_refusal(source: SourceRow, claim: ProposedClaim, replaces: str,
                         offered: frozenset[str], replaced: set[str],
                         lookup: Lookup) -> str | None:
    target = lookup.target(replaces)
    if target is not None and (target.namespace == "pin" or target.pinned):
        return "pinned"
    if target is not None and target.namespace == "memory":
        return "person_confirmed"
    if target is None:
        return "not_mentioned"
    if target.origin != source.origin:
        return "cross_origin"
    if target.updated_at > source.captured_at:
        return "newer"
    if replaces not in offered:
        return "not_mentioned"
    if target.state != "provisional":
        return "not_active"
    if target.kind != claim.kind:
        return "kind_change"
    if replaces in replaced:
        return "duplicate_target"
    return None


def _clean_terms(terms: tuple[str, ...],
                 secrets: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """A claim's search terms without any holding a credential or a redaction placeholder:
    terms only help recall, so such a term is dropped, not the claim (it was stored and
    listed in clear, where the claim's content would have been refused)."""
    return tuple(t for t in terms if not _redacted(t, secrets))




def _redacted(text: str, secrets: frozenset[str] = frozenset()) -> bool:
    """Whether ``text`` holds a credential, one of ``secrets`` or one of Waymarks' own
    placeholders: a reply echoing ``[withheld by privacy policy]`` or
    ``[waymarks:omitted]`` was stored as a claim and then injected into plans as if it
    were something learned."""
    return (holds_credential(text) or holds_placeholder(text)
            or any(secret in text for secret in secrets))
