"""Team memory, write side: ``share``, ``unshare``, ``supersede`` (``init`` is in
:mod:`waymarks.service.team_init`).

Each write appends one entry to this person's own contributor file (never another's),
through :func:`waymarks.ledger.team.append_entry`. Before anything is appended:

- the project must be trusted (the team ledger is project memory) and initialized;
- the text must pass :func:`waymarks.core.team_sharing.share_problem` for the ``team`` egress
  (only normal and internal, narrowed further by a ``[privacy] remoteProviders.team``
  entry; no markers, no credentials) — checked on every share and supersede;
- a share must not repeat an active team item, and a claim must not contradict an active
  team claim of the same key (supersede that one instead); merges that bring such
  conflicts anyway are resolved by the fold, and listed by ``team status``. These checks
  run again under the append's lock, where a second terminal's write is seen.

Confirmation is the adapter's: the command asks the person (or takes ``--yes``), after a
rehearsal of the write (``Waymarks.rehearsing``: every check, nothing appended).
Refusals are :class:`TeamRefused` with a code and a message that names the fix and
never the stored text.

The contributor ID is made once per home (``<home>/team/contributor.json``): the slug of
``git config user.name`` and 8 random hex digits, so two machines of one person never
append to one file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import msgspec

from waymarks.core.decisions import Rejected, clean_reason, clean_text, parse_classification
from waymarks.core.egress import Egress
from waymarks.core.model import MAX_CLAIM_CHARS, MAX_PIN_CHARS
from waymarks.core.privacy import TEAM_PROVIDER, level_rank
from waymarks.core.rules import ItemState, find_contradictions, new_state
from waymarks.core.team import LAST_AT, TeamEntry, genesis, make_line, record_of
from waymarks.core.team_sharing import TEAM_LEVELS, share_problem
from waymarks.core.text import (
    Naming,
    echoed,
    escaped,
    ids_named,
    normalize,
    shell_command,
    unknown_id,
)
from waymarks.ledger.session_file import create_atomically
from waymarks.ledger.team import (
    SUFFIX,
    TeamAppendError,
    TeamDirectoryLinked,
    TeamLineTooLong,
    append_entry,
    appendable,
    refuse_too_long,
)
from waymarks.service import team_excluded, team_git
from waymarks.service.outcomes import Rehearsed, ServiceError
from waymarks.service.ports import epoch_ms
from waymarks.service.team import (
    AVAILABLE,
    TeamState,
    note_own,
    refresh,
    seen_before,
    team_dir,
)
from waymarks.service.team_identity import contributor_path, damaged_contributor, stored_id
from waymarks.service.team_notes import write_notes
from waymarks.service.team_views import accept_remedy, suggested, unmerged_json
from waymarks.service.views import ItemView

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

class TeamRefused(ServiceError):
    """A team write that was refused before anything was appended (``conflicts``: the
    team items a refused claim contradicts, as a local write's refusal lists them)."""

    def __init__(self, code: str, message: str, *, conflicts: Sequence[str] = ()) -> None:
        super().__init__(code, message)
        self.conflicts = tuple(conflicts)


class TeamNotApplied(ServiceError):
    """An entry that was appended but that the fold did not apply (checked after every
    unshare and supersede: success is reported only once the team state shows it)."""


class TeamWrite(msgspec.Struct, frozen=True):
    outcome: Literal["committed", "duplicate"]
    id: str
    kind: str
    contributor: str | None  # None: a duplicate answered before this home had an ID
    seq: int | None = None
    operation: str | None = None
    previous_id: str | None = None
    notices: tuple[str, ...] = ()  # (:func:`write_notes`)

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "id": self.id, "code": None, "conflicts": [],
                "notices": list(self.notices), "kind": self.kind,
                "contributor": self.contributor,
                "seq": self.seq, "operation": self.operation, "previousId": self.previous_id}


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")[:40].strip("-")
    return slug if len(slug) >= 2 else "contributor"


