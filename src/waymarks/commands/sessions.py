"""Sessions, trust, and the state of the house: ``session …``, ``trust``, ``untrust``,
``status``, ``health``, ``rebuild-index``."""

from __future__ import annotations

import math
import os
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from waymarks.commands.base import Column, Group, Result, command, runtime
from waymarks.commands.render import cell, refused, table_result
from waymarks.commands.results import EXIT_ERROR
from waymarks.service.helper_status import said as helper_said

if TYPE_CHECKING:
    from waymarks.service.views import SessionInfo


def session_json(info: SessionInfo) -> dict[str, Any]:
    return {"id": info.id, "path": info.path, "cwd": info.cwd, "created": info.created,
            "entries": info.entries, "leafId": info.leaf_id, "branch": list(info.branch)}


class Seconds(click.FloatRange):
    """A finite number of seconds, at least 0. ``nan`` passes ``FloatRange`` (every
    comparison with it is false), and as a deadline it never came: ``--wait --timeout
    nan`` waited for ever on a busy worker; ``inf`` (and ``1e400``) said the same."""

    name = "seconds"

    def __init__(self) -> None:
        super().__init__(min=0)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        return seconds


def session_group() -> Group:
    session = Group("session", default="show",
                    help="Session files of this directory: show the current one, start a "
                         "new one, list them, add a message, branch.",
                    examples=["waymarks session", "waymarks session new",
                              "waymarks session say \"We moved the database to 5433\""])

    @command(session, "show", summary="The current session and its active branch.",
             examples=["waymarks session show", "waymarks --session 1f88 session show"])
    def show() -> Result:
        info = runtime().app().session_show()
        text = (f"Session {cell(info.id)}\nFile: {cell(info.path)}\nCwd: {cell(info.cwd)}\n"
                f"Entries: {info.entries}\nLeaf: {cell(info.leaf_id)}\n"
                f"Active branch: {' > '.join(map(cell, info.branch)) or '(empty)'}")
        return Result({"session": session_json(info)}, text)

    @command(session, "new", summary="Start a new session for this directory (session-scoped "
             "pins and memory of the old one stop applying).",
             examples=["waymarks session new"])
    def new() -> Result:
        info = runtime().app().session_new()
        return Result({"session": session_json(info)}, f"New session {info.id}\n{cell(info.path)}")

    @command(session, "list", summary="Sessions of this directory, oldest first.",
             examples=["waymarks session list", "waymarks session list --json"])
    def list_() -> Result:
        infos = runtime().app().session_list()
        rows = [(cell(i.id), cell(i.created), str(i.entries)) for i in infos]
        return table_result({"sessions": [session_json(i) for i in infos]},
                            [Column("SESSION"), Column("CREATED"),
                             Column("ENTRIES", "right", wide=True)], rows,
                            empty="No sessions here.")

    @command(session, "say", summary="Append a user message entry; prints its entry ID, "
             "usable as --source.", stores={"text": "the message"},
             examples=["waymarks session say \"We moved the database to 5433\"",
                       "waymarks session say -- -1 is the sentinel"])
    @click.argument("text", nargs=-1, required=True, metavar="[--] TEXT")
    def say(text: tuple[str, ...]) -> Result:
        """TEXT is at most 4,000 characters, a pin's limit (it was taken at any length)."""
        said = " ".join(text)
        too_long = _past_limit(said, "The message")
        if too_long is not None:
            return too_long
        entry_id = runtime().app().session_say(said)
        return Result({"entryId": entry_id}, entry_id)

    @command(session, "branch", summary="Branch the session at an entry: later entries form "
             "a new branch (branch pins follow it).",
             stores={"summary": "--summary"},
             examples=["waymarks session branch 1a2b3c4d",
                       "waymarks session branch 1a2b3c4d --summary \"try the other parser\""])
    @click.option("--summary", metavar="TEXT",
                  help="A summary of the branch left behind, at most 4,000 characters. "
                       "E.g. --summary \"first try\"")
    @click.argument("entry_id", metavar="ENTRY_ID")
    def branch(summary: str | None, entry_id: str) -> Result:
        if not entry_id.strip():  # as every command given an empty ID says (not_found)
            return refused("invalid_argument", "the entry ID is empty; give one (list them "
                           "with `waymarks session show`); nothing changed")
        too_long = None if summary is None else _past_limit(summary, "The summary")
        if too_long is not None:
            return too_long
        entry = runtime().app().session_branch(entry_id, summary)
        return Result({"entryId": entry}, entry)

    return session


