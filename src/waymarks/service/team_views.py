"""Team memory as listings and the planner show it: each item with its author,
contributor and commit, the contributor files' standing, open conflicts, reused IDs, and
the team block a plan takes (from the read side's state, :mod:`waymarks.service.team`)."""

from __future__ import annotations

import re
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from waymarks.core.model import MemoryItem
from waymarks.core.rules import ItemState
from waymarks.core.secrets import redact
from waymarks.core.team import (
    TeamEntry,
    TeamFold,
    held_version,
    lost_withdrawals,
    open_conflicts,
)
from waymarks.core.text import Naming, shell_command
from waymarks.ledger import TEAM_DIR
from waymarks.service import team_git
from waymarks.service.own_claims import Asked, OwnClaims, OwnSignatures
from waymarks.service.team import FOREIGN, TeamState, counts, refresh, seen_before, team_dir
from waymarks.service.team_anchors import anchors_path
from waymarks.service.team_excluded import exclusion_reason
from waymarks.service.team_held import TeamChecks, held_back_here, team_checks

if TYPE_CHECKING:
    from waymarks.planner.team import TeamBlock
    from waymarks.service.app import Waymarks


class TeamItem(msgspec.Struct, frozen=True):
    """A team item as listings and the planner show it."""

    state: ItemState
    entry: TeamEntry
    commit: str | None

    def to_json(self) -> dict[str, Any]:
        """The item as ``team status`` lists it: its ID, key, text, reason and author
        redacted as a plan's egress redacts them (a teammate's hand-written line is refused
        by no local write, and its credential was printed whole while every plan hid it;
        an ID is whatever that line made it)."""
        s, e = self.state, self.entry
        return {"id": _shown(s.id), "kind": s.kind, "status": s.status, "key": _shown(s.key),
                "classification": s.item.classification, "text": _shown(s.text),
                "author": _shown(e.author), "contributor": e.contributor, "sharedAt": e.at,
                "seq": e.seq, "commit": self.commit, "supersedes": _shown(s.supersedes),
                "supersededBy": _shown(s.superseded_by), "reason": _shown(s.reason),
                "conflictsWith": [_shown(i) for i in s.conflicts_with]}


def _shown(text: str | None) -> str | None:
    """``text`` with its credentials redacted (``[REDACTED:<kind>]``), as egress does."""
    return None if text is None else redact(text)[0]


def team_items(app: Waymarks, state: TeamState, *, active_only: bool = False,
               provenance: bool = True) -> list[TeamItem]:
    """The fold's items in replay order, with the commit that added each (when the
    line is committed)."""
    blame: dict[str, dict[int, str]] = {}
    found: list[TeamItem] = []
    cache = anchors_path(app).with_name(anchors_path(app).name.replace(".anchors.jsonl",
                                                                       ".commits.json"))
    unsaved: list[Path] = []  # new blames, written to the cache once at the end
    for item_state in state.fold.states():
        if active_only and item_state.status != "active":
            continue
        entry = state.fold.entries[item_state.id]
        commit = None
        if provenance:
            source = state.sources[entry.contributor]
            if source.path not in blame:
                blame[source.path] = team_git.line_commits(
                    Path(source.path), source.size, source.mtime_ns, cache, unsaved=unsaved)
            commits = blame[source.path]
            commit = commits.get(entry.seq, commits.get(team_git.EVERY_LINE))
        found.append(TeamItem(item_state, entry, commit))
    team_git.save(cache, unsaved)
    return found