def contributor(app: Waymarks, *, create: bool = False) -> str | None:
    """This home's stable contributor ID (made on first use when ``create``, only while
    its file is absent: a damaged one is refused, ``contributor_damaged``, never replaced;
    see :mod:`waymarks.service.team_identity`)."""
    path = contributor_path(app)
    found = stored_id(path)
    if found is not None or not create:
        return found
    _refuse_damaged_contributor(app)
    made = _future_id(app, app.ids.uuid().replace("-", "")[:8])
    try:  # created only if absent: two first shares at once must agree on one ID
        create_atomically(path, (json.dumps({"id": made}) + "\n").encode())
    except FileExistsError:
        found = stored_id(path)  # the concurrent creator's
        if found is None:
            _refuse_damaged_contributor(app)
            raise TeamRefused("contributor_damaged", f"{path} appeared while this home's "
                              "contributor ID was being made; retry") from None
        return found
    return made


def _future_id(app: Waymarks, suffix: str = "0" * 8) -> str:
    """The contributor ID :func:`contributor` makes with ``suffix`` (eight characters of
    a new UUID; a rehearsal's stand-in has the same length, so the line it makes has the
    length of the one the write would make)."""
    return f"{_slug(_user_name(app) or '')}-{suffix}"


def _refuse_damaged_contributor(app: Waymarks) -> None:
    problem = damaged_contributor(app)
    if problem is not None:
        raise TeamRefused("contributor_damaged", f"{problem}, then retry. Nothing was "
                          "written")


def refuse_linked(directory: Path) -> None:
    try:
        appendable(directory, None)
    except TeamAppendError as problem:
        raise _unappendable(problem) from None


def team_egress(app: Waymarks) -> Egress:
    """The egress for the team ledger: normal and internal at most (issue 22's default,
    although ``remoteDefaultAllowed`` is ``normal``: the team is the project's own people,
    not a model provider), narrowed by a ``remoteProviders.team`` entry; always redacting."""
    policy = app.settings().policy
    allowed = TEAM_LEVELS
    if TEAM_PROVIDER in policy.remote_providers:
        allowed = allowed & policy.allowed(TEAM_PROVIDER)
    return Egress(TEAM_PROVIDER, frozenset(allowed), True, policy.default_classification)


def _ready(app: Waymarks) -> tuple[TeamState, str | None]:
    """The team state and this home's contributor ID (``None`` before its first write:
    made by :func:`_append`, once every other check passed, so a refused command makes
    none)."""
    if not app.project_trusted:
        raise TeamRefused("untrusted", f"{app.cwd} is not trusted, so it has no project "
                          "memory to share; trust it first (`waymarks trust .`)")
    refuse_linked(team_dir(app))  # (its files read as withdrawn, not as damaged)
    if not team_dir(app).is_dir():  # (outside git, `team init` refuses too: git first)
        refuse_without_git(app, repository=True, then=", then `waymarks team init`")
        raise TeamRefused("not_initialized", "this repository has no team ledger yet; "
                          "create it with `waymarks team init`")
    me = contributor(app)
    if me is None:  # damaged, or missing though this home wrote under an ID: refused
        _refuse_damaged_contributor(app)
    # the contributor ID is made from git's user.name, and every line's author is it
    refuse_without_git(app, repository=False)
    state = refresh(app)
    if me is not None:
        _refuse_unusable_own(state, me)
        _refuse_unmerged_own(app, me)
    return state, me


def refuse_without_git(app: Waymarks, *, repository: bool, then: str = "") -> None:
    """Refuse where git cannot be run, or refuses the checkout for its owner (another
    user's), and, if ``repository``, where there is no working tree: ``team init``, and
    every write, whose author is `git config user.name` (without git, the contributor ID
    was written in its place) and, at a home's first, its contributor ID (made without
    git, it was ``contributor-…`` for good). ``then``: the step after `git init` (a share
    before `team init` advised only `team init`, which refused)."""
    cwd = Path(app.cwd)
    if team_git.is_repository(cwd):
        return
    found = team_git.trouble(cwd)
    if found is not None:
        raise TeamRefused(found[0], f"{found[1]}, then run the command again (team "
                          "memory travels through git)")
    if repository:
        raise TeamRefused("not_a_repository", f"{app.cwd} is not inside a git repository's "
                          "working tree; team memory travels through git: run `git init` "
                          f"first{then} (or work in a clone, not a bare repository or .git)")