def _worker_progress(background: dict[str, Any]) -> str:
    """The background embedder's last progress, in words: a worker still at work says how
    far it is, and its pid, which stops it (``kill``) ("running, 120 of 400, pid 4242");
    one that ended says how it ended and what it embedded, if anything (a worker that
    found nothing missing had printed "done, 0 of ?")."""
    state, embedded = background["state"], background.get("embedded") or 0
    if state == "running":
        pid = f", pid {background['pid']}" if background.get("pid") else ""
        return f"running, {embedded} of {background.get('total') or '?'}{pid}"
    return f"{state}, {embedded} embedded" if embedded else str(state)


def _other_model(model: str, count: int) -> str:
    """Claims whose only vector is another model's (an engine upgrade): not used."""
    return (f"{count} claim(s) hold vectors of another model ({model}), not used: the "
            "background worker embeds them again (a recall or a write wakes it; `waymarks "
            "index --semantic` does it now)")


def _learning_said(learning: dict[str, Any], home_option: str, trusted: bool) -> str:
    """Status's line on learning: whether what the person says is captured here, and in
    a ``trusted`` project what the model and the tools wrote too (it named statements
    alone, while a trusted project's summaries and tool output were being learned)."""
    if learning["problem"]:
        return f"Learning: off ({cell(learning['problem'])})"
    if learning["projectOff"]:
        return "Learning: off here (this project's .waymarks/config.toml turns it off)"
    if learning["enabled"]:
        also = (", and in this trusted project compaction summaries and work turns' tool "
                "results" if trusted else "")
        return (f"Learning: on (statements you make are captured{also}; "
                f"`waymarks{home_option} learn off` turns it off)")
    return "Learning: off"


