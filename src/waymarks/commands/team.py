"""``waymarks team init | share | unshare | supersede | status | exclude | include``:
project memory that travels with the repository (see ``service/team.py``).

Sharing publishes to everyone who can clone the repository, so ``share``, ``unshare``
and ``supersede`` ask first on a terminal and otherwise need ``--yes``; a refusal
(classification, markers, credentials, untrusted project, a conflict, an unknown item,
...) comes before the question (the write is rehearsed first), exits 2 and appends
nothing. ``status --json`` holds nothing particular to one clone (no local paths, times
or identities): teammates with the same commits get the same bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from waymarks.commands.base import EXIT_ERROR, Column, Group, Result, command, runtime
from waymarks.commands.options import classification_option
from waymarks.commands.render import cell, refused, table_result, unambiguous
from waymarks.core.text import shell_command

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import ServiceError


def _confirmed(yes: bool, what: str) -> Result | None:
    """``None`` when the person confirmed; else the refusal to return."""
    run = runtime()
    if yes:
        return None
    if run.interactive and not run.json and sys.stdin is not None and sys.stdin.isatty():
        run.progress.stop()  # the question has the terminal now (the spinner drew over it)
        if click.confirm(f"{what} Everyone who can clone this repository will see it. "
                         "Continue?", default=False, err=True):
            return None
        return refused("declined", "nothing was shared")
    return refused("confirmation_required", f"{what} Confirm with --yes (everyone who can "
                   "clone this repository will see it).")


def _asked(app: Waymarks, yes: bool, what: str, write: Callable[[], object]) -> Result | None:
    """:func:`_confirmed`, after ``write`` rehearsed (every check it makes, nothing
    appended): its refusal (a :class:`TeamRefused`) comes before the question, and so
    does a write that has nothing to append (a duplicate: answered, nothing asked)."""
    from waymarks.service.outcomes import Rehearsed
    from waymarks.service.team_write import TeamWrite

    app.rehearsing = True
    try:
        done = write()
    except Rehearsed:
        done = None
    finally:
        app.rehearsing = False
    if isinstance(done, TeamWrite) and done.outcome == "duplicate":
        return _written(app, done, "")
    return _confirmed(yes, what)


def _refused(problem: ServiceError) -> Result:
    """A refusal; its message may name what the repository wrote (IDs, keys), escaped.
    An entry appended that the team ledger does not apply (``not_applied``) is no
    refusal: it is in the file, so it says so, exit 1."""
    if problem.code == "not_applied":
        return Result({"outcome": "not_applied", "id": None, "code": problem.code,
                       "conflicts": [], "notices": [], "message": cell(str(problem))},
                      f"Not applied: {cell(str(problem))}", EXIT_ERROR)
    return refused(problem.code, cell(str(problem)), getattr(problem, "conflicts", ()))


def _written(app: Waymarks, write: Any, verb: str) -> Result:
    data = write.to_json()
    # a team item's ID may be any string a teammate's file held (terminal escapes too)
    if write.outcome == "duplicate" and write.operation == "supersede":
        return Result(data, f"Team {write.kind} {cell(write.id)} already says that "
                      "(nothing appended)")
    if write.outcome == "duplicate":
        return Result(data, f"Already shared as team {write.kind} {cell(write.id)} "
                      "(nothing appended)")
    # a replacement names what it replaced (it said "Shared team memory NEW")
    replaced = f"{cell(write.previous_id)} by " if write.operation == "supersede" else ""
    text = (f"{verb} team {write.kind} {replaced}{cell(write.id)} (entry {write.seq} of "
            f".waymarks/team/{write.contributor}.jsonl). Commit and push it to share it.")
    return Result(data, text + _notes(write.notices))


def _notes(notices: Sequence[str]) -> str:
    return "".join(f"\nnote: {notice}" for notice in notices)


def team_group() -> Group:
    team = Group("team", default="status",
                 help="Project memory shared through the repository: init, share, unshare, "
                      "supersede, status, and exclude, include and accept for contributors' "
                      "files.",
                 examples=["waymarks team init", "waymarks team share 1a2b3c4d --yes",
                           "waymarks team status"])

    @command(team, "init", summary="Create the repository's team ledger "
             "(.waymarks/team/: README, .gitattributes) and your contributor ID.",
             examples=["waymarks team init"])
    def init() -> Result:
        from waymarks.service.team_init import init
        from waymarks.service.team_write import TeamRefused

        try:
            data = init(runtime().app())
        except TeamRefused as problem:
            return _refused(problem)
        made = ", ".join(data["created"]) or "nothing new"
        text = (f"Team ledger at {data['directory']} ({made} created); you are contributor "
                f"{data['contributor']}. Commit the directory to share it.")
        changed = bool(data["created"])  # as accept, exclude and include say it
        return Result({"outcome": "committed" if changed else "unchanged", "id": None,
                       "code": None, "conflicts": [], **data, "changed": changed},
                      text + _notes(data["notices"]))

    @command(team, "share", summary="Publish a project pin or memory to the team ledger "
             "(normal and internal only; never markers or credentials).",
             examples=["waymarks team share 1a2b3c4d", "waymarks team share 1a2b --yes"])
    @click.argument("item_id", metavar="ID")
    @click.option("--yes", is_flag=True, help="The person confirmed sharing it (no prompt). "
                  "E.g. --yes")
    def share(item_id: str, yes: bool) -> Result:
        """ID is a pin or memory ID, or a unique prefix. The item is checked before you
        are asked, and again before anything is written."""
        from waymarks.service.team_write import TeamNotApplied, TeamRefused, share, shareable

        app = runtime().app()
        try:
            view = shareable(app, item_id)
            asked = _asked(app, yes, f"Share {view.kind} {view.id} with the team?",
                           lambda: share(app, view.id))
            if asked is not None:
                return asked
            return _written(app, share(app, view.id), "Shared")
        except (TeamRefused, TeamNotApplied) as problem:
            return _refused(problem)

    @command(team, "unshare", summary="Withdraw a team item for everyone.",
             stores={"reason": "the reason"},
             examples=["waymarks team unshare 9f3e --yes"])
    @click.argument("team_id", metavar="TEAM_ID")
    @click.argument("reason", nargs=-1, metavar="[REASON]")
    @click.option("--yes", is_flag=True, help="The person confirmed it (no prompt). "
                  "E.g. --yes")
    def unshare(team_id: str, reason: tuple[str, ...], yes: bool) -> Result:
        from waymarks.service.team_write import (
            TeamNotApplied,
            TeamRefused,
            team_target,
            unshare,
        )

        app = runtime().app()
        try:
            target = team_target(app, team_id, "unshare")  # named in full when asked
            asked = _asked(app, yes, f"Withdraw team {target.kind} {cell(target.id)}?",
                           lambda: unshare(app, target.id, " ".join(reason) or None))
            if asked is not None:
                return asked
            return _written(app, unshare(app, target.id, " ".join(reason) or None),
                            "Unshared")
        except (TeamRefused, TeamNotApplied) as problem:
            return _refused(problem)

    @command(team, "supersede", summary="Replace a team item's text for everyone (also "
             "settles a conflict).", stores={"text": "the new text"},
             examples=["waymarks team supersede 9f3e --yes -- Deploy to staging first.",
                       "waymarks team supersede 9f3e --classification internal -- x"])
    @click.argument("team_id", metavar="TEAM_ID")
    @click.argument("text", nargs=-1, required=True, metavar="TEXT")
    @click.option("--yes", is_flag=True, help="The person confirmed it (no prompt). "
                  "E.g. --yes")
    @classification_option("new text")
    def supersede(team_id: str, text: tuple[str, ...], yes: bool,
                  classification: str | None) -> Result:
        """The new text is written at --classification if given, else at your
        defaultClassification, and never at a looser level than the item it replaces."""
        from waymarks.service.team_write import (
            TeamNotApplied,
            TeamRefused,
            supersede,
            team_target,
        )

        app = runtime().app()
        try:
            target = team_target(app, team_id, "supersede")  # named in full when asked

            def write() -> Any:
                return supersede(app, target.id, " ".join(text), classification)

            asked = _asked(app, yes, f"Replace team {target.kind} {cell(target.id)}?", write)
            if asked is not None:
                return asked
            return _written(app, write(), "Replaced")
        except (TeamRefused, TeamNotApplied) as problem:
            return _refused(problem)

    @command(team, "status", summary="Team items with author and commit, conflicts to "
             "settle, contributor files (tampering), engineering docs.",
             examples=["waymarks team status", "waymarks team status --json"])
    def status() -> Result:
        from waymarks.personal.docs import doc_rows
        from waymarks.service.team import refresh, team_dir
        from waymarks.service.team_init import blocked, elsewhere, ledger_above
        from waymarks.service.team_views import (
            accept_remedy,
            conflicts_json,
            duplicates_json,
            git_json,
            misnamed_json,
            reused_own_json,
            source_json,
            team_items,
            unmerged_json,
        )

        app = runtime().app()
        state = refresh(app)
        items = [i.to_json() for i in team_items(app, state)]
        data: dict[str, Any] = {
            "trusted": app.project_trusted, "initialized": team_dir(app).is_dir(),
            "items": items, "conflicts": conflicts_json(app, state),
            "duplicates": duplicates_json(state), "reusedOwn": reused_own_json(app, state),
            "sources": source_json(state, app.cwd), "docs": doc_rows(Path(app.cwd)),
            "problem": state.problem, "unmerged": unmerged_json(app), "git": git_json(app),
            "misnamed": misnamed_json(app)}
        if not data["initialized"] and app.project_trusted:
            data["problem"] = blocked(app)  # (what `team init` would refuse)
        above = None if data["initialized"] else ledger_above(app.cwd)
        data["ledgerAbove"] = None if above is None else str(above)
        # everything here comes from the repository: escaped, as every stored text is
        # (IDs, keys and file names carried terminal escapes and line breaks through)
        # the author is what a line claims; the contributor is the file it is in
        # one short form, one item: a teammate's IDs sharing their first 12 characters
        # were listed alike (the unshare of that prefix is refused as ambiguous)
        shorts = unambiguous((i["id"] for i in items), _short)

        def short(item_id: str) -> str:
            return shorts.get(item_id) or _short(item_id)

        rows = [(_id_cell(i["id"], short(i["id"])), i["kind"], i["status"], _author(i["author"]),
                 cell(i["contributor"]),
                 _commit_cell(i["commit"]), _text_cell(i["kind"], i["text"]))
                for i in items]
        footer = [f"conflict on key {cell(c['key'])}: kept {cell(short(c['kept']))} "
                  f"({_author(c['keptAuthor'])}), invalid {cell(short(c['invalid']))} "
                  f"({_author(c['invalidAuthor'])}); settle with `{cell(c['resolve'])}`"
                  if c["rule"] == "key" else
                  f"unshare of {cell(short(c['invalid']))} ({_author(c['invalidAuthor'])}) came "
                  f"after {cell(short(c['kept']))} ({_author(c['keptAuthor'])}) replaced it, and "
                  f"did not apply: the replacement is planned; settle with "
                  f"`{cell(c['resolve'])}`, or, if it is right, replace it (its own text "
                  "says so)"
                  if c["rule"] == "withdrawal" else
                  f"conflict: {cell(short(c['invalid']))} ({_author(c['invalidAuthor'])}) says "
                  f"otherwise than {cell(short(c['kept']))} ({_author(c['keptAuthor'])}), and is "
                  f"not planned; settle with `{cell(c['resolve'])}` if the other is right, "
                  "else `"
                  f"{cell(shell_command(['waymarks', 'team', 'unshare', short(c['kept'])]))}`"
                  for c in data["conflicts"]]
        footer += [f"item {cell(short(d['id']))} was written by "
                   f"{', '.join(cell(c) for c in d['contributors'])}: a reused ID, left out "
                   "of plans; exclude the contributor who copied it (`waymarks team exclude "
                   "CONTRIBUTOR`: the first writer's item is planned again), or unshare it "
                   "(withdrawn for everyone)" if len(d["contributors"]) > 1 else
                   f"item {cell(short(d['id']))} was written twice by "
                   f"{cell(d['contributors'][0])} (no share does that): left out of plans, "
                   "which text is meant cannot be told; unshare it (`"
                   + cell(shell_command(["waymarks", "team", "unshare", short(d["id"])]))
                   + "`), then share the right text again" for d in data["duplicates"]]
        footer += [f"item {cell(short(r['id']))} of {cell(r['contributor'])} reuses the ID of "
                   f"your own {r['kind'].replace('learned', 'learned claim')} (no share "
                   "does that): left out of plans; unshare it "
                   "(`" + cell(shell_command(["waymarks", "team", "unshare", short(r["id"])]))
                   + "`), or exclude its contributor" for r in data["reusedOwn"]]
        footer += [f"{cell(s['path'])}: {s['status']} ({cell(s['detail'])}); "
                   + ("every item of it" if s["withdrawn"] is None  # (not read: unknown)
                      else f"{s['withdrawn']} item(s)")
                   + (f" and {s['unverified']} unverified line(s)" if s["unverified"] else "")
                   + " withdrawn until it is restored from git"
                   + accept_remedy(s["status"], cell(s["contributor"]),
                                   s["contributor"] == state.me)
                   for s in data["sources"] if s["status"] != "available"]
        footer += [f"{cell(s['path'])}: {cell(s['partial'])}"
                   for s in data["sources"] if s["partial"] and s["status"] == "available"]
        footer += [f"{cell(s['path'])}: excluded here"
                   + (f" ({cell(s['reason'])})" if s["reason"] else "")
                   + f"; {s['withdrawn']} item(s) withdrawn"
                   for s in data["sources"] if s["excluded"] and s["status"] == "available"]
        footer += [cell(data["git"])] if data["git"] and items else []
        footer += [f"{cell(m['path'])}: not read (its name is no contributor ID: lower-case "
                   "letters, digits and dashes, then .jsonl), so none of its items is "
                   "planned; rename it to the `contributor` its lines hold"
                   for m in data["misnamed"]]
        footer += [f"{cell(u['path'])}: unmerged (two branches wrote to it; read as it "
                   "stands, the other branch's entries not among them): keep your side "
                   f"(`{cell(u['keep'])}`), commit the merge, and redo what the other "
                   "branch wrote to it (docs/team.md: Team memory)" for u in data["unmerged"]]
        footer += [f"doc: {cell(d['path'])}"
                   + (f" ({cell(d['id'])}, {cell(d['status'] or '-')})" if d["id"] else "")
                   + (f"; not served: superseded by {cell(', '.join(d['supersededBy']))}"
                      if d["supersededBy"] else "")
                   + (f"; superseded by {cell(', '.join(d['loop']))}, which it supersedes "
                      "in turn: plans serve both and say they conflict; mark the one no "
                      "longer in force Superseded" if d["loop"] else "")
                   for d in data["docs"]]
        if not app.project_trusted:
            footer.insert(0, f"{cell(app.cwd)} is not trusted: team memory is not read "
                          + ("(`waymarks trust .`)." if above is None else
                             f"here; {elsewhere(above)}."))
        elif not data["initialized"] and data["problem"] is not None:
            footer.insert(0, f"No team ledger here: {cell(data['problem'])}.")
        elif not data["initialized"]:
            footer.insert(0, "No team ledger here yet: `waymarks team init`." if above is None
                          else f"No team ledger in this folder; {elsewhere(above)}, "
                          "or `waymarks team init` for one of this folder alone.")
        elif state.problem is not None:
            footer.insert(0, state.problem[:1].upper() + state.problem[1:] + ".")
        columns = [Column("ID"), Column("KIND"), Column("STATUS"), Column("AUTHOR"),
                   Column("CONTRIBUTOR"), Column("COMMIT"), Column("TEXT", wide=True)]
        return table_result(data, columns, rows, kinds=[i["status"] for i in items],
                            footer=footer, empty="No team items.")

    @command(team, "exclude", summary="Stop counting a contributor's team items here "
             "(local policy).", examples=["waymarks team exclude alice-1a2b3c4d"],
             stores={"reason": "the reason"})
    @click.argument("contributor", metavar="CONTRIBUTOR")
    @click.argument("reason", nargs=-1, metavar="[REASON]")
    def exclude(contributor: str, reason: tuple[str, ...]) -> Result:
        return _set_excluded(contributor, True, " ".join(reason) or None)

    @command(team, "include", summary="Count an excluded contributor again.",
             examples=["waymarks team include alice-1a2b3c4d"])
    @click.argument("contributor", metavar="CONTRIBUTOR")
    def include(contributor: str) -> Result:
        return _set_excluded(contributor, False, None)

    @command(team, "accept", summary="Take a contributor file's present history as the "
             "one seen here (after a deliberate reset or an agreed rewrite).",
             examples=["waymarks team accept alice-1a2b3c4d"])
    @click.argument("contributor", metavar="CONTRIBUTOR")
    def accept(contributor: str) -> Result:
        from waymarks.service.outcomes import ServiceError
        from waymarks.service.team import accept as accept_history

        try:
            changed = accept_history(runtime().app(), contributor)
        except ServiceError as problem:
            return _refused(problem)
        return _policy_changed({"contributor": contributor, "changed": changed},
                               f"Accepted {cell(contributor)}'s present history." if changed
                               else "Nothing changed: that history is already the one "
                               "seen here.")

    return team


def _set_excluded(contributor: str, excluded: bool, reason: str | None) -> Result:
    from waymarks.service.outcomes import ServiceError
    from waymarks.service.team import set_excluded

    app = runtime().app()
    try:  # trust first: an untrusted project's ledger is not read, so none is found
        changed = set_excluded(app, contributor, excluded, reason)
    except ServiceError as problem:
        return _refused(problem)
    verb = "Excluded" if excluded else "Included"
    return _policy_changed({"contributor": contributor, "excluded": excluded,
                            "changed": changed},
                           f"{verb} {cell(contributor)}." if changed else "Nothing changed.")


#: the characters of an author a table row shows (a name; a line may claim any string)
AUTHOR_SHOWN = 100



def _short(item_id: str, unique: int = 0) -> str:
    """An item's ID as a row shows it: its first 12 characters (or the first ``unique``,
    the fewest no other ID listed starts with, when more), or whole when a credential in
    it was redacted (``[REDACTED:github-token]``: its start alone said nothing, and the
    ID's own characters are never shown)."""
    return item_id if "[REDACTED:" in item_id else item_id[:max(12, unique)]


def _id_cell(item_id: str, short: str) -> str:
    """An item's ID in the status table: its ``short`` form, cut on what is shown (an ID
    of control characters, each shown as six, made the column 72 wide)."""
    return cell(short) if "[REDACTED:" in item_id else _shown_within(short, max(
        12, len(short)))[0]


def _author(author: str) -> str:
    """An author in the status table and its footers, cut as :func:`_text_cell` cuts a
    text: a line's author is any string its writer chose (30,000 characters of it filled
    the row and every conflict naming it)."""
    shown, rest = _shown_within(author, AUTHOR_SHOWN)
    return f"{shown}…" if rest else shown


def _shown_within(text: str, limit: int) -> tuple[str, int]:
    """``text`` escaped as :func:`cell` shows it, cut to at most ``limit`` characters of
    what is shown, and how many of the text's characters were left out. The cut is of
    the escaped form, whole escapes only: an ESC is shown as six characters, so a cut
    made before escaping let 100 of them widen a column to 600."""
    shown = cell(text)
    if len(shown) <= limit:
        return shown, 0
    pieces, width = [], 0
    for ch in text:
        piece = cell(ch)
        if width + len(piece) > limit:
            break
        pieces.append(piece)
        width += len(piece)
    return "".join(pieces), len(text) - len(pieces)


def _text_cell(kind: str, text: str) -> str:
    """A team item's text in the status table, cut to what a local item of its kind may
    hold: no share writes more, but a hand-written line can (30,000 characters printed
    on one row hid the rest of the table); ``--json`` has it whole."""
    from waymarks.core.model import MAX_CLAIM_CHARS, MAX_PIN_CHARS

    shown, rest = _shown_within(text, MAX_PIN_CHARS if kind == "pin" else MAX_CLAIM_CHARS)
    if not rest:
        return shown
    return f"{shown}… ({rest:,} more characters: `waymarks --json team status` shows all)"


def _commit_cell(commit: str | None) -> str:
    """A team item's commit in the status table: 8 hex digits, ``uncommitted``, or
    ``unknown`` where a shallow clone's history does not reach the line, or git's blame
    did not answer in time."""
    from waymarks.service.team_git import SHALLOW, TIMED_OUT

    if not commit:
        return "uncommitted"
    return "unknown" if commit in (SHALLOW, TIMED_OUT) else cell(commit[:8])


def _policy_changed(data: dict[str, Any], text: str) -> Result:
    """A local policy change (``accept``, ``exclude``, ``include``) in the write contract's
    shape: ``committed``, or ``unchanged`` when it already held; no item ID."""
    return Result({"outcome": "committed" if data["changed"] else "unchanged", "id": None,
                   "code": None, "conflicts": [], "notices": [], **data}, text)
