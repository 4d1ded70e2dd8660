"""Team memory entries: the wire format, the per-contributor hash chain, and the fold.

A repository's team ledger is a directory of JSON Lines files, one per contributor
(``<contributor>.jsonl``), each appended to only by its owner. One line is one entry:

    {"at": ms, "author": "Alice", "contributor": "alice-1a2b3c4d",
     "format": "waymarks-team-v1", "hash": hex, "id": entry-id, "kind": "pin"|"memory",
     "op": "add"|"supersede"|"status", "prev": hex, "seq": n, ...}

with ``item`` (``{"id", "text", "key"?, "classification"?}``) on ``add`` and
``supersede``, ``previousId`` on ``supersede``, ``targetId``, ``status`` and ``reason``
on ``status``.

What must stay true:

- **The chain.** ``seq`` counts from 1 without gaps; ``prev`` is the previous line's
  ``hash`` (the first line's is :func:`genesis` of the contributor); ``hash`` is the
  SHA-256 of the line's canonical JSON without ``hash`` (keys sorted, compact, UTF-8;
  checked on the line's own bytes, :func:`line_hash`), and the line is that canonical
  JSON with ``hash`` (:func:`is_canonical`: no key twice, no other spelling).
  A line that breaks any of this breaks the file: :func:`verify_line` names the line and
  why, never its content. Anyone can recompute a chain, so it proves order and
  completeness against an earlier reading (an anchor: the hash at a known ``seq``), not
  authorship.
- **The fold is DS4's.** Entries become :class:`MutationRecord` s of one project-scoped
  partition (:data:`TEAM_PROJECT`, the same on every clone whatever its path) whose
  session is ``team:<contributor>``, and :func:`waymarks.core.replay.replay` folds them:
  sorted by (time, contributor, seq, ...), a later claim whose key conflicts with an
  active one is invalid. Any clone holding the same entries reaches the same state,
  whatever order ``git pull`` brought them in.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

import msgspec

from waymarks.core.model import (
    CLASSIFICATIONS,
    SCHEMA_VERSION,
    MemoryItem,
    MemoryMutation,
    MutationRecord,
    PinItem,
    PinMutation,
    status_target,
)
from waymarks.core.privacy import has_markers
from waymarks.core.replay import MemoryView
from waymarks.core.rules import ItemState, apply_mutation, find_contradictions

TEAM_FORMAT: Final = "waymarks-team-v1"
#: the project path every team item carries: one partition, equal on every clone
TEAM_PROJECT: Final = "team"
SESSION_PREFIX: Final = "team:"
#: a contributor ID: what its file is named (lower-case letters, digits, dashes)
CONTRIBUTOR_RE: Final = re.compile(r"^[a-z0-9][a-z0-9-]{2,62}$")
_HEX64: Final = re.compile(r"^[0-9a-f]{64}$")
_STATUSES: Final = {"pin": frozenset({"deleted"}),
                    "memory": frozenset({"invalid", "expired"})}
Op = Literal["add", "supersede", "status"]


class TeamFormatError(ValueError):
    """A line that is not a well-formed team entry (the message names no content)."""


def genesis(contributor: str) -> str:
    """The ``prev`` of a contributor's first line: binds the chain to its file's owner."""
    return hashlib.sha256(f"{TEAM_FORMAT}\0{contributor}".encode()).hexdigest()


def canonical(body: dict[str, Any]) -> bytes:
    """The bytes a line's hash covers, and how a line is written (plus ``hash``)."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def entry_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(canonical({k: v for k, v in body.items() if k != "hash"})
                          ).hexdigest()


class TeamEntry(msgspec.Struct, frozen=True):
    """One verified line of a contributor's file."""

    contributor: str
    seq: int
    id: str
    at: int
    author: str
    op: Op
    kind: Literal["pin", "memory"]
    prev: str
    hash: str
    item_id: str | None = None
    text: str | None = None
    key: str | None = None
    classification: str | None = None
    previous_id: str | None = None
    target_id: str | None = None
    status: str | None = None
    reason: str | None = None
    #: a removal :func:`removal_of` made of another entry (not a line of the file)
    derived: bool = False


