"""``waymarks evolution list|search|show|history|explain|learning`` (read-only) and
``waymarks evolution forget|correct|undo|conflict|resolve|pin|unpin|adopt|feedback`` plus
the top-level ``waymarks feedback ID VERDICT``: inspecting and editing learned memory
(EVOLUTION items 34, 71-74, 76).

All take ``--json``. A refusal exits 2 with a fixed code and says what to do; it changes
nothing. Edits print the event they made (``undo EVENT`` takes it back). Forget is logical,
not secure erasure. The service is imported inside each command, so help stays quick.
"""

from __future__ import annotations

from typing import Any

import click

from waymarks.commands.base import Column, Group, Result, command, runtime
from waymarks.commands.options import Whole
from waymarks.commands.render import cell, refused, table_result
from waymarks.core.codec import INT64_MAX
from waymarks.core.text import typed_id

VERDICT_HELP = "useful | unhelpful | accurate | incorrect"


def _edit(call: Any, create: bool = False, retired: str | None = None) -> Result:
    """Run an edit against the home's evolution state and turn its outcome into a Result
    (``create``: the evolution ledger may be created, for an import). ``retired``: the ID
    a forget was given, which may be a pin's or memory's (the command that retires one
    is named: :func:`~waymarks.service.item_refs.not_learned`)."""
    from waymarks.service.evolution import evolution_for
    from waymarks.service.item_refs import not_learned
    from waymarks.service.learning import has_ledger

    app = runtime().app()
    if not create and not has_ledger(app.home):
        return refused("not_found", (retired and not_learned(app, retired)) or
                       "nothing has been learned yet; see `waymarks learn status`")
    with evolution_for(app) as evo:  # a rehearsal checks everything, appends nothing
        outcome = call(evo)
    hint = not_learned(app, retired) if retired and outcome.code == "not_found" \
        and not outcome.data else None
    if hint is not None:
        return refused("not_found", hint)
    if not outcome.ok:  # with what the refusal names (a legacy ID's new IDs)
        shown = refused(outcome.code, outcome.message)
        return Result({**shown.data, **outcome.data}, shown.text, shown.exit_code)
    return Result({"outcome": "done", **outcome.to_json()}, outcome.message)


def _feedback(claim_id: str, verdict: str) -> Result:
    from waymarks.service.evolution_edits import feedback

    return _edit(lambda evo: feedback(evo, typed_id(claim_id), verdict))