def source_json(state: TeamState, project: str) -> list[dict[str, Any]]:
    """Each contributor file's standing (paths relative to the project)."""
    rows = []
    for contributor, source in sorted(state.sources.items()):
        anchor = state.anchors.get(contributor, {})
        held = counts(state, contributor)
        rows.append({"contributor": contributor,
                     "path": str(Path(source.path).relative_to(project))
                     if source.path.startswith(project) else source.path,
                     "status": source.status, "detail": source.detail,
                     "entries": source.lines, "excluded": bool(anchor.get("excluded")),
                     # why, as `team exclude` was told (kept, and shown nowhere before)
                     "reason": exclusion_reason(anchor) if anchor.get("excluded") else None,
                     # items, not lines: a status entry or an unverified line is none;
                     # None: a file that could not be read holds what nobody here knows
                     # (it said 0, as if nothing of it were lost)
                     "withdrawn": 0 if held else None if source.status == "unreadable"
                     else len({e.item_id for e in source.entries if e.item_id is not None}),
                     "unverified": source.lines - source.count,
                     "partial": source.partial})
    seen = seen_before(state, state.me) if state.me else 0
    if state.me and state.me not in state.sources and seen:
        # one's own file gone before this process listed it (a reset to a history
        # without it): a share is refused for it, and this said nothing
        rows.append({"contributor": state.me, "path": f"{TEAM_DIR}/{state.me}.jsonl",
                     "status": "missing", "detail": f"the file is gone; this home has seen "
                     f"{seen} entries of it", "entries": 0, "excluded": False,
                     "reason": None, "withdrawn": None, "unverified": 0, "partial": None})
        rows.sort(key=lambda row: str(row["contributor"]))
    return rows


def accept_remedy(status: str, contributor: str, own: bool) -> str:
    """The way ``team accept`` settles a contributor file of ``status`` (``own``: this
    home's), as a clause to follow "restore it from git"; ``""`` when accepting cannot
    (a chain that does not verify, a teammate's file that is gone)."""
    command = f"`waymarks team accept {contributor}`"
    if status in ("truncated", "rewritten"):
        return (f", or, if you undid your own shares on purpose (`git reset`) or switched "
                f"branches, accept its present history: {command}" if own else
                ", or, if that history is the right one (a branch switch, a rewrite the "
                f"team agreed on), accept it: {command}")
    if status == FOREIGN and own:
        return f", or, if you wrote those entries from a copy of this home, accept them: {command}"
    if status == "missing" and own:
        return (", or, if it was removed on purpose (or this branch does not have it), "
                f"start it anew: {command}")
    return ""


def conflicts_json(app: Waymarks, state: TeamState) -> list[dict[str, Any]]:
    """Open conflicts: both authors, and the command that resolves them. ``rule``:
    ``key`` (the fold invalidated the later claim) or ``signature`` (the later claim
    contradicts the kept one by a local write's rules: held back, not planned; it is
    settled by unsharing the wrong one) or ``withdrawal`` (an unshare that came after a
    teammate replaced the item: ``invalid`` is the item it withdrew, ``kept`` the
    replacement planned in its place; unsharing that settles it, and so does replacing
    it, its own text included)."""
    rows = []
    among = Naming(state.fold.view.items)  # (what `team unshare|supersede` resolve by)
    for rule, conflicts in (("key", open_conflicts(state.fold)),
                            ("signature", held_back_here(app, state.fold))):
        for conflict in conflicts:
            loser = state.fold.entries[conflict.loser.id]
            for winner in conflict.winners:
                kept = state.fold.entries[winner.id]
                rows.append({
                    "rule": rule, "key": _shown(winner.key), "kept": _shown(winner.id),
                    "keptAuthor": _shown(kept.author), "keptContributor": kept.contributor,
                    "invalid": _shown(conflict.loser.id),
                    "invalidAuthor": _shown(loser.author),
                    "invalidContributor": loser.contributor,
                    "resolve": suggested("supersede", winner.id, "--", "TEXT", among=among)
                    if rule == "key" else suggested("unshare", conflict.loser.id,
                                                    among=among)})
    for lost in lost_withdrawals(state.fold):
        kept = state.fold.entries[lost.winner.id]
        rows.append({"rule": "withdrawal", "key": _shown(lost.winner.key),
                     "kept": _shown(lost.winner.id),
                     "keptAuthor": _shown(kept.author),
                     "keptContributor": kept.contributor, "invalid": _shown(lost.entry.target_id),
                     "invalidAuthor": _shown(lost.entry.author),
                     "invalidContributor": lost.entry.contributor,
                     "resolve": suggested("unshare", lost.winner.id, among=among)})
    return rows