def register_house(root: click.Group) -> None:
    @command(root, "status", summary="Where things are, and what is in effect.",
             examples=["waymarks status", "waymarks status --json"])
    def status() -> Result:
        data = runtime().app().status()
        session = data["session"]
        lines = [f"Home: {cell(data['home'])}", f"Project: {cell(data['cwd'])} "
                 f"({'trusted' if data['projectTrusted'] else 'not trusted'})",
                 f"Session: {session['id'] if session else '(none yet)'}"]
        if data.get("sessionsProblem"):  # no session can be made there: not "none yet";
            # a session given by its path elsewhere is still the one in use, and named
            problem = cell(data["sessionsProblem"])
            lines[-1] = (f"Session: {session['id']} ({problem})" if session
                         else f"Session: (none: {problem})")
        for kind in ("pins", "memory"):
            tally = data[kind]
            lines.append(f"{kind.capitalize()}: {tally['applies']} in effect, "
                         f"{tally['total']} stored")
        semantic = data.get("semantic") or {}
        if semantic.get("available"):
            background = semantic.get("background") or {}
            lines.append(f"Hybrid recall: {semantic['vectors']} of {semantic['records']} "
                         "claims embedded" + (
                             f" (background: {_worker_progress(background)})"
                             if background else ""))
            lines += [f"  {_other_model(other, count)}"
                      for other, count in (semantic.get("otherModels") or {}).items()]
            if semantic.get("skipped"):  # the worker set them aside: recalled by their words
                lines.append(f"  {semantic['skipped']} claim(s) could not be embedded and "
                             "are recalled by their words only")
            if semantic.get("problem"):  # the worker's switch is not understood
                lines.append(f"  background worker: off ({semantic['problem']})")
            if semantic.get("keptFile"):  # a one-shot recall reads every vector row
                lines.append(f"  vectors for one-shot recalls: {semantic['keptFile']}")
        elif semantic.get("broken"):  # every recall fails until it is mended
            lines.append(f"Hybrid recall: {semantic['problem']}")
        elif semantic.get("problem"):
            lines.append(f"Hybrid recall: off ({semantic['problem']})")
        lines.append(_learning_said(data["learning"], runtime().home_option(data["home"]),
                                    bool(data["projectTrusted"])))
        if data.get("claudeCodeHelper") is not None:
            lines.append(helper_said(data["claudeCodeHelper"]))
        return Result(data, "\n".join(lines))

    @command(root, "health", summary="Checkpoints, skipped lines, unknown entries, the "
             "database's checks, and what was repaired.",
             examples=["waymarks health", "waymarks health --json"])
    def health() -> Result:
        """OK only when there is no problem. A damaged database is set aside and rebuilt
        from the session files; the report says so (REPAIRED) and where the old one is."""
        data, text = _health(runtime().app().health())
        if data["ok"]:
            return Result(data, text)
        # ATTENTION is an environment problem as any other: a script's `health || alert`
        # was never told (exit 0, with the problems listed)
        problems = data["problems"]
        message = (f"{len(problems)} problem(s) need attention (`problems`); the first: "
                   f"{problems[0]}" if problems else "the check found a problem")
        return Result({"outcome": "error", "id": None, "code": "attention", "conflicts": [],
                       "notices": [], "message": message, **data}, text, EXIT_ERROR,
                      report=True)

    @command(root, "rebuild-index", summary="Rebuild the database from the session files "
             "(a progress bar shows on a terminal).",
             examples=["waymarks rebuild-index", "waymarks rebuild-index --json"])
    def rebuild_index() -> Result:
        """The database is only a projection: this replays every session file into a
        fresh one, keeping the local exclusions of `memory exclude`."""
        run = runtime()
        app = run.app()
        with run.progress.bar("rebuild") as tick:  # each step named as it starts
            data = app.rebuild_index(tick, None if tick is None else tick.stage)
        text = f"Rebuilt from {data['sources']} session file(s): {data['mutations']} mutations"
        if data["unreadable"]:
            # one per line, as health lists its problems: each says a path, why and the
            # fix, with commas of its own (joined by ", " no one could tell where one ended)
            text += "\nUnreadable:" + "".join(f"\n  {cell(said)}" for said in data["unreadable"])
        if data["copiedFrom"]:  # (a `cp -a` copy: its database named the original's)
            text += ("\nNot read, left to the home this one was copied from (this home "
                     "holds each session's own file):"
                     + "".join(f"\n  {cell(path)}" for path in data["copiedFrom"]))
        if data["unsignedClaims"]:
            text += f"\n{unsigned_said(data['unsignedClaims'], 'rebuilt all the same')}"
        return Result(data, text)

    @command(root, "index", summary="Embed the stored memory for hybrid recall (needs the "
             "semantic extra; resumable, a progress bar shows on a terminal).",
             examples=["waymarks index --semantic", "waymarks index --semantic --json",
                       "waymarks index --semantic --wait"])
    @click.option("--semantic", is_flag=True, required=True,
                  help="Embed every memory claim that has no current vector. E.g. "
                       "waymarks index --semantic")
    @click.option("--wait", "wait", is_flag=True,
                  help="Embed nothing here: wait until the background worker has embedded "
                       "every claim (waking it if needed). E.g. waymarks index --semantic --wait")
    @click.option("--timeout", type=Seconds(), default=900.0, show_default=True,
                  help="With --wait (refused without it): give up after this many seconds. "
                       "E.g. --wait --timeout 60")
    def index(semantic: bool, wait: bool, timeout: float) -> Result:
        """Vectors are derived like the rest of the database: this computes the missing
        ones in committed batches, so an interrupted run continues where it stopped.
        Writes leave their claims to a background worker; --wait waits for it."""
        source = click.get_current_context().get_parameter_source("timeout")
        if not wait and source is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError("--timeout is only for --wait (how long to wait for the "
                                   "background worker); embedding here runs to the end: "
                                   "add --wait, or drop --timeout")
        run = runtime()
        if wait:
            from waymarks.service.semantic_recall import wait_for_vectors

            data = wait_for_vectors(run.app(), timeout)
        else:
            with run.progress.bar("embed") as tick:
                data = run.app().embed_recall(tick, waiting=partial(
                    click.echo, "waymarks: another `waymarks index --semantic` embeds in this "
                    "home: waiting for it to finish (if it is stopped, resume it with `fg` or "
                    "end it; what it embedded is kept)", err=True))
        # not usage errors (the command line is right): what this installation or its
        # worker cannot do now, exit 1 with a code of its own
        from waymarks.service.outcomes import ServiceError

        if not data["available"]:
            from waymarks.service.semantic_recall import missing_reason

            raise ServiceError("semantic_unavailable", data.get("problem") or missing_reason())
        waited = data.get("waited")
        if waited == "unavailable":
            raise ServiceError(
                "worker_off", "the background worker is switched off "
                f"({data.get('problem') or 'WAYMARKS_SEMANTIC_BACKFILL=off'}): run "
                "`waymarks index --semantic` to embed here instead")
        if waited == "blocked":
            raise ServiceError("worker_blocked", f"{data.get('problem')}; or run `waymarks "
                               "index --semantic` to embed here instead")
        if waited in ("timeout", "failed"):
            how = ("is still running" if waited == "timeout"
                   else "stopped without finishing (see waymarks status)")
            raise ServiceError(
                f"worker_{waited}", f"the background worker {how}: {data['vectors']} of "
                f"{data['records']} claims have a vector; run `waymarks index --semantic` to "
                "embed the rest here")
        if waited == "done":
            return Result(data, f"Background embedding done: {data['vectors']} of "
                                f"{data['records']} claims have a vector ({data['model']})")
        dropped = (f" (of them {data['dropped']} whose stored vector was damaged)"
                   if data.get("dropped") else "")
        unwritten = f"\nNot written: {data['keptFile']}" if data.get("keptFile") else ""
        return Result(data, f"Embedded {data['embedded']} claim(s){dropped}; "
                            f"{data['vectors']} of {data['records']} have a vector "
                            f"({data['model']}){unwritten}")

    @command(root, "trust", summary="Trust a project: project-scoped pins and memory apply "
             "in it and are shared between its sessions.",
             examples=["waymarks trust .", "waymarks trust ~/src/app", "waymarks trust --list"])
    @click.option("--list", "listing", is_flag=True,
                  help="List the trusted projects instead. E.g. waymarks trust --list")
    @click.argument("path", required=False, metavar="PATH")
    def trust(listing: bool, path: str | None) -> Result:
        if listing and path is not None:  # it was ignored: nothing trusted, nothing said
            raise click.UsageError("give either --list or a PATH to trust, not both")
        app = runtime().app()
        if listing:
            projects = app.trusted_projects()
            return Result({"projects": projects},
                          "\n".join(map(cell, projects)) or "No trusted projects.")
        if path is None:
            raise click.UsageError("give the project's PATH (or --list)")
        project, added = app.trust(path)
        return Result({"project": project, "changed": added},
                      f"{'Trusted' if added else 'Already trusted'}: {cell(project)}")

    @command(root, "untrust", summary="Stop trusting a project (its project items stop "
             "applying; nothing is deleted).", examples=["waymarks untrust ."])
    @click.argument("path", metavar="PATH")
    def untrust(path: str) -> Result:
        from waymarks.service.evolution_untrust import retire_untrusted

        app = runtime().app()
        project, removed = app.untrust(path)
        # its text still queued for the learning model is not the person's any more
        retired = retire_untrusted(app.home, project, dry_run=app.rehearsing)
        said = f"{'No longer trusted' if removed else 'Was not trusted'}: {cell(project)}"
        if removed and not os.path.isdir(project):  # (only its entry in the list was left)
            said += " (the folder no longer exists: its entry in the trust list is removed)"
        if isinstance(retired, str):  # the untrust holds: the model step checks it too
            said += (f"\nIts queued summaries and work turns were not retired now ("
                     f"{cell(retired)}); none will be sent: the learning model's step "
                     "retires them first")
        elif retired:
            said += (f"\nRetired {retired} queued summary or work source(s) of it: none will "
                     "be sent to the learning model (the ledger keeps them)")
        return Result({"project": project, "changed": removed, "retiredSources":
                       retired if isinstance(retired, int) else None}, said)