def make_line(*, contributor: str, seq: int, prev: str, entry_id: str, at: int,
              author: str, op: Op, kind: Literal["pin", "memory"],
              item: dict[str, str] | None = None, previous_id: str | None = None,
              target_id: str | None = None, status: str | None = None,
              reason: str | None = None) -> tuple[bytes, str]:
    """(the line to append, newline included; its hash)."""
    body: dict[str, Any] = {"format": TEAM_FORMAT, "contributor": contributor, "seq": seq,
                            "prev": prev, "id": entry_id, "at": at, "author": author,
                            "op": op, "kind": kind}
    if item is not None:
        body["item"] = item
    for name, value in (("previousId", previous_id), ("targetId", target_id),
                        ("status", status), ("reason", reason)):
        if value is not None:
            body[name] = value
    digest = entry_hash(body)
    body["hash"] = digest
    return canonical(body) + b"\n", digest


class _Item(msgspec.Struct):
    id: str
    text: str
    key: str | None = None
    classification: str | None = None


class _Line(msgspec.Struct, rename="camel"):
    format: str
    contributor: str
    seq: int
    prev: str
    hash: str
    id: str
    at: int
    author: str
    op: str
    kind: str
    item: _Item | None = None
    previous_id: str | None = None
    target_id: str | None = None
    status: str | None = None
    reason: str | None = None


_DECODER: Final = msgspec.json.Decoder(_Line)
#: how git's conflict markers begin a line (no entry does: each begins ``{``)
_MARKERS: Final = (b"<<<<<<< ", b"=======", b">>>>>>> ", b"||||||| ")
#: the last millisecond of the year 9999, the latest ``at`` a line may hold (a date shows)
LAST_AT: Final = 253_402_300_799_999
_HASH_FIELD: Final = b'"hash":"'
_HASH_SPAN: Final = len(_HASH_FIELD) + 64 + 2  # "hash":"<64 hex>",


def line_hash(line: bytes) -> str | None:
    """The SHA-256 a line's bytes (without newline) commit to: the line with its
    ``"hash":"…",`` field taken out, which for a line :func:`make_line` wrote is exactly
    the canonical JSON of its body without ``hash`` (keys sorted: ``id`` always follows
    ``hash``). ``None`` when the line has no such field. (A quote inside a JSON string is
    always escaped, so the field's bytes cannot occur inside a value.)"""
    start = line.find(_HASH_FIELD)
    if start < 0 or line[start + _HASH_SPAN - 2:start + _HASH_SPAN] != b'",':
        return None
    return hashlib.sha256(line[:start] + line[start + _HASH_SPAN:]).hexdigest()


def parse_line(line: bytes) -> TeamEntry:
    """Decode one line (structure only; the chain is :func:`verify_line`'s)."""
    if line.startswith(_MARKERS):
        # git's own, from a merge without the ledger's merge=binary, committed unresolved:
        # "not an entry" sent the person looking for an attacker
        raise TeamFormatError("a merge conflict's marker, committed unresolved: keep one "
                              "side's file and redo the other's entries (docs/team.md: "
                              "Team memory)")
    try:
        raw = _DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        # RecursionError: msgspec has no depth limit of its own; a line nested a thousand
        # deep is as malformed as one that does not parse (the file is marked tampered)
        raise TeamFormatError(f"not a {TEAM_FORMAT} entry") from None
    if raw.format != TEAM_FORMAT:
        raise TeamFormatError(f"not a {TEAM_FORMAT} entry")
    if raw.seq < 1 or not raw.contributor or not raw.id or not raw.author:
        raise TeamFormatError("seq, contributor, id or author is missing")
    if not 0 <= raw.at <= LAST_AT:  # (the fold orders by it: dated 31,000 years back, a
        # claim came first for ever, and one dated past 9999 made every supersede of it
        # carry a number a JavaScript reader rounds)
        raise TeamFormatError("at is no time (milliseconds since 1970, before the year "
                              "10000)")
    if raw.op not in ("add", "supersede", "status") or raw.kind not in ("pin", "memory"):
        raise TeamFormatError("unknown op or kind")
    if not (_HEX64.fullmatch(raw.prev) and _HEX64.fullmatch(raw.hash)):
        raise TeamFormatError("prev or hash is not a SHA-256")
    op: Any = raw.op
    kind: Any = raw.kind
    if raw.op == "status":
        if raw.status not in _STATUSES[raw.kind] or not raw.target_id:
            raise TeamFormatError(f"a status entry needs a target and a {raw.kind} status")
        return TeamEntry(raw.contributor, raw.seq, raw.id, raw.at, raw.author, op, kind,
                         raw.prev, raw.hash, target_id=raw.target_id, status=raw.status,
                         reason=raw.reason)
    item = raw.item
    if item is None or not item.id or not item.text:
        raise TeamFormatError("item missing")
    if item.classification is not None and item.classification not in CLASSIFICATIONS:
        raise TeamFormatError("unknown classification")
    if raw.op == "supersede" and not raw.previous_id:
        raise TeamFormatError("a supersede entry needs previousId")
    if raw.kind == "memory" and item.key is not None and has_markers(item.key):
        # a share never writes one (a local key refuses markers); slugged for the plan,
        # its marker no longer read as one, and the withheld text went out
        raise TeamFormatError("a key holds privacy markers")
    return TeamEntry(raw.contributor, raw.seq, raw.id, raw.at, raw.author, op, kind,
                     raw.prev, raw.hash, item_id=item.id, text=item.text,
                     key=item.key if raw.kind == "memory" else None,
                     classification=item.classification,
                     previous_id=raw.previous_id if raw.op == "supersede" else None)