def _refuse_unusable_own(state: TeamState, me: str) -> None:
    """Refuse a write whose entry would be withdrawn as soon as written (and reported
    ``committed`` all the same): the own file damaged; gone though this home has seen
    entries in it (a share began a new chain, at once ``truncated``: every own item was
    withdrawn, for teammates too); or excluded here."""
    own = state.sources.get(me)
    status, detail = (own.status, own.detail) if own is not None else (AVAILABLE, None)
    seen = seen_before(state, me)
    if own is None and seen:  # (listed earlier in this process: status "missing")
        status, detail = "missing", f"this home has seen {seen} entries of it"
    if status != AVAILABLE:
        raise TeamRefused("own_file_damaged", f"your team file is {status} ({detail}); "
                          "restore it from git before writing"
                          + accept_remedy(status, me, own=True))
    if state.anchors.get(me, {}).get("excluded"):
        raise TeamRefused("own_file_excluded", "your own team file is excluded here, so "
                          "what you write would be withdrawn as soon as written; count it "
                          f"again first: `waymarks team include {me}`")


def _refuse_unmerged_own(app: Waymarks, me: str) -> None:
    """Refuse a write to the own file while a merge leaves it unmerged: appended to the
    side in place, the entry was lost to the `git checkout --ours` that keeps that side
    (the index's copy), the file then `truncated`, every own item withdrawn."""
    for held in unmerged_json(app):
        if Path(held["path"]).name == f"{me}{SUFFIX}":
            raise TeamRefused("own_file_unmerged", f"your team file {escaped(held['path'])} "
                              "is in a merge git left unresolved; finish the merge first "
                              f"(keep your side, `{held['keep']}`, `git add` it, commit the "
                              "merge, and redo what the other branch wrote to it; see "
                              "docs/team.md, Team memory), then run the command again")


def _user_name(app: Waymarks) -> str | None:
    """``git config user.name`` here; a git hanging on it is refused ``git_timeout`` (read
    as no name, a home's first write made its ID ``contributor-…`` for good)."""
    try:
        return team_git.user_name(Path(app.cwd))
    except team_git.GitTimedOut as problem:
        raise TeamRefused("git_timeout", f"{problem}, then run the command again (team "
                          "memory travels through git); nothing was written") from None


def _check(app: Waymarks, text: str, key: str | None, classification: str | None,
           item: str | None = None, among: Naming | None = None) -> None:
    """:func:`share_problem`, raised; ``item``: the team item whose ``key`` it is (the
    refusal of a key holding a credential names the command that withdraws it: it said
    `waymarks team unshare ID`, and left the person to find which)."""
    problem = share_problem(team_egress(app), text, key, classification,
                            *([suggested("unshare", item, among=among)] if item else []))
    if problem is not None:
        raise TeamRefused(*problem)


class _Shared(Exception):
    """The item is on the team ledger already (found under the append's lock)."""

    def __init__(self, held: ItemState) -> None:
        super().__init__(held.id)
        self.held = held


def _refuse(rejected: Rejected) -> NoReturn:
    """A core check's refusal (a text's limits), as a team refusal."""
    raise TeamRefused(rejected.code, rejected.message)


def _append(app: Waymarks, me: str | None, still: Callable[[TeamState], object],
            after: int | None = None, **fields: Any) -> tuple[int, str, TeamState]:
    """Append one entry to this person's file: (its seq, the contributor ID, the team
    state after it). A home without an ID yet makes it here, after every check.
    ``still`` checks the team ledger again under the file's lock, and raises if the write
    no longer holds: another process of this person (a second terminal) may have written
    between this one's checks and its append, and two shares of one item, or two
    replacements of one, both went in.

    The fold orders entries by their time: a write on an item is stamped after
    ``after`` (the time of the item's own entry, and of what it settles) even when that
    came from a clock ahead of this one, else it sorted before the item was written and
    changed nothing, on every clone."""
    now = stamp(epoch_ms(app.clock.now()), after)
    if now > LAST_AT:  # (every reader refuses the line: appended, it made the own file
        raise TeamRefused("undatable", _undatable(refresh(app), after))  # tampered)
    entry_id = app.ids.uuid().replace("-", "")

    if app.rehearsing:  # every check, as under the lock, and nothing appended
        still(refresh(app))
        # the own file's, as the append makes them (read-only, no lock), and the line it
        # would append measured (a teammate's item ID near the limit makes it too long)
        ident = me or _future_id(app)
        try:
            seq, prev = appendable(team_dir(app), me) or (1, genesis(ident))
            refuse_too_long(make_line(contributor=ident, seq=seq, prev=prev,
                                      entry_id=entry_id, at=now,
                                      author=_user_name(app) or ident, **fields)[0])
        except TeamAppendError as problem:
            raise _unappendable(problem) from None
        raise Rehearsed
    if me is None:  # checked before an ID is made for it (again under the lock)
        still(refresh(app))
        me = contributor(app, create=True)
        assert me is not None
    author = _user_name(app) or me

    def make(seq: int, prev: str) -> bytes:
        still(refresh(app))
        return make_line(contributor=me, seq=seq, prev=prev, entry_id=entry_id, at=now,
                         author=author, **fields)[0]

    try:
        entry = append_entry(team_dir(app) / f"{me}{SUFFIX}", me, make,
                             after=lambda written: note_own(app, me, written))
    except TeamAppendError as problem:
        raise _unappendable(problem) from None
    return entry.seq, me, refresh(app)


