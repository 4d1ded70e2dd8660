"""The rules that turn mutations into item state, shared by live writes and replay.

One function decides what a mutation does (:func:`apply_mutation`) and one finds the
active items a new item would duplicate or contradict (:func:`find_duplicate`,
:func:`find_conflicts`). Both read state only through :class:`StateView`, which has two
implementations: an in-memory one for full replay (``core.replay``) and the SQLite
projection (``store``). Because the rules are written once, incremental projection and
full rebuild cannot disagree on what a mutation means; the property test checks that
the two views do not disagree on what they store.

Invariants:
- an item ID is created once; a later ``add`` with the same ID is ignored, except a
  session or branch item of the same kind in another session, which is that session's
  copy under an ID of its own (:func:`copy_id`: Pi's ``/fork`` copies the branch, item
  IDs and all);
- nothing is overwritten: a supersession marks the old item ``superseded`` and links it;
  a replacement of a project item is a project item, and of another item not one (else
  it is ``invalid``, the old item untouched: a session item "replacing" a project pin
  withdrew it from every session of the project, from a session excluded or held back
  too);
- of two active memory items in one partition that share a key or contradict in
  polarity, the later in replay order is ``invalid`` and names the earlier;
- a ``status`` mutation changes only an ``active`` item, and only to a status its kind allows.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from sys import intern
from typing import TYPE_CHECKING, Final, Protocol

import msgspec
from msgspec.structs import replace

from waymarks.core.claim_done import things_done
from waymarks.core.digests import blake2b
from waymarks.core.model import (
    MEMORY_STATUS_TARGETS,
    PIN_STATUS_TARGETS,
    Item,
    Kind,
    MemoryItem,
    MutationRecord,
    PinItem,
    Status,
    item_text,
    mutation_kind,
    status_target,
)
from waymarks.core.text import (
    derive_key_normalized,
    loose_key,
    normalize,
    normalize_key,
    polarity_normalized,
)

if TYPE_CHECKING:
    from waymarks.core.claim_masked import Similarity


class ItemState(msgspec.Struct, frozen=True):
    """An item as the projection holds it: the immutable record plus its lifecycle."""

    item: Item
    kind: Kind
    session_id: str
    entry_id: str
    partition: str
    norm: str
    key: str | None
    polarity_base: str | None
    polarity_sign: int
    seq: int
    status: Status = "active"
    reason: str | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    conflicts_with: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.item.id

    @property
    def text(self) -> str:
        return item_text(self.item)


class StateView(Protocol):
    """Read access to projected item state, plus the one write replay needs."""

    def get(self, item_id: str) -> ItemState | None: ...

    def active_matching(
        self, kind: Kind, partition: str, norm: str, key: str | None, polarity_base: str | None
    ) -> Sequence[ItemState]:
        """Active items of ``kind`` in ``partition`` sharing the norm, key or polarity base."""
        ...

    def active_with_norms(self, kind: Kind, partition: str, norms: Sequence[str]
                          ) -> Sequence[ItemState]:
        """Active items of ``kind`` in ``partition`` whose norm is one of ``norms`` (one
        indexed lookup for them all), in ``seq`` order."""
        ...

    def active_conflicting(
        self, kind: Kind, partition: str, norm: str, key: str | None,
        polarity_base: str | None, polarity_sign: int, limit: int,
    ) -> Sequence[ItemState]:
        """Active items of ``kind`` in ``partition`` whose norm differs from ``norm`` and
        that share the key, or hold the polarity base with the opposite sign: what
        :func:`find_conflicts` may cite (replay asks for every add). At least the
        ``limit`` earliest of them (by ``seq``), if there are that many."""
        ...

    def active_texts(self, partition: str, subject: frozenset[str] | None = None,
                     most: int | None = None) -> Sequence[tuple[str, str]]:
        """``(id, text)`` of the active memory items in ``partition``, oldest first (the
        write-time contradiction check reads texts, and loads only the items it cites).
        With ``subject`` (a claim's signature subject), a view may leave out claims whose
        subject can neither equal, contain nor be contained in it (never one that can), and
        may return claims of other statuses too: the caller judges each one it cites by
        its state from :meth:`get` (a view over a database verifies that row there). With
        ``most``, nothing when even the subject's rarest term is held by more than ``most``
        claims of the partition (a word that common names no subject alone: the typed-slot
        check looks up one term at a time, and "port" read every claim per write)."""
        ...

    def active_texts_holding(self, partition: str, terms: Collection[str], most: int
                             ) -> Sequence[tuple[str, str]]:
        """``(id, text)`` of the memory items in ``partition`` holding any of ``terms``
        (signature subject terms) that at most ``most`` claims of the partition hold,
        oldest first: what :meth:`active_texts` gives asked each term alone (as a
        one-term ``subject``, with ``most``), in one lookup (the typed-slot check asked
        one term at a time: ~8.5 statements a write under the session lock)."""
        ...

    def put(self, state: ItemState) -> None: ...


class Applied(msgspec.Struct, frozen=True):
    """The mutation changed state; ``changed`` lists every item state written."""

    changed: tuple[ItemState, ...]


class Ignored(msgspec.Struct, frozen=True):
    """The mutation is kept in the log but changes nothing; ``reason`` says why."""

    reason: str


MutationEffect = Applied | Ignored


def partition_of(item: Item, session_id: str) -> str:
    """Where duplicates and conflicts are looked for: one session, or one project. One
    string per partition (interned): a fold holds a state per item, and a copy of its
    partition's name in each was 80 MB of a rebuild's peak at 1M items."""
    if item.scope == "project" and item.project_path:
        return intern(f"project:{item.project_path}")
    return intern(f"session:{session_id}")


def effective_key(item: Item, norm: str) -> str | None:
    """The explicit key, folded, or one derived from the normalized text; pins have none."""
    if not isinstance(item, MemoryItem):
        return None
    if item.key:
        return normalize_key(item.key) or None
    return derive_key_normalized(norm)


def new_state(item: Item, session_id: str, entry_id: str, seq: int) -> ItemState:
    """The ``active`` state of a freshly written item."""
    norm = normalize(item_text(item))
    kind: Kind = "pin" if isinstance(item, PinItem) else "memory"
    polar = polarity_normalized(norm) if kind == "memory" else None
    return ItemState(
        item=item,
        kind=kind,
        session_id=session_id,
        entry_id=entry_id,
        partition=partition_of(item, session_id),
        norm=norm,
        key=effective_key(item, norm),
        polarity_base=polar[0] if polar else None,
        polarity_sign=polar[1] if polar else 0,
        seq=seq,
    )


def find_duplicate(view: StateView, candidate: ItemState) -> ItemState | None:
    """An active item of the same kind, partition and scope with the same normalized text."""
    for other in _matching(view, candidate):
        if other.norm == candidate.norm and other.item.scope == candidate.item.scope:
            return other
    return None


#: the earliest conflicting items a refused claim names (a ledger of thousands of claims
#: under one key made each refused one name all of them: quadratic time and memory, 5 GB
#: for a 1.5 MB team ledger); the refusal itself needs one
MAX_CONFLICTS_NAMED: Final = 16


def find_conflicts(
    view: StateView, candidate: ItemState, ignore: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """IDs of active memory items the candidate contradicts, earliest first.

    Same key with different text, or the same polarity base with the opposite sign.
    Pins never conflict: they are instructions a person confirmed, not claims.
    """
    if candidate.kind != "memory" or (candidate.key is None
                                      and candidate.polarity_base is None):
        return ()  # no facet to conflict on (a view answers nothing then: not asked)
    hits = [other for other in view.active_conflicting(
                candidate.kind, candidate.partition, candidate.norm, candidate.key,
                candidate.polarity_base, candidate.polarity_sign,
                MAX_CONFLICTS_NAMED + len(ignore) + 1)
            if other.id not in ignore and other.id != candidate.id]
    if not hits:  # the common case: no sort, no generator
        return ()
    return tuple(o.id for o in sorted(hits, key=lambda s: s.seq)[:MAX_CONFLICTS_NAMED])


def find_contradictions(
    view: StateView, candidate: ItemState, partitions: Sequence[str],
    ignore: frozenset[str] = frozenset(), similar: Similarity | None = None,
) -> tuple[str, ...]:
    """IDs of active memory items in ``partitions`` that a *new write* contradicts.

    Wider than :func:`find_conflicts`, which replay applies too: it looks into every
    partition the writer sees (its session and its trusted project), applies the key and
    polarity rules there, and adds claims whose signatures contradict
    (:mod:`waymarks.core.contradiction`: same subject and attribute, no value in common,
    in English, Chinese, Japanese or Korean), and claims stating another value of one
    typed slot in other words (:mod:`waymarks.core.claim_slots`; with its values masked,
    :mod:`waymarks.core.claim_masked`, ``similar`` the similarity of two masked texts a
    caller may pass in place of their lexical overlap). Used only to refuse a
    request, so ledgers already written keep their meaning on replay.
    """
    if candidate.kind != "memory":
        return ()
    from waymarks.core.claim_negations import opposite_norms
    from waymarks.core.contradiction import contradicts, signature  # (a write's, not a read's)

    hits: dict[str, int] = {}
    #: claims of the candidate's partition the replay rule binds it to by a shared key
    #: alone, whose signatures say they state another fact: named only when nothing else
    #: is (a refusal naming "enabled in staging" first sent the writer to supersede it)
    keyed_only: dict[str, int] = {}
    mine = signature(candidate.text)
    for partition in dict.fromkeys(partitions):
        widened = replace(candidate, partition=partition)
        for other in _matching(view, widened):
            if not _contradicts_by_rule(candidate, other, ignore):
                continue
            if partition != candidate.partition and not _opposite(candidate, other) and (
                    things_done(candidate, mine, other)):
                continue  # two things done to it: the same partition writes it apart
            theirs = signature(other.text) if mine is not None else None
            if mine is not None and theirs is not None and not contradicts(mine, theirs):
                if partition != candidate.partition:
                    # another partition is not bound by the replay rule: when both claims
                    # have signatures, theirs decides ("enabled in staging" is not about
                    # "production" although both have the key "debug logging")
                    continue
                if not _opposite(candidate, other):
                    keyed_only[other.id] = other.seq
                    continue
            hits[other.id] = other.seq
    opposites = opposite_norms(candidate.norm)  # its very negation (no value to compare)
    for partition in dict.fromkeys(partitions) if opposites else ():
        for other in view.active_with_norms("memory", partition, opposites):
            if other.id not in ignore and other.id != candidate.id and not _keyed_apart(
                    candidate, other):
                hits[other.id] = other.seq
    if mine is not None:
        for partition in dict.fromkeys(partitions):
            for item_id, text in view.active_texts(partition, mine.subject):
                if item_id in hits or item_id in ignore or item_id == candidate.id:
                    continue
                theirs = signature(text)
                # the set test first: only a contradicting text is normalised (each write
                # compares its claim with every active claim it sees)
                if theirs is None or not contradicts(mine, theirs) or (
                        normalize(text) == candidate.norm):
                    continue
                _hit(view, candidate, item_id, hits)
    from waymarks.core.claim_masked import masked_conflict, valued
    from waymarks.core.claim_slots import slot_rivals  # another value in other words

    masked = (None if valued(candidate.text) is None else  # (its values masked)
              lambda other: masked_conflict(candidate.text, other, similar))
    for item_id in slot_rivals(view, candidate.text, partitions, masked):
        if item_id not in hits and item_id not in ignore and item_id != candidate.id:
            _hit(view, candidate, item_id, hits)
    hits = hits or keyed_only  # the replay rule refuses it all the same
    return tuple(sorted(hits, key=lambda i: (hits[i], i)))


def _hit(view: StateView, candidate: ItemState, item_id: str, hits: dict[str, int]) -> None:
    """Count ``item_id`` among the claims ``candidate`` contradicts when it is an active
    claim neither keyed apart from it nor a thing done beside where it is."""
    from waymarks.core.claim_actions import agent_beside_place

    found = view.get(item_id)
    if found is not None and found.status == "active" and found.kind == "memory" and not (
            _keyed_apart(candidate, found)) and not agent_beside_place(candidate.norm,
                                                                       found.norm):
        hits[item_id] = found.seq


def _keyed_apart(one: ItemState, other: ItemState) -> bool:
    """The new claim carries an explicit key, and the other claim's key (explicit, derived
    or none) is another: the writer said they are two facts, and the replay rule agrees
    (it compares keys). Compared loosely (:func:`loose_key`): ``db_port`` and ``DB port``
    are no two facts, and they switched the check off for a claim that contradicts.
    Honoured only when both claims carried explicit keys, it left a writer with no way to
    record "The API metrics port is 9090." beside "The API listens on port 8080.":
    ``--key`` was refused the same, and the suggested supersede deleted a true fact.
    A key :func:`key_apart` gave is no such word (two claims kept apart from a third are
    not thereby apart from each other). A key derived from a claim marked whole is read
    without the tags too: derived with them (``ds4-internal-the-vault-host``), it was
    another key than the fact's, and ``--key vault-host`` contradicting that claim was
    accepted where the same claim unmarked refused it (replay's keys are unchanged)."""
    mine = one.item.key if isinstance(one.item, MemoryItem) and not is_auto_key(
        one.item) else None
    if not mine:
        return False
    theirs = {other.key}
    if isinstance(other.item, MemoryItem) and not other.item.key:
        from waymarks.core.privacy import has_markers, strip_markers

        if has_markers(other.item.claim):
            theirs.add(derive_key_normalized(normalize(strip_markers(other.item.claim))))
    return all(key is None or loose_key(mine) != loose_key(key) for key in theirs)


def is_auto_key(item: MemoryItem) -> bool:
    """Whether ``item``'s explicit key is the one :func:`key_apart` gives (the slug of its
    whole claim), rather than a key a person or tool chose."""
    return bool(item.key) and item.key == normalize_key(normalize(item.claim))


def key_apart(view: StateView, candidate: ItemState,
              ignore: frozenset[str] = frozenset()) -> str | None:
    """An explicit key for a new claim whose *derived* key is shared only with active
    claims of its partition that state a different fact, else ``None``.

    The replay rule (:func:`find_conflicts`) refuses the later of two claims with one
    derived key: "Debug logging is enabled in staging." and "Debug logging is disabled in
    production." both key on "debug logging", and "The Redis port is 6379." restates half
    of "Redis port is 6379 and Postgres port is 5432.". When both claims have signatures
    (:mod:`waymarks.core.contradiction`) and those positively show two facts
    (:func:`~waymarks.core.contradiction.two_facts`: a value in common, other attributes,
    or subjects neither of which contains the other), the new claim is written with an explicit key
    (the slug of its whole text) instead: a field every version reads, so the live
    projection, a rebuild and older readers all replay it as active, and the replay rule
    itself stays unchanged for every record already written. ``None`` (the conflict stands)
    when the candidate has an explicit key, no signature or an unplaced negation, a polarity
    conflict, a shared key with a claim that chose it explicitly, that its signature
    does not show to be another fact, that has none or a negation its signature does not
    place (on a value or a state), or when the new key is itself taken.
    ``ignore``: the item a supersede replaces."""
    item = candidate.item
    if (candidate.kind != "memory" or candidate.key is None or not isinstance(item, MemoryItem)
            or item.key):
        return None
    from waymarks.core.claim_descriptions import descriptions
    from waymarks.core.contradiction import signature, two_facts, unplaced_negation

    mine = signature(candidate.text)
    if mine is not None and unplaced_negation(candidate.text, mine):
        return None
    tied = False
    for other in _matching(view, candidate):
        if other.id in ignore or other.id == candidate.id or other.norm == candidate.norm:
            continue
        if _contradicts_by_rule(replace(candidate, key=None), other, ignore):
            return None  # opposite polarity: a conflict whatever the key
        if other.key != candidate.key:
            continue
        if isinstance(other.item, MemoryItem) and other.item.key and not is_auto_key(
                other.item):
            return None  # a key a person or tool chose for that fact: it holds
        if things_done(candidate, mine, other):
            tied = True
            continue
        theirs = signature(other.text)
        if theirs is not None and unplaced_negation(other.text, theirs):
            return None
        if (mine is None or theirs is None) and descriptions(candidate.norm, other.norm):
            tied = True  # (what each says someone is doing or is: "Jon is starting …")
            continue
        if mine is None or theirs is None or not two_facts(mine, theirs):
            return None
        tied = True
    key = normalize_key(candidate.norm)
    if not tied or not key or key == candidate.key:
        return None
    taken = view.active_matching("memory", candidate.partition, candidate.norm, key, None)
    return None if any(other.key == key for other in taken) else key


def _contradicts_by_rule(candidate: ItemState, other: ItemState, ignore: frozenset[str]) -> bool:
    if other.id in ignore or other.id == candidate.id or other.norm == candidate.norm:
        return False
    same_key = candidate.key is not None and other.key == candidate.key
    return same_key or _opposite(candidate, other)


def _opposite(candidate: ItemState, other: ItemState) -> bool:
    """The two claims hold one polarity base with opposite signs."""
    return (candidate.polarity_base is not None
            and other.polarity_base == candidate.polarity_base
            and other.polarity_sign == -candidate.polarity_sign)


def apply_mutation(view: StateView, record: MutationRecord, seq: int, *,
                   rivals: bool = True) -> MutationEffect:
    """Fold one mutation into ``view``; the caller persists the returned changes.
    ``rivals=False`` (the team fold, which reports a reused ID and plans neither item):
    a project item holding the ID is never taken for another's (:func:`_taken`)."""
    mutation = record.mutation
    kind = mutation_kind(mutation)
    if mutation.operation == "status":
        return _apply_status(view, record, kind)
    item = mutation.item
    if item is None:
        return Ignored(f"{mutation.operation} without an item")
    existing = view.get(item.id)
    while existing is not None and existing.session_id != record.session_id and (
            _taken(existing, item, kind, rivals)):
        # another session's own item holds the ID: this one is a copy of its own (a
        # forked session's items), and so is a project item whose ID a session of
        # another, untrusted project took first (item IDs are one namespace for the
        # home: that session's earlier item made the project's pin "already exist",
        # and it vanished). Copy IDs can be worked out, so one may be taken too: the
        # copy's copy, and so on (each step needs one more item of the other session)
        item = replace(item, id=copy_id(item.id, record.session_id))
        existing = view.get(item.id)
    if existing is not None:
        return Ignored(f"item {item.id} already exists")
    state = new_state(item, record.session_id, record.entry_id, seq)
    previous: ItemState | None = None
    if mutation.operation == "supersede":
        previous = own_state(view, mutation.previous_id or "", record.session_id)
        problem = _supersede_problem(previous, mutation.previous_id, kind, item.scope)
        if problem is None and previous is not None and not may_change(record, previous):
            problem = f"supersedes {kind} {previous.id} of another session or project"
        if problem is not None:
            state = replace(state, status="invalid", reason=problem)
            return _put(view, state)
        assert previous is not None
        state = replace(state, supersedes=previous.id)
    conflicts = find_conflicts(view, state, frozenset({previous.id}) if previous else frozenset())
    if conflicts:
        reason = f"conflicts with active memory {conflicts[0]}"
        return _put(view, replace(state, status="invalid", reason=reason, conflicts_with=conflicts))
    if previous is None:
        return _put(view, state)
    old = replace(
        previous, status="superseded", superseded_by=state.id, reason=f"superseded by {state.id}"
    )
    return _put(view, state, old)


def _taken(existing: ItemState, item: PinItem | MemoryItem, kind: Kind,
           rivals: bool = True) -> bool:
    """Whether another session's ``existing`` item holds the ID of ``item`` as an item of
    its own, so that ``item`` is kept as its session's copy: a session or branch item
    (the fork's case, or one of another kind), or a project item other than ``item``
    (another kind, scope, project, or other words). A project item of another project
    (an untrusted one's, dated earlier) made this project's pin "already exist", and it
    vanished; a sibling session dated earlier, holding a project pin under a confirmed
    pin's ID with other words, replaced the confirmed words under that ID. Only the same
    project item (a forked session's copy of its entries) already exists."""
    if existing.item.scope != "project":
        return True  # (another kind under the ID made a session pin "already exist")
    return rivals and (existing.kind != kind or item.scope != "project"
            or existing.item.project_path != item.project_path
            or existing.text != item_text(item))


def _apply_status(view: StateView, record: MutationRecord, kind: Kind) -> MutationEffect:
    mutation = record.mutation
    target_id = status_target(mutation)
    allowed = PIN_STATUS_TARGETS if kind == "pin" else MEMORY_STATUS_TARGETS
    if mutation.status not in allowed:
        return Ignored(f"status {mutation.status!r} is not allowed for a {kind}")
    target = own_state(view, target_id or "", record.session_id)
    if target is None or target.kind != kind:
        return Ignored(f"no {kind} {target_id}")
    if not may_change(record, target):
        return Ignored(f"{kind} {target_id} belongs to another session or project")
    if target.status != "active":
        return Ignored(f"{kind} {target_id} is already {target.status}")
    return _put(view, replace(target, status=mutation.status, reason=mutation.reason))


def copy_id(item_id: str, session_id: str) -> str:
    """The ID of session ``session_id``'s copy of another session's session or branch item
    ``item_id``: a session Pi forked holds the original's entries as they were, so both
    sessions say one item ID, and each holds its own item (seed 000: a session item is
    available throughout its session's tree, and only there). UUID-shaped, as every item
    ID a tool may name is, and the same on every replay."""
    digest = blake2b(f"{session_id}\0{item_id}".encode(), digest_size=16).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:]}"