def verify_line(line: bytes, contributor: str, seq: int, prev: str) -> TeamEntry:
    """The entry on ``line`` if it is the ``seq``-th of ``contributor``'s chain after
    ``prev``; else :class:`TeamFormatError` saying which rule it breaks."""
    entry = parse_line(line)
    if entry.contributor != contributor:
        raise TeamFormatError("written by another contributor than the file's")
    if entry.seq != seq:
        raise TeamFormatError(f"sequence {entry.seq} where {seq} was expected")
    if entry.prev != prev:
        raise TeamFormatError("does not follow the line before it")
    if line_hash(line) != entry.hash:
        raise TeamFormatError("its hash does not match its content")
    if not is_canonical(line):
        raise TeamFormatError("not in canonical form (keys sorted, compact, none repeated)")
    return entry


def is_canonical(line: bytes) -> bool:
    """Whether ``line`` is exactly the canonical JSON of what it decodes to, as
    :func:`make_line` writes it. The hash covers the line's bytes, which a line with a
    key given twice (``"text":"A","text":"B"``) also hashes right: the decoders keep the
    last, a reader of the file or its diff sees the first."""
    try:
        body = msgspec.json.decode(line)
        # msgspec's sorted encoding is canonical()'s bytes (every code point, integers,
        # literals), at a third of the cost; canonical() itself settles any difference
        return isinstance(body, dict) and (
            msgspec.json.encode(body, order="sorted") == line or canonical(body) == line)
    except (msgspec.DecodeError, msgspec.EncodeError, UnicodeEncodeError, RecursionError):
        return False


def removal_of(entry: TeamEntry) -> TeamEntry | None:
    """What ``entry`` takes out of the fold, as a status entry: itself for a status, the
    item it replaces for a supersede (deleted, or expired for a claim; its new text is not
    kept), ``None`` for an add. A contributor whose items are withdrawn keeps these in the
    fold: they can only take items out of plans, and an unshared item must not come back
    because the file that unshared it broke."""
    if entry.op == "status":
        return entry
    if entry.op != "supersede" or not entry.previous_id:
        return None
    return TeamEntry(entry.contributor, entry.seq, entry.id, entry.at, entry.author,
                     "status", entry.kind, entry.prev, entry.hash,
                     target_id=entry.previous_id, status=_REMOVED[entry.kind],
                     reason=f"replaced by {entry.item_id}", derived=True)


_REMOVED: Final = {"pin": "deleted", "memory": "expired"}


def removal_row(entry: TeamEntry) -> list[Any]:
    """A removal as the anchors keep it (see :func:`removal_from_row`)."""
    return [entry.id, entry.seq, entry.at, entry.kind, entry.target_id, entry.status,
            entry.reason]


def removal_from_row(contributor: str, row: object) -> TeamEntry | None:
    """The removal a row of :func:`removal_row` stands for; ``None`` for a damaged row."""
    if not isinstance(row, list) or len(row) != 7:
        return None
    entry_id, seq, at, kind, target, status, reason = row
    if not (isinstance(entry_id, str) and entry_id and isinstance(seq, int)
            and isinstance(at, int) and kind in _STATUSES and isinstance(target, str)
            and target and status in _STATUSES[kind]
            and (reason is None or isinstance(reason, str))):
        return None
    return TeamEntry(contributor, seq, entry_id, at, "", "status", kind, "", "",
                     target_id=target, status=status, reason=reason, derived=True)