def _undatable(state: TeamState, after: int | None) -> str:
    """Why a write cannot be dated: what it replaces or settles is dated at the last time
    a team line may hold (a line of a clock gone wrong, or written by hand), or this
    machine's clock is past it."""
    writers = sorted({entry.contributor for source in state.sources.values()
                      for entry in source.entries if after is not None and entry.at >= after})
    if not writers:
        return ("this machine's clock is past the year 9999, the last time a team line may "
                "hold; set it right. Nothing was written")
    steps = " or ".join(f"`{shell_command(['waymarks', 'team', 'exclude', c])}`"
                        for c in writers)
    return ("what this write replaces or settles is dated at the end of the year 9999, the "
            "last time a team line may hold: a write after it cannot be dated, and one "
            "dated before it would change nothing. Such a date comes from a clock gone "
            f"wrong or a line written by hand: stop counting that file here ({steps}), or "
            "have its writer restore it from git. Nothing was written")


def _unappendable(problem: TeamAppendError) -> TeamRefused:
    """The refusal of a write the own file (or the team directory) cannot take."""
    code = ("too_long" if isinstance(problem, TeamLineTooLong) else "linked_team_directory"
            if isinstance(problem, TeamDirectoryLinked) else "own_file_damaged")
    return TeamRefused(code, str(problem))


def stamp(now: int, after: int | None) -> int:
    """The time a write is stamped with: ``now``, or just after ``after``."""
    return now if after is None else max(now, after + 1)


def _applied(state: TeamState, me: str, seq: int, withdrawn: str | None,
             added: str | None = None) -> None:
    """Raise :class:`TeamNotApplied` unless the fold shows the write: ``withdrawn`` (an
    unshared or replaced item) no longer active and ``added`` (a share, a replacement)
    active."""
    items = state.fold.view.items
    old = items.get(withdrawn) if withdrawn else None
    new = items.get(added) if added else None
    if (old is None or old.status != "active") and (added is None or (
            new is not None and new.status == "active")):
        return
    what = (f"team item {(withdrawn or '')[:12]} is still {old.status if old else 'absent'}"
            if old is not None and old.status == "active" else
            f"the new item {(added or '')[:12]} is {new.status if new else 'absent'}")
    raise TeamNotApplied("not_applied", f"entry {seq} was appended to .waymarks/team/"
                         f"{me}{SUFFIX}, but the team ledger does not apply it: {what}. "
                         "See `waymarks team status`")


def shareable(app: Waymarks, ref: str) -> ItemView:
    """The local item ``ref`` names, if it may be shared (else :class:`TeamRefused`):
    what a command checks before asking the person, and :func:`share` again after."""
    _ready(app)
    view = _local_item(app, ref)
    if view.scope != "project" or view.status != "active":
        raise TeamRefused("not_shareable", f"{view.kind} {view.id} is {view.scope}-scoped "
                          f"and {view.status}; only active project items can be shared")
    _check(app, view.text, view.key, view.classification)
    return view