def _past_limit(text: str, what: str) -> Result | None:
    """The refusal of a session entry's ``text`` past 4,000 characters, a pin's limit, in
    a pin's words (`session say` and `session branch --summary` took any length)."""
    from waymarks.core.decisions import Rejected, clean_text
    from waymarks.core.model import MAX_PIN_CHARS

    long = clean_text(text, what=what, limit=MAX_PIN_CHARS)
    if isinstance(long, Rejected) and long.code == "too_long":
        return refused(long.code, long.message)
    return None


def _health(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    counts = data["anomalyCounts"]
    recovered = data.get("recovered")
    verdict = "OK" if data["ok"] else "ATTENTION"
    if recovered and data["ok"]:
        verdict = "OK after a repair"
    lines = [f"{verdict}: schema v{data['schemaVersion']}, integrity {data['integrity']}, "
             f"{data['mutations']} mutations ({data['ignoredMutations']} ignored)",
             *repair_lines(data)]
    lines.append(f"Lines skipped: {counts['skipped']}, unknown entries: {counts['unknown']}, "
                 f"malformed payloads: {counts['malformed']}")
    lines += [f"  problem: {cell(problem)}" for problem in data["problems"]]
    if data.get("unsignedClaims"):
        lines.append(f"  {unsigned_said(data['unsignedClaims'])}")
    lines += [f"  hybrid recall: {_other_model(other, count)}"
              for other, count in (data.get("otherModelVectors") or {}).items()]
    for source in data["sources"]:
        state = "missing" if not source["exists"] else "unreachable" \
            if source["fileSize"] is None else f"{source['unreadBytes']} bytes unread"
        if source["status"] != "available":
            state += f", {source['status']}: project items held back"
        lines.append(f"  {cell(source['sessionId'])}: checkpoint {source['checkpointOffset']} "
                     f"({state}), {source['entries']} entries")
    if data.get("session", {}).get("partialTailBytes"):
        lines.append(f"  half-written last line: {data['session']['partialTailBytes']} bytes "
                     "(skipped; the next write terminates it)")
    for anomaly in data["anomalies"]:
        lines.append(f"  line {anomaly['line']} ({anomaly['kind']}): {cell(anomaly['detail'])}")
    if data.get("claudeCodeHelper") is not None:
        lines.append(helper_said(data["claudeCodeHelper"]))
    return data, "\n".join(lines + _learned_ledger(data.get("learnedLedger")))


def unsigned_said(ids: list[str], also: str = "in memory and recall all the same") -> str:
    """The claims left out of the contradiction check (their signature failed), by ID."""
    return (f"{len(ids)} claim(s) left out of the contradiction check (their text could not "
            f"be read as a fact; {also}): {', '.join(cell(i) for i in ids)}")


def repair_lines(data: dict[str, Any]) -> list[str]:
    """What a health report says of damaged databases: the one this process set aside and
    rebuilt, and the copies set aside before (the web inspector's summary says them too)."""
    recovered = data.get("recovered")
    lines = []
    if recovered:
        lines.append(f"REPAIRED: the database could not be used ({recovered['problem']}); it was "
                     f"set aside as {recovered['damaged']} and rebuilt from the session files"
                     ". Nothing in the session files was lost; delete the set-aside copy "
                     "once you no longer need it.")
    earlier = [p for p in data.get("damagedCopies") or [] if not recovered
               or p != recovered.get("damaged")]
    if earlier:
        lines.append(f"Set aside earlier: {', '.join(earlier)} (damaged databases kept for "
                     "inspection; safe to delete)")
    return lines


def _learned_ledger(ledger: dict[str, Any] | None) -> list[str]:
    """What of the learned ledger was not used (listed only when something was not)."""
    if not ledger or not (ledger["partialTailBytes"] or any(ledger["anomalyCounts"].values())):
        return []
    counts = ledger["anomalyCounts"]
    lines = [f"Learned ledger {ledger['path']}: lines skipped: {counts['skipped']}, entries "
             f"not understood: {counts['unknown']}"]
    if ledger["partialTailBytes"]:
        lines.append(f"  half-written last line: {ledger['partialTailBytes']} bytes "
                     "(skipped; the next capture terminates it)")
    for anomaly in ledger["anomalies"]:
        where = f"line {anomaly['line']}" if anomaly["line"] else f"entry {anomaly['entryId']}"
        lines.append(f"  {where} ({anomaly['kind']}): {anomaly['detail']}")
    return lines