def session_of(contributor: str) -> str:
    return SESSION_PREFIX + contributor


def record_of(entry: TeamEntry) -> MutationRecord:
    """The DS4 mutation record an entry stands for (see the module docstring)."""
    level: Any = entry.classification
    common: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "mutation_id": entry.id,
                              "created_at": entry.at, "operation": entry.op}
    mutation: PinMutation | MemoryMutation
    if entry.kind == "pin":
        pin = None if entry.op == "status" else PinItem(
            id=entry.item_id or "", scope="project", content=entry.text or "",
            created_at=entry.at, project_path=TEAM_PROJECT, classification=level)
        mutation = PinMutation(**common, item=pin, previous_id=entry.previous_id,
                               pin_id=entry.target_id, status=entry.status,  # type: ignore[arg-type]
                               reason=entry.reason)
    else:
        memory = None if entry.op == "status" else MemoryItem(
            id=entry.item_id or "", scope="project", claim=entry.text or "",
            created_at=entry.at, source_entry_ids=(), project_path=TEAM_PROJECT,
            key=entry.key, classification=level)
        mutation = MemoryMutation(**common, item=memory, previous_id=entry.previous_id,
                                  memory_id=entry.target_id, status=entry.status,  # type: ignore[arg-type]
                                  reason=entry.reason)
    return MutationRecord(session_id=session_of(entry.contributor), entry_id=entry.id,
                          entry_index=entry.seq, timestamp_ms=entry.at, mutation=mutation,
                          project=TEAM_PROJECT)


class _View(MemoryView):
    """A :class:`MemoryView` that can also forget an item (to undo an add)."""

    def restore(self, item_id: str, state: ItemState | None) -> None:
        if state is not None:
            self.put(state)
            return
        previous = self.items.pop(item_id, None)
        if previous is not None and previous.status == "active":
            self._unindex(previous)


Order = tuple[int, str, int, str, str]


class _Applied(msgspec.Struct, frozen=True):
    record: MutationRecord
    entry: TeamEntry
    prior: tuple[tuple[str, ItemState | None], ...]  # what it changed, as it was before
    owns: bool  # it is the entry :attr:`TeamFold.entries` names for its item
    lost: bool = False  # an unshare of an item already replaced (:func:`lost_withdrawals`)