def own_state(view: StateView, item_id: str, session_id: str) -> ItemState | None:
    """The item ``item_id`` names for session ``session_id``: its own copy
    (:func:`copy_id`) when the ID is another session's item and the session holds a copy
    of it (the ID it wrote, kept as its copy: :func:`_taken`), else the item of that ID,
    if any."""
    first = state = view.get(item_id)
    while state is not None and state.session_id != session_id:
        item_id = copy_id(item_id, session_id)  # its copy's copy, if that was taken too
        state = view.get(item_id)
    return state or first


def may_change(record: MutationRecord, target: ItemState) -> bool:
    """Whether the session that wrote ``record`` may change ``target``: its own session
    and branch items, and project items of its own project. (A record of unknown project,
    built by hand rather than read from a ledger, is not restricted; one read from the
    ledger of a session of no project holds ``""``, which names none.)"""
    if target.item.scope == "project":
        return record.project is None or record.project == target.item.project_path
    return record.session_id == target.session_id


def _supersede_problem(
    previous: ItemState | None, previous_id: str | None, kind: Kind, scope: str
) -> str | None:
    if previous is None or previous.kind != kind:
        return f"supersedes unknown {kind} {previous_id}"
    if previous.status != "active":
        return f"supersedes {kind} {previous.id}, which is already {previous.status}"
    if (previous.item.scope == "project") != (scope == "project"):
        # no write makes one (a replacement keeps the scope: ``scope_mismatch``); from a
        # ledger it moved a project item out of the project (from an excluded session, or
        # a misplaced file, whose project mutations are held back, too)
        return (f"supersedes {previous.item.scope} {kind} {previous.id} with a {scope} "
                f"{kind}: a replacement of a project item stays in the project")
    return None


def _matching(view: StateView, candidate: ItemState) -> Sequence[ItemState]:
    return view.active_matching(
        candidate.kind, candidate.partition, candidate.norm, candidate.key, candidate.polarity_base
    )


def _put(view: StateView, *states: ItemState) -> Applied:
    for state in states:
        view.put(state)
    return Applied(states)