def share(app: Waymarks, ref: str) -> TeamWrite:
    """Publish this project's pin or memory ``ref`` (ID or unique prefix)."""
    view = shareable(app, ref)
    _, me = _ready(app)
    norm = normalize(view.text)
    team_id = app.ids.uuid().replace("-", "")
    item: dict[str, str] = {"id": team_id, "text": view.text}
    if view.kind == "memory" and view.key:
        item["key"] = view.key
    level = app.settings().policy.written(view.classification)  # the default, if it says
    if level:
        item["classification"] = level

    def unshared(state: TeamState) -> None:
        for held in state.fold.view.items.values():
            if held.status == "active" and held.kind == view.kind and held.norm == norm:
                raise _Shared(held)
        _refuse_conflict(state, me, view.kind, item)

    try:
        seq, me, after = _append(app, me, unshared, op="add", kind=view.kind, item=item)
    except _Shared as shared:
        return TeamWrite("duplicate", shared.held.id, shared.held.kind, me)
    _applied(after, me, seq, None, team_id)
    return TeamWrite("committed", team_id, view.kind, me, seq, "add",
                     notices=write_notes(app, me))


def _refuse_conflict(state: TeamState, me: str | None, kind: str, item: dict[str, str],
                     previous: str | None = None) -> None:
    """Refuse a claim an active team claim contradicts (a dry run of the fold)."""
    if kind != "memory":
        return
    entry = TeamEntry(me or "dry-run", 1, "dry-run", 0, "", "add", "memory", "", "", item["id"],
                      item["text"], item.get("key"), item.get("classification"))
    record = record_of(entry)
    assert record.mutation.item is not None
    candidate = new_state(record.mutation.item, record.session_id, "dry-run", 0)
    ignore = frozenset({previous}) if previous else frozenset()
    # the rules a local write is refused by (signatures too: "runs 3 replicas" / "runs 5
    # replicas" were both shared, and both planned), not only the replay rule's key
    hits = find_contradictions(state.fold.view, candidate, (candidate.partition,), ignore)
    if hits:
        # a teammate's file chose that ID: quoted as a shell reads it in the command
        named = Naming(state.fold.view.items).ref(hits[0])  # (12 characters, or what names it)
        command = shell_command(["waymarks", "team", "supersede", named, "--", "TEXT"])
        raise TeamRefused("conflict", f"team memory {escaped(named)} says otherwise; "
                          f"replace it with `{command}`", conflicts=hits)
    excluded = team_excluded.contradicted(state, candidate, ignore)
    if excluded is not None:
        raise TeamRefused("conflict", excluded[0], conflicts=[excluded[1]])


def _refuse_overtaken(state: TeamState, target: ItemState) -> None:
    problem = team_excluded.overtaken(state, target)
    if problem is not None:
        raise TeamRefused("excluded_replaced", problem)


def _local_item(app: Waymarks, ref: str) -> ItemView:
    from waymarks.service.item_refs import named_ids

    named = ids_named([*named_ids(app, "pin", ref), *named_ids(app, "memory", ref)],
                      ref) if ref else []
    found = [v for kind in ("pin", "memory") for v in app.items(kind, ids=named)
             ] if named else []
    if not found:
        raise TeamRefused("not_found", unknown_id("pin or memory", ref, "here", "waymarks pins"
                                                  "` and `waymarks memory list"))
    if len(found) > 1:
        raise TeamRefused("ambiguous", f"'{echoed(ref)}' starts {len(found)} item IDs; type "
                          "more of it")
    return found[0]


def _team_item(state: TeamState, ref: str, verb: str) -> ItemState:
    items = state.fold.view.items
    found = [items[i] for i in ids_named(items, ref)] if ref else []
    withheld = None if found else team_excluded.withheld(state, ref, verb)
    if withheld is not None:
        raise TeamRefused("excluded_contributor", withheld)
    if not found:
        raise TeamRefused("not_found", unknown_id("team item", ref, "", "waymarks team status"))
    if len(found) > 1:
        raise TeamRefused("ambiguous", f"'{echoed(ref)}' starts {len(found)} team item IDs; "
                          "type more of it")
    state_ = found[0]
    if state_.status != "active":
        raise TeamRefused("inactive", f"team {state_.kind} {state_.id} is already "
                          f"{state_.status}")
    return state_


def team_target(app: Waymarks, ref: str, verb: str) -> ItemState:
    """The active team item ``ref`` names (an ID or a unique prefix), as ``verb`` finds
    it: a question before it names the item, not the prefix typed."""
    return _team_item(_ready(app)[0], ref, verb)