class TeamFold:
    """The DS4 fold of the entries of the contributors that count, kept incrementally.

    Entries that sort after everything applied are applied in place. Entries that sort
    earlier (a pull brought a teammate's older work) rewind: the records after the first
    new one are undone, newest first (each remembers the states it changed), and applied
    again merged with the new ones, so the cost is what follows the insertion point, not
    the ledger. Either way the state, sequence numbers included, equals
    :func:`waymarks.core.replay.replay` of the same entries."""

    def __init__(self) -> None:
        self.view = _View()
        self.entries: dict[str, TeamEntry] = {}  # item ID -> the entry that wrote it
        self._applied: list[_Applied] = []
        self._orders: list[Order] = []
        self.refolds = 0  # full refolds (the caller's: a contributor withdrawn or back)
        self.rewound = 0  # records undone and applied again
        #: :func:`held_back`'s answer and the fold state it is for
        self._held: tuple[tuple[Any, ...], tuple[Conflict, ...]] | None = None
        #: the item IDs each apply or rewind touched, in order: what changed since a
        #: reader's mark (:meth:`changed_since`), so it works on those alone
        self._changed: list[str] = []
        #: where each rewind began (a position in fold order): what was folded before it
        #: stands (:meth:`cuts_since`)
        self._cuts: list[int] = []

    def add(self, entries: Sequence[TeamEntry]) -> None:
        new = sorted(((record_of(e), e) for e in entries), key=lambda p: p[0].order)
        if not new:
            return
        cut = bisect_right(self._orders, new[0][0].order)
        tail = self._applied[cut:]
        for applied in reversed(tail):
            for item_id, state in reversed(applied.prior):
                self.view.restore(item_id, state)
                self._changed.append(item_id)
            if applied.owns and applied.entry.item_id is not None:
                del self.entries[applied.entry.item_id]
        del self._applied[cut:]
        del self._orders[cut:]
        self.rewound += len(tail)
        if tail:
            self._cuts.append(cut)
        again = [(a.record, a.entry) for a in tail]
        for record, entry in heapq.merge(again, new, key=lambda p: p[0].order):
            self._apply(record, entry)

    def _apply(self, record: MutationRecord, entry: TeamEntry) -> None:
        mutation = record.mutation
        touched = dict.fromkeys(i for i in (
            mutation.item.id if mutation.item is not None else None, mutation.previous_id,
            status_target(mutation)) if i is not None)
        prior = tuple((i, self.view.get(i)) for i in touched)
        self._changed.extend(touched)
        target = self.view.get(entry.target_id or "") if entry.op == "status" and \
            not entry.derived else None
        lost = target is not None and target.kind == entry.kind and \
            target.status == "superseded"
        # a reused ID is the fold's to report (duplicates), neither item planted: never
        # kept apart as a local session's rival project item is
        apply_mutation(self.view, record, len(self._applied) + 1, rivals=False)
        owns = entry.item_id is not None and entry.item_id not in self.entries
        if owns:
            self.entries[entry.item_id or ""] = entry
        self._applied.append(_Applied(record, entry, prior, owns, lost))
        self._orders.append(record.order)

    def change_mark(self) -> int:
        """Where :meth:`changed_since` starts from now."""
        return len(self._changed)

    def cuts_since(self, mark: int) -> tuple[int, int | None]:
        """(the mark to ask from next, the earliest position a rewind since ``mark``
        began at: ``None`` when none did)."""
        return len(self._cuts), min(self._cuts[mark:], default=None)

    def changed_since(self, mark: int) -> list[str]:
        """The IDs of the items changed since ``mark`` (once each, in no set order)."""
        return list(dict.fromkeys(self._changed[mark:]))

    @classmethod
    def of(cls, entries: Iterable[TeamEntry]) -> TeamFold:
        fold = cls()
        fold.add(list(entries))
        return fold

    def applied_entries(self) -> list[TeamEntry]:
        """The entries folded, in fold order (removals included)."""
        return [applied.entry for applied in self._applied]

    def applied_entries_from(self, start: int) -> list[TeamEntry]:
        """The entries folded from position ``start`` on, in fold order."""
        return [applied.entry for applied in self._applied[start:]]

    def states(self) -> list[ItemState]:
        """Every item, in replay order."""
        return sorted(self.view.items.values(), key=lambda s: s.seq)

    def duplicates(self) -> dict[str, tuple[str, ...]]:
        """Item IDs written by more than one entry -> the contributors who wrote them (one,
        when a file writes an ID twice: no share does, IDs are random). The fold keeps an
        ID's first writer and ignores the rest, so a teammate reusing another's ID with an
        earlier time would otherwise take that item over unseen, and a second add in one
        file, the text a reviewer of the diff reads, had no effect unseen."""
        found: dict[str, set[str]] = {}
        for applied in self._applied:
            item_id = applied.entry.item_id
            if item_id is None or applied.owns:
                continue
            owner = self.entries[item_id].contributor
            found.setdefault(item_id, {owner}).add(applied.entry.contributor)
        return {i: tuple(sorted(c)) for i, c in sorted(found.items())}


class Conflict(msgspec.Struct, frozen=True):
    """A claim the fold invalidated because an earlier active claim holds its key (or,
    from :func:`held_back`, an active claim held back because an earlier one says
    otherwise)."""

    loser: ItemState
    winners: tuple[ItemState, ...]


def open_conflicts(fold: TeamFold) -> list[Conflict]:
    """Invalidated claims whose conflicting claims are still active: nobody has resolved
    them yet (superseding the active claim resolves one). A supersede that lost a race
    (two teammates replaced one item before either pulled: the later one in replay order
    found it already superseded) is one too, against what replaced the item: it was
    invalid, and nobody was told."""
    found: list[Conflict] = []
    for state in fold.states():
        if state.status != "invalid":
            continue
        if state.conflicts_with:
            winners = tuple(w for w in (fold.view.get(i) for i in state.conflicts_with)
                            if w is not None and w.status == "active")
        else:
            winners = _superseded_first(fold, state)
        if winners:
            found.append(Conflict(state, winners))
    return found


def claim_hits(fold: TeamFold, state: ItemState) -> tuple[str, ...]:
    """The active claims of ``fold`` that ``state`` (an active claim) contradicts by a
    local write's rules, earlier or later: what :func:`held_back` weighs it by."""
    return find_contradictions(fold.view, state, (state.partition,), frozenset({state.id}))