def suggested(verb: str, item_id: str, *rest: str, among: Naming | None = None) -> str:
    """``waymarks team VERB ID …`` with the item's ID (12 characters of it, or as many
    as name it alone ``among`` the team's IDs, whatever a teammate's file made it) quoted
    as a shell reads it: an ID such as ``$(sh x)`` is text in the command a person
    pastes, never a command of its own. Two IDs sharing their first 12 characters made
    the command refused as ambiguous, and an ID of those 12 alone had the other's
    ``team unshare`` withdraw it."""
    return shell_command(["waymarks", "team", verb,
                          item_id[:12] if among is None else among.ref(item_id), *rest])


def duplicates_json(state: TeamState) -> list[dict[str, Any]]:
    """Active item IDs that entries of several contributors wrote (left out of plans).
    One withdrawn since (unshared) is no longer listed: it is planned for no one."""
    items = state.fold.view.items
    return [{"id": _shown(item_id), "contributors": list(contributors)}
            for item_id, contributors in state.fold.duplicates().items()
            if item_id in items and items[item_id].status == "active"]


#: the most IDs one lookup names (SQLite's default limit on a statement's variables is
#: 32,766)
_IDS_ASKED = 30_000
#: the shape of a learned claim's ID (core.evolution.model.claim_id): only such a team ID
#: is looked up among them
_LEARNED_ID = re.compile(r"[0-9a-f]{24}")


def reusing_own(app: Waymarks, ids: list[str]) -> dict[str, str]:
    """Which of the team item ``ids`` are the ID of one of the person's own items here,
    to the kind of that item. No share writes one (a team ID is 32 hex digits, a local
    one a dashed UUID, a learned claim's 24 hex digits): a teammate's line copying it had
    both planned under one ID, and a `forget`, `pin show` or `learn forget` of it could
    mean either. Such a team item is left out. An ID in capitals is the same one (`pin
    show` reads it in lower case too): a teammate's line in capitals was planned beside
    the pin it copied."""
    from waymarks.store.evolution_probe import known_claims

    forms: dict[str, list[str]] = {}  # each form a local ID could take -> the team IDs
    for team_id in ids:
        for form in dict.fromkeys((team_id, team_id.lower())):
            forms.setdefault(form, []).append(team_id)
    asked = list(forms)
    parts = [asked[at:at + _IDS_ASKED] for at in range(0, len(asked), _IDS_ASKED)]
    held = [i for part in parts  # (one lookup per 30k, any kind or place)
            for i in app.projection.classifications(part)]
    found = {team_id: kind for kind in ("pin", "memory")
             for v in (app.items(kind, ids=held) if held else ()) for team_id in forms[v.id]}
    learned = [[i for i in part if _LEARNED_ID.fullmatch(i)] for part in parts]
    return found | {team_id: "learned" for part in learned if part
                    for i in known_claims(app.db_path, part) for team_id in forms[i]}


#: :func:`reusing_own` of each fold's active items, with what the answer was found under
#: (the fold's version, the projection's change token, the session and directory): every
#: plan asked the projection about all team IDs again (70 ms CPU at 20k team items)
_REUSING: weakref.WeakKeyDictionary[TeamFold, tuple[tuple[Any, ...], dict[str, str], int]] = (
    weakref.WeakKeyDictionary())


