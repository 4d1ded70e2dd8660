"""Pins and memory: list (filtered, dated), write, inspect, search and edit.

Every write goes through one service method; the notices of
:mod:`waymarks.commands.notices` are added to what it committed, and a refused target
whose prefix is ambiguous is reported with every match (:mod:`waymarks.commands.refs`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Literal

import click

from waymarks.commands.base import Column, Group, Result, command, runtime
from waymarks.commands.options import COUNT, classification_option, list_filters, sources_list
from waymarks.commands.refs import explain_not_found, resolve
from waymarks.commands.render import cell, refused, table_result, when, write_result
from waymarks.core.text import unknown_id

if TYPE_CHECKING:  # the service is imported when a command runs, not for help
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import WriteOutcome
    from waymarks.service.provenance import Provenance
    from waymarks.service.views import ItemView

Kind = Literal["pin", "memory"]
TEXT = click.argument("text", nargs=-1, metavar="[--] TEXT")
#: ``pin --file`` reads at most this: a pin holds 4,000 characters (at most 16,000 bytes
#: of UTF-8), so a longer file is refused as too long, as typed text is, never read whole
MAX_PIN_FILE_BYTES = 64 * 1024
#: ``memory search``: an eligible claim the default provider may not receive (recall
#: leaves it out of the digest)
WITHHELD = "eligible, withheld from the default provider"


# -- listing ------------------------------------------------------------------------------


def _listing(app: Waymarks, kind: Kind, *, scopes: tuple[str, ...] = (),
             statuses: tuple[str, ...] = (), key: str | None = None, since: int | None = None,
             in_effect: bool = False, limit: int | None = None,
             json_only: bool = False) -> Result:
    """The listing's data, and (unless ``json_only``: ``--json`` prints the data alone)
    the text and table a person reads: escaping and aligning thousands of rows cost
    more than the data, for output nobody sees."""
    from waymarks.core.text import normalize_key
    from waymarks.service.provenance import newest, updated_at

    if limit is not None and not (scopes or statuses or in_effect or key is not None
                                  or since is not None):
        chosen, total = newest(app, kind, limit)  # the newest read alone, the rest counted
        dates = updated_at(app, chosen)
        hidden = max(0, total - len(chosen))
    else:
        views = app.items(kind)
        dates = updated_at(app, views)
        key = normalize_key(key) if key is not None else None  # as `memory add --key` stores it
        chosen = [v for v in views
                  if (not scopes or v.scope in {s.lower() for s in scopes})
                  and (not statuses or v.status in {s.lower() for s in statuses})
                  and (key is None or v.key == key)
                  and (since is None or dates[v.id] >= since)
                  and (not in_effect or v.applies)]
        hidden = len(chosen) - limit if limit is not None and len(chosen) > limit else 0
        if hidden:
            chosen = chosen[-limit:] if limit else chosen  # the newest, still oldest first
    data: dict[str, Any] = {"items": [{**v.to_json(), "updatedAt": dates[v.id]} for v in chosen]}
    if hidden:
        data["omitted"] = hidden
    if json_only:
        return Result(data, "")
    columns = [Column(""), Column("ID"), Column("STATUS"), Column("SCOPE"),
               Column("CREATED"), Column("UPDATED")]
    with_key = any(v.key for v in chosen)
    with_level = any(v.classification for v in chosen)
    columns += [Column("KEY")] * with_key + [Column("CLASS")] * with_level
    columns.append(Column("TEXT", wide=True))
    rows = []
    for v in chosen:
        # an ID (and a superseding one) from a hand-edited ledger line can hold a line break
        row = ["*" if v.applies else "", cell(v.id[:8]), cell(_status(v)), v.scope,
               when(v.created_at), when(dates[v.id])]
        row += [cell(v.key) or "-"] * with_key + [v.classification or "-"] * with_level
        rows.append((*row, cell(v.text)))
    footer = ["(* = applies on the active branch)"] if chosen else []
    if hidden:
        footer.append(f"({hidden} older not shown: --limit {hidden + len(chosen)} shows them)")
    filtered = bool(scopes or statuses or key or since or in_effect)
    empty = f"No {kind} items {'match' if filtered else 'in this session'}."
    return table_result(data, columns, rows, kinds=[v.status for v in chosen],
                        footer=footer, empty=empty)


def _notices(app: Waymarks, outcome: WriteOutcome, kind: Kind, *,
             scope_given: str | None) -> WriteOutcome:
    from waymarks.commands.notices import with_write_notices

    return with_write_notices(app, outcome, kind, scope_given=scope_given)


def _status(view: ItemView) -> str:
    if view.superseded_by:
        return f"superseded→{view.superseded_by[:8]}"
    return view.status


# -- pins ---------------------------------------------------------------------------------

#: a pin's whole text that is a command's word: `waymarks pin list` meant `pins`, and
#: pinned the word "list" (exit 0, nothing said)
_LISTING_WORDS = frozenset({"list", "ls", "show", "all", "help"})


def register_pins(root: click.Group) -> None:
    @command(root, "pins", summary="List pins: status, scope, dates, and whether each "
             "applies on the active branch (*).",
             examples=["waymarks pins", "waymarks pins --status active --scope project",
                       "waymarks pins --since 7d --limit 20", "waymarks pins --json"])
    @list_filters("pin")
    def pins(scopes: tuple[str, ...], statuses: tuple[str, ...], since: int | None,
             in_effect: bool, limit: int | None) -> Result:
        """On a terminal the list is a table (colour unless NO_COLOR is set) and long lists
        go through a pager; elsewhere each pin is one line."""
        run = runtime()
        return _listing(run.app(), "pin", json_only=run.json, scopes=scopes,
                        statuses=statuses,
                        since=since, in_effect=in_effect, limit=limit)

    @command(root, "pin", summary="Pin an instruction the person confirmed.",
             stores={"text": "the pin's text"},
             examples=["waymarks pin -- Run the tests before every commit.",
                       "waymarks pin --scope branch -- Try the new parser here only.",
                       "waymarks pin --scope project --classification internal -- Use ruff.",
                       "waymarks pin --file CONTRIBUTING.md",
                       "waymarks pin --supersedes 1a2b3c4d -- Run the fast tests first."])
    @click.option("--scope", type=click.Choice(["session", "branch", "project"],
                                               case_sensitive=False),
                  help="Where it applies: session (default), branch (while the entry it was "
                       "pinned at is on the active branch) or project (every session of "
                       "this trusted project). E.g. --scope project")
    @classification_option("pin")
    @click.option("--source", metavar="ENTRY_ID",
                  help="The session entry this pin comes from (on the active branch). "
                       "E.g. --source 1a2b3c4d")
    @click.option("--file", "path", metavar="PATH",
                  help="Pin the contents of a UTF-8 text file (instead of TEXT, never "
                       "with it; no control characters but tabs and line breaks); the path "
                       "is kept as its source. E.g. --file docs/rules.md")
    @click.option("--supersedes", metavar="PIN_ID",
                  help="Replace this pin (same scope; its classification is kept unless "
                       "given). E.g. --supersedes 1a2b3c4d")
    @TEXT
    def pin(scope: str | None, classification: str | None, source: str | None,
            path: str | None, supersedes: str | None, text: tuple[str, ...]) -> Result:
        """TEXT is the rest of the line; put `--` before it when it starts with `-`.
        A pin is refused (exit 2) if it is empty, too long (4,000 characters), holds a
        credential, or asks for project scope in an untrusted project."""
        run = runtime()
        content = " ".join(text)
        if len(text) == 1 and text[0].lower() in _LISTING_WORDS:  # (`pin list` for `pins`)
            raise click.UsageError(f"`pin {text[0]}` would pin the word {text[0]!r}: to "
                                   "list pins use `pins`; to pin an instruction, write it "
                                   "out (`pin -- Run the tests first.`)")
        if path is not None and text:  # the text would be pinned with the file as its source
            raise click.UsageError("give either --file PATH or TEXT, not both: --file pins "
                                   "the file's contents and records the file as the source")
        if path is not None:
            if run.read_file is None:
                return refused("invalid_argument", "--file is not available here")
            content = run.read_file(path, MAX_PIN_FILE_BYTES)
            from waymarks.core.text import stray_control

            stray = stray_control(content)
            if stray is not None:  # a binary file's NUL was pinned, kept as `\u0000`
                return refused("bad_input", f"{cell(path)}: holds a control character "
                               f"that is not text ({stray}): a pin is text (a binary file?); "
                               "remove it and try again; nothing was written")
        app = run.app()
        # the source is the file read, where this command runs (with --cwd OTHER, the
        # service took it as OTHER's and named a file it did not read)
        outcome = app.pin(content, scope=scope, classification=classification, source=source,
                          source_file=path and os.path.abspath(path), supersedes=supersedes)
        outcome = explain_not_found(app, "pin", supersedes, outcome)
        outcome = _notices(app, outcome, "pin",
                                     scope_given=scope or ("kept" if supersedes else None))
        from waymarks.commands.notices import with_pin_budget

        outcome, left_out = with_pin_budget(app, outcome)
        result = write_result(outcome, "Pinned")
        if result.data["outcome"] == "committed":
            result.data["pinsLeftOut"] = left_out
        return result

    @command(root, "unpin", summary="Unpin: the pin's status becomes deleted.",
             stores={"reason": "the reason"},
             examples=["waymarks unpin 1a2b3c4d", "waymarks unpin 1a2b3c4d no longer needed"])
    @click.argument("pin_id", metavar="PIN_ID")
    @click.argument("reason", nargs=-1, metavar="[REASON]")
    def unpin(pin_id: str, reason: tuple[str, ...]) -> Result:
        """PIN_ID is the ID or any unique prefix of it (lists show eight characters)."""
        app = runtime().app()
        outcome = app.unpin(pin_id, " ".join(reason) or None)
        return write_result(explain_not_found(app, "pin", pin_id, outcome), "Unpinned")


# -- memory -------------------------------------------------------------------------------


def memory_group() -> Group:
    memory = Group("memory", default="list",
                   help="Durable claims: list, add, supersede, invalidate, expire, inspect, "
                        "search and edit them; and this project's other sessions as sources.",
                   examples=["waymarks memory", "waymarks memory add --key db-port -- "
                             "The database port is 5433.", "waymarks memory show 1a2b3c4d",
                             "waymarks memory search database port"])

    @command(memory, "list", summary="List memory claims: status, scope, dates, key, and "
             "whether each applies (*).",
             examples=["waymarks memory", "waymarks memory list --status active",
                       "waymarks memory list --key db-port --since 2026-11-01",
                       "waymarks memory list --scope project --limit 50"])
    @list_filters("memory")
    def memory_list(scopes: tuple[str, ...], statuses: tuple[str, ...], key: str | None,
                    since: int | None, in_effect: bool, limit: int | None) -> Result:
        """`waymarks memory` alone runs this. On a terminal the list is a table (colour
        unless NO_COLOR is set) and long lists go through a pager."""
        if key is not None:  # one rule with `memory add --key` (a longer one was cut)
            from waymarks.core.decisions import long_key
            from waymarks.core.text import normalize_key

            too_long = long_key(normalize_key(key, cut=False))
            if too_long is not None:
                return refused("too_long", f"{too_long}; no claim has a longer one")
        run = runtime()
        return _listing(run.app(), "memory", json_only=run.json, scopes=scopes,
                        statuses=statuses,
                        key=key, since=since, in_effect=in_effect, limit=limit)

    @command(memory, "add", summary="Record a claim (refused, exit 2, if it contradicts an "
             "active one: supersede that one instead).",
             stores={"text": "the claim's text", "key": "--key"},
             examples=["waymarks memory add -- The database port is 5433.",
                       "waymarks memory add --scope project --key db-port -- Port is 5433.",
                       "waymarks memory add --source 1a2b3c4d -- Deploys go to staging."])
    @click.option("--scope", type=click.Choice(["session", "project"], case_sensitive=False),
                  help="session (default: this session only) or project (every session of "
                       "this trusted project). E.g. --scope project")
    @classification_option("claim")
    @click.option("--key", metavar="KEY",
                  help="What the claim is about; another active claim with the same key and "
                       "a different value is a conflict. E.g. --key db-port")
    @click.option("--source", metavar="ENTRY_ID[,ENTRY_ID]",
                  help="Session entries the claim comes from (on the active branch), "
                       "comma-separated. E.g. --source 1a2b3c4d,5e6f7a8b")
    @TEXT
    def memory_add(scope: str | None, classification: str | None, key: str | None,
                   source: str | None, text: tuple[str, ...]) -> Result:
        """TEXT is the rest of the line; put `--` before it when it starts with `-`.
        Without --scope a claim is for this session only; in a trusted project the
        answer says so, since it will not apply after `waymarks session new`."""
        app = runtime().app()
        outcome = app.remember(" ".join(text), scope=scope, key=key,
                               classification=classification, sources=sources_list(source))
        return write_result(_notices(app, outcome, "memory", scope_given=scope),
                            "Recorded")

    @command(memory, "supersede", summary="Replace a claim with a new one (the old one "
             "becomes superseded; scope, key and classification carry over).",
             stores={"text": "the claim's text"},
             examples=["waymarks memory supersede 1a2b3c4d -- The database port is 5434.",
                       "waymarks memory supersede 1a2b --classification internal -- x"])
    @classification_option("new claim")
    @click.option("--source", metavar="ENTRY_ID[,ENTRY_ID]",
                  help="Session entries the new claim comes from, comma-separated. E.g. "
                       "--source 1a2b3c4d")
    @click.argument("memory_id", metavar="MEMORY_ID")
    @click.argument("text", nargs=-1, required=True, metavar="[--] TEXT")
    def memory_supersede(classification: str | None, source: str | None, memory_id: str,
                         text: tuple[str, ...]) -> Result:
        """MEMORY_ID is the ID or a unique prefix of it."""
        app = runtime().app()
        outcome = app.supersede_memory(memory_id, " ".join(text),
                                       classification=classification,
                                       sources=sources_list(source))
        outcome = explain_not_found(app, "memory", memory_id, outcome)
        return write_result(_notices(app, outcome, "memory", scope_given="kept"),
                            "Recorded")

    _status_command(memory, "invalid", "Invalidated", "Mark a claim invalid (it was wrong).",
                    "waymarks memory invalidate 1a2b3c4d measured: it is 5435")
    _status_command(memory, "expired", "Expired", "Mark a claim expired (it was right, and "
                    "no longer is).", "waymarks memory expire 1a2b3c4d")

    register_inspection(memory)
    from waymarks.commands.sources import register_sources

    register_sources(memory)
    return memory


def _status_command(memory: Group, status: Literal["invalid", "expired"], verb: str,
                    summary: str, example: str) -> None:
    name = "invalidate" if status == "invalid" else "expire"

    @command(memory, name, summary=summary, examples=[example],
             stores={"reason": "the reason"})
    @click.argument("memory_id", metavar="MEMORY_ID")
    @click.argument("reason", nargs=-1, metavar="[REASON]")
    def set_status(memory_id: str, reason: tuple[str, ...]) -> Result:
        """MEMORY_ID is the ID or a unique prefix of it; REASON (at most 500 characters)
        is kept with the claim."""
        app = runtime().app()
        outcome = app.set_memory_status(memory_id, status, " ".join(reason) or None)
        return write_result(explain_not_found(app, "memory", memory_id, outcome), verb)


# -- inspection: show, search, edit -------------------------------------------------------


def register_inspection(memory: Group) -> None:
    @command(memory, "show", summary="One claim in full, with its provenance: session, "
             "entry, source entries, supersession chain, classification, history.",
             examples=["waymarks memory show 1a2b3c4d", "waymarks memory show 1a2b --json"])
    @click.argument("memory_id", metavar="MEMORY_ID")
    def memory_show(memory_id: str) -> Result:
        """MEMORY_ID is the ID or a unique prefix of it; an ambiguous prefix lists the
        IDs it matches."""
        from waymarks.service.provenance import provenance

        app = runtime().app()
        found = resolve(app, "memory", memory_id)
        if not isinstance(found, str):
            return write_result(found, "")
        shown = provenance(app, "memory", found)
        if shown is None:  # gone meanwhile
            return refused("not_found", unknown_id("memory", found, "in this session or "
                                                   "project", "waymarks memory"))
        return Result(shown.to_json(), _provenance_text(app, shown))

    @command(memory, "search", summary="Claims ranked by how well they match QUERY, with "
             "their scores (not the digest recall would inject).",
             examples=["waymarks memory search database port",
                       "waymarks memory search --all deploy staging",
                       "waymarks memory search --limit 3 --json kafka retention"])
    @click.option("--all", "everything", is_flag=True,
                  help="Include superseded, invalid and expired claims. E.g. --all")
    @click.option("--limit", type=COUNT, default=10, metavar="N",
                  help="At most N results, best first. Default 10. E.g. --limit 25")
    @click.argument("query", nargs=-1, required=True, metavar="QUERY")
    def memory_search(everything: bool, limit: int, query: tuple[str, ...]) -> Result:
        """SCORE is the recall relevance, COVER the share of the query's terms the claim
        covers; RECALLED marks the claims `waymarks recall` would put in a digest (for
        the default provider: at most 3, none it may not receive: `withheld`)."""
        text = " ".join(query)
        if not text.strip():  # ("" answered "No claim matches.", 0: as `recall ""` refuses)
            raise click.UsageError("give the words to search for, e.g. waymarks memory "
                                   "search database port")
        app = runtime().app()
        scored = app.recall(text, inherit=False, privacy=False, every_candidate=True).scored
        if everything:  # and the best retired ones, apart: among them, they took every place
            shown = {s.candidate.id for s in scored}
            scored = [*scored, *(s for s in app.recall(
                text, inherit=False, privacy=False, every_candidate=True, every_status=True
            ).scored if s.candidate.id not in shown)]
        # the digest as `waymarks recall` makes it: the privacy rules on, the cap applied
        digest = app.recall(text, every_candidate=True)
        chosen, verdicts = set(digest.selected), digest.verdicts()
        ranked = sorted((s for s in scored if s.relevance > 0),
                        key=lambda s: (-s.relevance, s.candidate.id))
        views = {v.id: v for v in app.items("memory", ids=[s.candidate.id for s in ranked])} \
            if ranked else {}
        hits = [(s, views[s.candidate.id]) for s in ranked if s.candidate.id in views
                and (everything or views[s.candidate.id].status == "active")][:limit]
        data: dict[str, Any] = {"query": text, "results": [
            {"id": v.id, "score": round(s.relevance, 4), "coverage": round(s.coverage, 4),
             "recalled": s.candidate.id in chosen,
             "verdict": verdicts.get(s.candidate.id, WITHHELD if s.eligible else s.reason),
             "status": v.status, "scope": v.scope, "key": v.key, "text": v.text}
            for s, v in hits]}
        rows = [(f"{s.relevance:.3f}", f"{s.coverage:.0%}",
                 "yes" if result["recalled"] else
                 "withheld" if result["verdict"] == WITHHELD else "",
                 cell(v.id[:8]), _status(v), v.scope, cell(v.text))
                for result, (s, v) in zip(data["results"], hits, strict=True)]
        columns = [Column("SCORE", "right"), Column("COVER", "right"), Column("RECALLED"),
                   Column("ID"), Column("STATUS"), Column("SCOPE"), Column("TEXT", wide=True)]
        return table_result(data, columns, rows, kinds=[v.status for _s, v in hits],
                            empty="No claim matches.")

    @command(memory, "edit", summary="Edit a claim in $EDITOR; saving a changed text "
             "supersedes it (nothing is written otherwise).",
             examples=["waymarks memory edit 1a2b3c4d", "EDITOR=nano waymarks memory edit 1a2b"])
    @click.argument("memory_id", metavar="MEMORY_ID")
    def memory_edit(memory_id: str) -> Result:
        """Opens $VISUAL or $EDITOR on the claim's text. The new text replaces the claim
        through `memory supersede` (same rules: a conflict or a credential is refused).
        An unchanged or empty text writes nothing. Only when standard input and output
        are a terminal (not in Pi, not in a script: refused, exit 2)."""
        run = runtime()
        if not run.interactive:  # the command to use, whole (it said `memory supersede
            # MEMORY_ID`: no program, no ID); inside Pi, its /context
            from waymarks.core.text import shell_command

            prefix = click.get_current_context().find_root().info_name or "waymarks"
            return refused("invalid_argument", "memory edit opens an editor and needs a "
                           "terminal; from here, use `" + shell_command(
                               [prefix, "memory", "supersede", memory_id]) + " -- NEW TEXT`")
        app = run.app()
        found = resolve(app, "memory", memory_id)
        if not isinstance(found, str):
            return write_result(found, "")
        [view] = app.items("memory", ids=[found])
        run.progress.stop()  # the editor has the terminal now
        try:
            edited = click.edit(view.text + "\n", extension=".txt", require_save=True)
        except UnicodeDecodeError:
            return refused("invalid_argument", "the editor saved text that is not UTF-8; "
                           "nothing was written (save the file as UTF-8 and edit again)")
        except click.ClickException as exc:  # it could not start, or exited non-zero: not
            from waymarks.service.outcomes import ServiceError  # a usage error (exit 1)

            raise ServiceError("editor_failed", f"{exc.format_message()}; nothing was "
                               "written (set $VISUAL or $EDITOR to an editor that works, or "
                               "use `memory supersede ID -- NEW TEXT`)") from exc
        new = (edited or "").strip()
        if edited is None or new == view.text.strip():
            return Result({"outcome": "unchanged", "id": view.id, "code": None,
                           "conflicts": []}, "No change: nothing was written.")
        if not new:
            return refused("empty", "the edited text is empty; nothing was written (to "
                           "retire the claim: `waymarks memory invalidate ID`)")
        from waymarks.commands.stored_text import stray_in

        stray = stray_in({"text": new}, {"text": "the edited text"})
        if stray is not None:  # (an older claim's escape left in, or one typed)
            return stray
        outcome = app.supersede_memory(view.id, new)
        return write_result(_notices(app, outcome, "memory", scope_given="kept"),
                            "Recorded")


def _provenance_text(app: Waymarks, shown: Provenance) -> str:
    item = shown.item
    state = _status(item)
    if item.reason:
        state += f" ({cell(item.reason)})"
    if item.applies:
        state += "; applies on the active branch"
    lines = [f"Memory {cell(item.id)}", f"Status: {state}",
             f"Scope: {item.scope}" + (f" ({cell(app.cwd)})" if item.scope == "project" else ""),
             f"Key: {cell(item.key) or '-'}",
             f"Classification: {item.classification or 'none (counts as the default)'}",
             f"Created: {when(item.created_at)} UTC in session {cell(item.session_id)}, "
             f"entry {cell(item.entry_id)}",
             f"Updated: {when(shown.updated_at)} UTC"]
    if shown.sources:
        lines.append("Source entries: " + ", ".join(
            cell(s.id) + (f" ({cell(s.type)}, {cell(s.timestamp)})" if s.type
                          else " (not in this session)")
            for s in shown.sources))
    else:
        lines.append("Source entries: none")
    if len(shown.chain) > 1:
        lines.append("Supersession chain (oldest first):")
        lines += [f"  {'>' if v.id == item.id else ' '} {cell(v.id[:8])}  {v.status:<10} "
                  f"{when(v.created_at)}" for v in shown.chain]
        if shown.truncated:
            lines.append("  (cut: the chain is longer)")
    if item.conflicts_with:
        lines.append("Conflicted with: " + ", ".join(cell(i[:8]) for i in item.conflicts_with))
    lines.append("History:")
    lines += [f"  {when(e.at)}  {e.operation:<9} session {cell(e.session_id[:8])} entry "
              f"{cell(e.entry_id)}" + ("" if e.applied else f"  (ignored: {cell(e.note)})")
              for e in shown.events]
    # lines at "\n" alone: splitlines() also broke at CR, U+2028, NEL and the separators,
    # which then showed as line breaks, never as the escapes every other view shows
    lines += ["Text:", *(f"  {cell(line)}" for line in item.text.split("\n"))]
    return "\n".join(lines)