def _claim_rows(claims: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    return [(c["id"], c["kind"], c["state"] + (" (dormant)" if c["aging"]["dormant"] else ""),
             cell(c["origin"]), c["evidence"]["at"][:10], cell(c["content"]))
            for c in claims]


CLAIM_COLUMNS = [Column("ID"), Column("KIND"), Column("STATE"), Column("ORIGIN"),
                 Column("UPDATED"), Column("CLAIM", wide=True)]


def _no_claims(scope: str, page: int, total: int, size: int) -> str:
    """What an empty page of ``evolution list`` says: it said "No learned claims here." for
    a page past the last (the claims were on page 1) and for ``legacy`` alike."""
    what = {"all": "learned claims", "here": "learned claims from this directory",
            "legacy": "legacy (imported, without origin) claims"}[scope]
    if total:
        pages = -(-total // size)
        return f"No {what} on page {page}: {total} in all, on page{'s' if pages > 1 else ''} " \
               f"1{f'-{pages}' if pages > 1 else ''}."
    return f"No {what}."


def register_inspection(root: Group) -> None:
    """Add the inspection and edit commands to ``evolution`` and ``feedback`` to ``root``."""
    group = root.commands["evolution"]
    assert isinstance(group, Group)

    @command(group, "list", summary="Learned claims in every state, 20 per page, newest "
             "update first: all origins (default), this project (here) or imported "
             "(legacy).", examples=["waymarks evolution list", "waymarks evolution list here",
                                    "waymarks evolution list all --page 2 --json"])
    @click.argument("scope", required=False, default="all",
                    type=click.Choice(["all", "here", "legacy"]))
    @click.option("--page", type=Whole(1, INT64_MAX), default=1, show_default=True,
                  help="Which page of 20. E.g. --page 2")
    def list_(scope: str, page: int) -> Result:
        from waymarks.service.evolution_inspect import list_claims

        app = runtime().app()
        data = list_claims(app.home, scope, page, app.cwd)
        footer = [f"Left out (malformed rows; `waymarks evolution forget ID` accepts "
                  f"them): {', '.join(data['badRows'])}"] if data["badRows"] else []
        return table_result(data, CLAIM_COLUMNS, _claim_rows(data["claims"]), footer=footer,
                            empty=_no_claims(scope, page, int(data["total"]),
                                             int(data["pageSize"])))

    @command(group, "search", summary="Up to 10 recallable learned claims the query is "
             "about, from every origin (dormant ones too: you asked).",
             examples=["waymarks evolution search deploy tool"])
    @click.argument("query", nargs=-1, required=True)
    def search_(query: tuple[str, ...]) -> Result:
        from waymarks.service.evolution_inspect import search

        data = search(runtime().app().home, " ".join(query))
        return table_result(data, CLAIM_COLUMNS, _claim_rows(data["claims"]),
                            empty="No learned claim matches.")

    @command(group, "show", summary="One learned claim: provenance, evidence, feedback, "
             "aging and its events.", examples=["waymarks evolution show 3f2a9c0d1e4b5a6978877665"])
    @click.argument("claim_id", metavar="ID")
    def show_(claim_id: str) -> Result:
        from waymarks.service.evolution_inspect import show_or_match

        data, match = show_or_match(runtime().app().home, typed_id(claim_id))
        if data is None:
            if match is not None:  # a legacy ID that became several claims: name them
                shown = refused("not_found", str(match["message"]))
                return Result({**shown.data, **match}, shown.text, shown.exit_code)
            from waymarks.service.item_refs import no_claim, not_learned

            # a pin's or claim's ID named as such, as forget names it
            return refused("not_found", not_learned(runtime().app(), claim_id)
                           or no_claim(claim_id))
        aging = data["aging"]
        looked = data.get("lookedUp")
        lines = ([f"legacy ID {looked['legacyId']} (pi-memory-evolution) is now {data['id']}"]
                 if looked else []) + [
                 f"{data['id']} {data['kind']} {data['state']}",
                 f"claim: {cell(data['content'])}", f"origin: {cell(data['origin'])}",
                 f"evidence: {data['evidence']['basis']}/{data['evidence']['method']} from "
                 f"{cell(data['evidence']['sourceId'])} at {cell(data['evidence']['at'])}",
                 f"aging: {aging['ageDays']} days since confirmation, freshness "
                 f"{aging['freshness']}{', dormant (not injected)' if aging['dormant'] else ''}"]
        for slot in ("utility", "accuracy"):
            if data["feedback"][slot]:
                lines.append(f"{slot}: {data['feedback'][slot]['verdict']} at "
                             f"{data['feedback'][slot]['at']}")
        if data.get("legacyIds"):
            lines.append("legacy IDs (pi-memory-evolution): "
                         + cell(", ".join(data["legacyIds"])))
        lines += [f"event {e['event']}: {e['op']} by {cell(e['actor'])} at {cell(e['at'])} "
                  f"({cell(e['reason'])})" for e in data["events"]]
        return Result(data, "\n".join(lines))

    @command(group, "history", summary="The latest events that changed learned claims, "
             "across every origin (newest first).",
             examples=["waymarks evolution history", "waymarks evolution history --limit 30"])
    @click.option("--limit", type=Whole(1, 500), default=10, show_default=True,
                  help="How many events. E.g. --limit 30")
    @click.option("--claim", "claim_id", default=None, metavar="ID",
                  help="Only events of this claim. E.g. --claim 3f2a9c0d1e4b5a6978877665")
    def history_(limit: int, claim_id: str | None) -> Result:
        from waymarks.service.evolution_inspect import history

        data = history(runtime().app().home, limit,
                       None if claim_id is None else typed_id(claim_id))
        if data.pop("known", True) is False:
            from waymarks.service.item_refs import no_claim

            return refused("not_found", no_claim(claim_id or ""))
        # what the learned ledger holds as free text (a hand edit can put a line break,
        # a terminal escape in an actor or a claim ID) is escaped, as every table's text
        rows = [(str(e["event"]), e["op"], cell(e["actor"]), cell(e["at"]), cell(e["reason"]),
                 cell(", ".join(f"{c['claim']} {c['before'] or 'none'}->{c['after'] or 'none'}"
                                for c in e["changes"])))  # (none: no claim before, or after)
                for e in data["events"]]
        return table_result(data, [Column("EVENT", "right"), Column("OP"), Column("ACTOR"),
                                   Column("AT"), Column("REASON"),
                                   Column("CHANGES", wide=True)], rows,
                            empty="No event has changed a learned claim.")

    @command(group, "learning", summary="What the latest captures decided: each source's "
             "kind, origin, decision and claims (no text).",
             examples=["waymarks evolution learning --json"])
    def learning_() -> Result:
        from waymarks.service.evolution_inspect import learning

        data = learning(runtime().app().home)
        rows = [(cell(s["sourceId"]), s["kind"], cell(s["origin"]), cell(s["decision"]),
                 str(s["claims"]))
                for s in data["sources"]]
        from waymarks.commands.evolution_observe import learning_lines

        return table_result(data, [Column("SOURCE"), Column("KIND"), Column("ORIGIN"),
                                   Column("DECISION"), Column("CLAIMS", "right")], rows,
                            footer=learning_lines(data), empty="Nothing captured yet.")

    @command(group, "explain", summary="Why automatic injection picks what it picks, with "
             "scores and features but no claim text. With QUERY, a preview for that query; "
             "without, the last automatic recall of this process (inside Pi: the last turn).",
             examples=["waymarks evolution explain which deploy tool",
                       "waymarks evolution explain"])
    @click.argument("query", nargs=-1)
    def explain_(query: tuple[str, ...]) -> Result:
        from waymarks.commands.recalling import explain_text
        from waymarks.service.evolution_recall import last_snapshot

        if not query:
            snapshot = last_snapshot()
            if snapshot is None:
                return refused("not_found", "no automatic recall has run in this process: "
                               "the last snapshot is kept in memory by the host process only "
                               "(in Pi: /context evolution explain); pass a QUERY to preview")
            return Result(dict(snapshot), f"at {snapshot['at']}\n{explain_text(snapshot)}")
        from waymarks.personal.setup import personal_index
        from waymarks.service.planning import explain_injection

        # previewed for the plan's destination, as injection ranks and the plan chooses
        app = runtime().app()
        data = explain_injection(app, " ".join(query), personal_index(app))
        return Result(data, explain_text(data))

    @command(group, "forget", summary="Forget a learned claim and its exact same-origin "
             "duplicates; its text is never learned again in that origin (logical, not "
             "secure erasure).", examples=["waymarks evolution forget 3f2a9c0d1e4b5a6978877665"])
    @click.argument("claim_id", metavar="ID")
    def forget_(claim_id: str) -> Result:
        from waymarks.service.evolution_edits import forget

        return _edit(lambda evo: forget(evo, typed_id(claim_id)), retired=claim_id)

    @command(group, "correct", summary="Replace a learned claim's text with your correction "
             "(4-800 characters); a manual correction outranks anything learned.",
             examples=["waymarks evolution correct 3f2a9c0d1e4b5a6978877665 -- The port is "
                       "8443"])
    @click.argument("claim_id", metavar="ID")
    @click.argument("text", nargs=-1, required=True)
    def correct_(claim_id: str, text: tuple[str, ...]) -> Result:
        from waymarks.service.evolution_edits import correct

        return _edit(lambda evo: correct(evo, typed_id(claim_id), " ".join(text)))

    @command(group, "undo", summary="Undo one event (see `history`), only if what it "
             "changed is unchanged since; suppressions and feedback receipts stay.",
             examples=["waymarks evolution undo 42"])
    @click.argument("event", type=Whole(1, INT64_MAX, "an event's number, as `waymarks "
                                                   "evolution history` lists them"))
    def undo_(event: int) -> Result:
        from waymarks.service.evolution_edits import undo

        return _edit(lambda evo: undo(evo, event))

    @command(group, "conflict", summary="Mark two learned claims as contradicting each "
             "other: neither is recalled until one is resolved.",
             examples=["waymarks evolution conflict 3f2a9c0d1e4b5a6978877665 "
                       "0a1b2c3d4e5f60718293a4b5"])
    @click.argument("a", metavar="A")
    @click.argument("b", metavar="B")
    def conflict_(a: str, b: str) -> Result:
        from waymarks.service.evolution_edits import conflict

        return _edit(lambda evo: conflict(evo, typed_id(a), typed_id(b)))

    @command(group, "resolve", summary="Recall a conflicted learned claim again (its "
             "partner stays conflicted).",
             examples=["waymarks evolution resolve 3f2a9c0d1e4b5a6978877665"])
    @click.argument("claim_id", metavar="ID")
    def resolve_(claim_id: str) -> Result:
        from waymarks.service.evolution_edits import resolve

        return _edit(lambda evo: resolve(evo, typed_id(claim_id)))

    @command(group, "pin", summary="Pin a learned claim: kept fresh, never dormant, never "
             "replaced by the model (no credibility bonus; a conflict stays one). Undoable.",
             examples=["waymarks evolution pin 3f2a9c0d1e4b5a6978877665"])
    @click.argument("claim_id", metavar="ID")
    def pin_(claim_id: str) -> Result:
        from waymarks.service.evolution_edits import pin

        return _edit(lambda evo: pin(evo, typed_id(claim_id), True))

    @command(group, "unpin", summary="Unpin a learned claim (it ages and can be replaced "
             "again).", examples=["waymarks evolution unpin 3f2a9c0d1e4b5a6978877665"])
    @click.argument("claim_id", metavar="ID")
    def unpin_(claim_id: str) -> Result:
        from waymarks.service.evolution_edits import pin

        return _edit(lambda evo: pin(evo, typed_id(claim_id), False))

    @command(group, "adopt", summary="Label a legacy learned claim (imported without an "
             "origin) with this directory; optional: legacy claims are recalled anyway. Its "
             "evidence dates stay; undoable.",
             examples=["waymarks evolution adopt 3f2a9c0d1e4b5a6978877665"])
    @click.argument("claim_id", metavar="ID")
    def adopt_(claim_id: str) -> Result:
        from waymarks.service.evolution_edits import adopt

        directory = str(runtime().app().cwd)
        return _edit(lambda evo: adopt(evo, typed_id(claim_id), directory))

    @command(group, "feedback", summary=f"Your verdict on a learned claim: {VERDICT_HELP}. "
             "`incorrect` quarantines it (undo brings it back).",
             examples=["waymarks evolution feedback 3f2a9c0d1e4b5a6978877665 incorrect"])
    @click.argument("claim_id", metavar="ID")
    @click.argument("verdict", metavar="VERDICT")
    def group_feedback(claim_id: str, verdict: str) -> Result:
        return _feedback(claim_id, verdict)

    @command(group, "import", summary="Import pi-memory-evolution's memory.sqlite (schemas "
             "2-7), or its memories.jsonl and memory-actions.jsonl, from DIR, once (only "
             "read, never changed; invalid rows stop the import with nothing written).",
             examples=["waymarks evolution import ~/.pi/agent/memory-evolution"])
    @click.argument("directory", metavar="DIR")
    def import_(directory: str) -> Result:
        from pathlib import Path

        from waymarks.service.evolution_edits import import_legacy

        if runtime().read_file is None:  # a host's slash command: no local files
            return refused("unavailable", "importing reads local files; run `waymarks "
                           "evolution import DIR` in a terminal")
        path = Path(directory).expanduser()
        if not path.is_dir():
            return refused("not_found", f"{cell(str(path))} is not a directory")
        return _edit(lambda evo: import_legacy(evo, path), create=True)

    @command(group, "archive-legacy", summary="After an import, copy pi-memory-evolution's "
             "memories.jsonl and memory-actions.jsonl from DIR into DIR/waymarks-archive-TIME "
             "(a backup: the originals stay; only the ledgers that were imported).",
             examples=["waymarks evolution archive-legacy ~/.pi/agent/memory-evolution"])
    @click.argument("directory", metavar="DIR")
    def archive_legacy_(directory: str) -> Result:
        from pathlib import Path

        from waymarks.service.evolution_edits import archive_legacy

        if runtime().read_file is None:  # a host's slash command: no local files
            return refused("unavailable", "archiving copies local files; run `waymarks "
                           "evolution archive-legacy DIR` in a terminal")
        path = Path(directory).expanduser()
        if not path.is_dir():
            return refused("not_found", f"{cell(str(path))} is not a directory")
        return _edit(lambda evo: archive_legacy(evo, path))

    @command(root, "feedback", summary=f"Your verdict on a learned claim: {VERDICT_HELP}. "
             "`incorrect` quarantines it with its same-origin duplicates.",
             examples=["waymarks feedback 3f2a9c0d1e4b5a6978877665 useful"])
    @click.argument("claim_id", metavar="ID")
    @click.argument("verdict", metavar="VERDICT")
    def feedback_(claim_id: str, verdict: str) -> Result:
        return _feedback(claim_id, verdict)