def reusing_own_active(app: Waymarks, fold: TeamFold) -> dict[str, str]:
    """:func:`reusing_own` of ``fold``'s active items, kept while neither the fold nor
    the projection changed (its token moves with any commit, this connection's or
    another's; none is kept inside a transaction) for one session and directory."""
    token = app.projection.epoch.token()
    session = app.refresh()
    where = (app.cwd, app.project_trusted, session.session_id, session.entry_count,
             session.leaf_id) if session is not None else (app.cwd, app.project_trusted)
    key = (held_version(fold), token, str(app.db_path), *where)
    kept = _REUSING.get(fold)
    if token is not None and kept is not None and kept[0] == key:
        return kept[1]
    items = fold.view.items
    if token is not None and kept is not None and kept[0][1:] == key[1:]:
        # the fold alone moved (a pull): the items it changed are asked about, the
        # others' answers kept (every active ID was asked again, 0.1 s CPU at 20k)
        changed = set(fold.changed_since(kept[2]))
        found = {i: k for i, k in kept[1].items() if i not in changed} | reusing_own(
            app, [i for i in changed if i in items and items[i].status == "active"])
    else:
        found = reusing_own(app, [i for i, s in items.items() if s.status == "active"])
    if token is not None and app.projection.epoch.token() == token:  # (nothing moved)
        _REUSING[fold] = (key, found, fold.change_mark())
    return found


def reused_own_json(app: Waymarks, state: TeamState) -> list[dict[str, str]]:
    """The active team items that carry an ID of the person's own (:func:`reusing_own`),
    each with its contributor and the kind of the person's item: left out of plans."""
    entries = state.fold.entries
    return [{"id": _shown(i) or "", "contributor": entries[i].contributor, "kind": kind}
            for i, kind in sorted(reusing_own_active(app, state.fold).items()) if i in entries]


def git_json(app: Waymarks) -> str | None:
    """Why no item shows the commit that added it (git cannot be run here, or refuses the
    checkout for its owner, or does not answer in time), with the fix; ``None`` when git
    answers (a working tree or not: one question, which a hanging git made wait twice).
    Every committed item showed as "uncommitted", with no word of why."""
    if not app.project_trusted:
        return None
    found = team_git.trouble(Path(app.cwd))
    if found is None:
        return None
    shown = ("its commit as unknown (a blame that timed out is kept until the file or HEAD "
             "changes)" if found[0] == "git_timeout" else "as uncommitted, committed or not")
    return f"{found[1]}: an item git was not asked about before shows {shown}"


def unmerged_json(app: Waymarks) -> list[dict[str, str]]:
    """Team files a merge left unmerged (project-relative), each with the command that
    keeps this side: ``team status`` listed every file as available meanwhile, and
    committing the merge dropped the other branch's entries unnoticed."""
    directory = team_dir(app)
    if not app.project_trusted or not directory.is_dir() or directory.is_symlink():
        return []
    paths = [str((directory / name).relative_to(app.cwd))
             for name in team_git.unmerged(directory)]
    return [{"path": path, "keep": shell_command(["git", "checkout", "--ours", "--", path])}
            for path in paths]


def misnamed_json(app: Waymarks) -> list[dict[str, str]]:
    """The team directory's ``.jsonl`` files whose name is no contributor ID: never read
    (a file renamed by hand was skipped in silence, its items in no plan)."""
    from waymarks.ledger.team import misnamed

    directory = team_dir(app)
    if not app.project_trusted:
        return []
    return [{"path": str((directory / name).relative_to(app.cwd))} for name in
            misnamed(directory)]


def team_blocks(app: Waymarks) -> list[TeamBlock]:
    """The active team items of a trusted project, for the planner (pins first, then
    claims, each in replay order)."""
    if not app.project_trusted or not team_dir(app).is_dir():
        return []  # (a linked directory: ledger.team.list_files refuses to list it)
    # one request, one snapshot (inside a plan's, that one): the own claims read per team
    # item below refreshed the session and the project's sessions each time (1.8 s of a
    # 3.2 s call at 1,000 team items)
    with app.begin():
        return _team_blocks(app)