def unshare(app: Waymarks, ref: str, reason: str | None = None) -> TeamWrite:
    """Withdraw a team item for everyone (a pin is deleted, a claim expires)."""
    state, me = _ready(app)
    target = _team_item(state, ref, "unshare")
    _refuse_overtaken(state, target)
    cleaned = clean_reason(reason)
    if isinstance(cleaned, Rejected):
        _refuse(cleaned)
    if cleaned:  # the reason is shared text too: the same checks as a shared item's
        _check(app, cleaned, None, None)
    status = "deleted" if target.kind == "pin" else "expired"
    seq, me, after = _append(app, me, lambda now: _team_item(now, target.id, "unshare"),
                             target.item.created_at, op="status", kind=target.kind,
                             target_id=target.id, status=status,
                             reason=cleaned or "unshared")
    _applied(after, me, seq, target.id)
    return TeamWrite("committed", target.id, target.kind, me, seq, "status",
                     notices=write_notes(app, me))


def _settled(state: TeamState, item_id: str) -> list[int]:
    """When what ``item_id`` is the kept side against was written: the claims of the
    conflicts nobody has settled, and the unshares that came after it replaced their item
    (a supersede of it settles them)."""
    from waymarks.core.team import lost_withdrawals, open_conflicts

    return [conflict.loser.item.created_at for conflict in open_conflicts(state.fold)
            if any(item_id == winner.id for winner in conflict.winners)] + [
        lost.entry.at for lost in lost_withdrawals(state.fold) if lost.winner.id == item_id]


def supersede(app: Waymarks, ref: str, text: str,
              classification: str | None = None) -> TeamWrite:
    """Replace a team item's text for everyone (also how a conflict is settled), at
    ``classification`` if given (as ``memory supersede --classification``), else at
    :func:`_replacing_level`."""
    state, me = _ready(app)
    target = _team_item(state, ref, "supersede")
    _refuse_overtaken(state, target)
    given = parse_classification(classification)
    if isinstance(given, Rejected):
        _refuse(given)
    level = given or _replacing_level(app, target)
    key = target.key if target.kind == "memory" else None
    # a local pin's or claim's limits (an unbounded text made a line the readers refuse,
    # which withdrew every item of the writer's own file)
    cleaned = clean_text(text, what="The new text", limit=MAX_PIN_CHARS
                         if target.kind == "pin" else MAX_CLAIM_CHARS)
    if isinstance(cleaned, Rejected):
        _refuse(cleaned)
    text = cleaned
    _check(app, text, key, level, target.id, Naming(state.fold.view.items))
    tightened = given is not None and level_rank(given) > level_rank(
        target.item.classification or "normal")  # (its own text at a stricter level)
    losers = _settled(state, target.id)
    if normalize(text) == target.norm and not tightened and not losers:
        # its own text (its key and level are kept): a replacement changes nothing, and
        # was appended for everyone all the same. Unless the item won a conflict nobody
        # settled: `team status` says to settle it by superseding the kept item, and its
        # own text is how one says "the kept one is right"
        return TeamWrite("duplicate", target.id, target.kind, me, operation="supersede")
    team_id = app.ids.uuid().replace("-", "")
    item: dict[str, str] = {"id": team_id, "text": text}
    if key:
        item["key"] = key
    if level:
        item["classification"] = level

    def replaceable(now: TeamState) -> None:
        _team_item(now, target.id, "supersede")
        _refuse_conflict(now, me, target.kind, item, previous=target.id)

    # stamped after the claims it settles too: one from a clock ahead of this one sorted
    # after the replacement, and conflicted with the new text instead
    seq, me, after = _append(app, me, replaceable, max([target.item.created_at, *losers]),
                             op="supersede", kind=target.kind,
                             item=item, previous_id=target.id)
    _applied(after, me, seq, target.id, team_id)
    return TeamWrite("committed", team_id, target.kind, me, seq, "supersede", target.id,
                     write_notes(app, me))


def _replacing_level(app: Waymarks, target: ItemState) -> str | None:
    """The level a replacement is written at: the new text is this person's, written as
    their share would be (:meth:`ProviderPolicy.written`: their ``defaultClassification``
    unless ``normal``), and never looser than the item it replaces (as ``memory
    supersede`` keeps a claim's level). The item's level alone wrote a text of someone
    whose default is ``internal`` as ``normal``."""
    mine, theirs = app.settings().policy.written(None), target.item.classification
    return max(mine, theirs, key=level_rank) if mine and theirs else mine or theirs