def held_back(fold: TeamFold, known: Sequence[Conflict] | None = None,
              hits: Mapping[str, Sequence[str]] | None = None) -> list[Conflict]:
    """Active claims that contradict an earlier active claim by the rules a local write
    is refused by (:func:`~waymarks.core.rules.find_contradictions`: "runs 3 replicas" /
    "runs 5 replicas", no key in common), which the fold's replay rule does not apply:
    two teammates who shared them before either pulled both kept them active. The later
    in replay order is held back (not planned) until someone settles it, the same on
    every clone; a claim held back keeps nothing else back. ``known``: the answer for
    these very entries, kept by an earlier process (its check signs every claim);
    ``hits``: :func:`claim_hits` of every active claim, as found already."""
    # kept per fold state: every plan asks (a warm helper's fold stays the same between
    # pulls), and the walk runs a write's contradiction check per active claim
    if held_known(fold):
        return list(fold._held[1])  # type: ignore[index]
    found: list[Conflict] = list(known or ())
    held: set[str] = set()
    for state in fold.states() if known is None else ():
        if state.kind != "memory" or state.status != "active":
            continue
        said = claim_hits(fold, state) if hits is None else hits[state.id]
        found_states = (h for h in (fold.view.get(i) for i in said) if h is not None)
        earlier = tuple(h for h in sorted(found_states, key=lambda h: (h.seq, h.id))
                        if h.seq < state.seq and h.id not in held)
        if earlier:
            held.add(state.id)
            found.append(Conflict(state, earlier))
    fold._held = (held_version(fold), tuple(found))
    return found


def held_known(fold: TeamFold) -> bool:
    """Whether :func:`held_back` has its answer for ``fold`` as it is now, in memory."""
    return fold._held is not None and fold._held[0] == held_version(fold)


def held_version(fold: TeamFold) -> tuple[Any, ...]:
    """The fold's state as what it holds back depends on it: equal only while nothing
    was folded in, rewound or refolded since."""
    return (len(fold._applied), fold._orders[-1] if fold._orders else None, fold.refolds,
            fold.rewound)


def _superseded_first(fold: TeamFold, lost: ItemState) -> tuple[ItemState, ...]:
    """The active item that replaced what ``lost`` tried to supersede, if any."""
    entry = fold.entries.get(lost.id)
    if entry is None or entry.op != "supersede" or not entry.previous_id:
        return ()
    winner = _replacement_at(fold, entry.previous_id, lost.seq)
    return (winner,) if winner is not None and winner.id != lost.id else ()


def _replacement_at(fold: TeamFold, item_id: str, position: int) -> ItemState | None:
    """The item that had replaced ``item_id`` by replay position ``position`` (a chain of
    replacements followed), if it is still active. One replaced or withdrawn after that
    position settles what lost there, as superseding the kept claim settles a key
    conflict (walking on to the newest text listed a lost race against every later
    replacement, so the supersede `team status` named never settled it)."""
    target = fold.view.get(item_id)
    seen: set[str] = set()
    while target is not None and target.status == "superseded" and target.superseded_by \
            and target.id not in seen:
        seen.add(target.id)
        following = fold.view.get(target.superseded_by)
        if following is not None and following.seq > position:
            return None  # replaced after it: someone chose
        target = following
    if target is None or target.status != "active" or not seen:
        return None
    return target


class LostWithdrawal(msgspec.Struct, frozen=True):
    """An unshare of an item a teammate had replaced first, neither having pulled: the
    fold ignores it (the item is no longer active), and the replacement is planned."""

    entry: TeamEntry  # the unshare
    winner: ItemState  # the replacement that stands in the withdrawn item's place


def lost_withdrawals(fold: TeamFold) -> list[LostWithdrawal]:
    """Unshares that lost such a race and that nobody has settled (by withdrawing the
    replacement, or replacing it after the unshare: its own text says it is right). An
    unshare reported committed was otherwise undone by the merge, and nobody was told."""
    found = []
    for position, applied in enumerate(fold._applied, 1):
        if applied.lost and applied.entry.target_id:
            winner = _replacement_at(fold, applied.entry.target_id, position)
            if winner is not None:
                found.append(LostWithdrawal(applied.entry, winner))
    return found