def _team_blocks(app: Waymarks) -> list[TeamBlock]:
    """:func:`team_blocks` in a request."""
    from waymarks.core.text import normalize
    from waymarks.planner.team import TeamBlock

    # the person's own items are read per team item, those that may say or contradict
    # it: every one in effect was read and signed on each plan (6 s CPU a prompt at 60k
    # claims, whatever the number of team items)
    mine = OwnClaims(app)
    state = refresh(app)
    reused = state.fold.duplicates()  # whose text it is cannot be told: neither is planned
    # an earlier claim says otherwise; and the claims' subjects (kept between processes)
    checks = team_checks(app, state.fold)
    held = {c.loser.id for c in checks.held}
    items = [i for i in team_items(app, state, active_only=True)
             if i.state.id not in reused and i.state.id not in held]
    own_ids = reusing_own_active(app, state.fold)  # (of all active items: kept)
    items = [i for i in items if i.state.id not in own_ids]
    mine.expect(_asked(state.fold, checks))  # (one read for all items)
    items = [i for i in items if not any(  # the person's own copy is already planned
        normalize(v.text) == i.state.norm for v in mine.in_effect_about(i.state.text))]
    items.sort(key=lambda i: i.state.kind != "pin")  # stable: replay order within a kind
    return [TeamBlock(i.state.id, i.state.kind, i.state.text, i.entry.author,
                      i.entry.contributor, i.commit, i.state.key,
                      i.state.item.classification,
                      i.state.item.key if isinstance(i.state.item, MemoryItem) else None,
                      _own_contradicting(i.state, mine))
            for i in items]


#: what the person's own claims are asked about each fold's active items, as the fold
#: was (its version): built on every plan, 0.15 s of it at 20k team items
_ASKED: weakref.WeakKeyDictionary[TeamFold, tuple[tuple[Any, ...], Asked, int, int]] = (
    weakref.WeakKeyDictionary())


def _asked(fold: TeamFold, checks: TeamChecks) -> Asked:
    """:class:`Asked` of ``fold``'s active items (those a plan offers, and those it holds
    back or leaves out: what is found of these is true as well), kept with the fold's
    version."""
    version = held_version(fold)
    kept = _ASKED.get(fold)
    if kept is not None and kept[0] != version and kept[1].grown_from is None and (
            kept[3] < REBUILT_AFTER):
        # grown by the states the fold changed since (a pull): rebuilt whole it took
        # 0.3 s CPU at 20k team items, and what the store has of them was asked again
        # (grown from one whose answer was kept; the texts of items gone stay asked
        # until it is rebuilt)
        items = fold.view.items
        added = [s for s in (items.get(i) for i in fold.changed_since(kept[2]))
                 if s is not None and s.status == "active"]
        kept = _ASKED[fold] = (version, kept[1].grown(added, checks.subjects),
                               fold.change_mark(), kept[3] + 1)
    elif kept is None or kept[0] != version:
        kept = _ASKED[fold] = (version, Asked(
            [s for s in fold.states() if s.status == "active"], checks.subjects),
            fold.change_mark(), 0)
    return kept[1]


#: pulls an :class:`Asked` is grown by before it is built whole again
REBUILT_AFTER = 64


def _own_contradicting(state: ItemState, mine: OwnClaims) -> str | None:
    """The person's own active claim a team claim contradicts, if any, as a local write
    would be refused: the same key with another text or the opposite state (the replay
    rule), or a signature ("runs 3 replicas" / "runs 5 replicas": both were planned, the
    team's above); it was planned beside theirs, and above it."""
    if state.kind != "memory":
        return None
    found = mine.conflicting(state)
    if found:
        return found
    text = state.text
    views = [v for v in mine.in_effect_about(text) if v.kind == "memory"]
    # (none to weigh it against: no index built, 18,000 of them a plan at 20k claims)
    return OwnSignatures(views).contradicted(text) if views else None
