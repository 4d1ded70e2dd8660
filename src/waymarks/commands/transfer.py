"""``waymarks export`` and ``waymarks import``: pins and memory as JSON Lines, with
provenance, between homes, machines or projects.

Format (``waymarks-export-v1``): one JSON object per line, each an item as lists show it
in ``--json`` (``id``, ``kind``, ``scope``, ``status``, ``key``, ``classification``,
``text``, ``createdAt``, ``updatedAt``, ``sessionId``, ``entryId``, ``sourceEntryIds``,
``supersedes``, ``supersededBy``, ``reason``, …) plus ``"format"``, ``project`` and
``givenKey``: the key the memory was written with, ``null`` when its ``key`` is the one
derived from its text. Import writes ``givenKey`` (a derived key imported as given
behaved otherwise: a later claim it did not contradict was refused, and a supersede
kept it); a line without it (an export before it) gives ``key``, unless that is the key
its text derives, which is left to be derived again.

What must stay true for import:

- it writes only through the service's write methods, so every rule of a typed write
  holds (a conflict is refused with the IDs involved, a duplicate is reported with the
  existing ID, a credential is refused, project scope needs a trusted project);
- nothing is written unless every line can be: a malformed line (a status no export
  writes, such as a typo; another format version, named), or an item the rules
  refuse against the current state and the lines before it (checked first with the
  service's dry run of them all, in order: two lines of the file that conflict are
  refused, a repeated line is a duplicate of the first), refuses the whole import (exit
  2) and names each line; only a store changed by another process between that check
  and the writes can leave some lines written (``partial``, exit 1), said line by line;
- an item that is not active (superseded, invalid, expired, deleted) and a branch pin
  (its branch belongs to another conversation) are reported as skipped; source entry IDs
  of another session cannot be kept (the original session and entry stay in the file).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from waymarks.commands.base import EXIT_REJECTED, Result, command, runtime
from waymarks.commands.options import KIND_STATUSES
from waymarks.commands.render import cell, refused
from waymarks.commands.results import EXIT_ERROR, EXIT_INTERRUPTED, interrupts_deferred
from waymarks.commands.transfer_lines import FORMAT, MAX_IMPORT_BYTES, STATUSES, Line, parse
from waymarks.core.egress import json_line
from waymarks.core.text import normalize
from waymarks.files.atomic import NotARegularFile, write_atomic
from waymarks.files.errors import fix_for, os_error_cause
from waymarks.files.paths import resolved

#: the lines an import writes under one hold of the session's lock, flushed to disk once
#: (a flush a line was most of an import's time)
HELD_LINES: Final = 64

if TYPE_CHECKING:  # the service is imported when a command runs, not for help
    from collections.abc import Callable

    from waymarks.core.decisions import Decision, WriteContext
    from waymarks.core.model import MemoryMutation, PinMutation
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import ServiceError, WriteOutcome


def register_transfer(root: click.Group) -> None:
    @command(root, "export", summary="Write pins and memory as JSON Lines, with provenance "
             "(to standard output, or a file).",
             examples=["waymarks export > memory.jsonl",
                       "waymarks export --kind memory --status active -o facts.jsonl",
                       "waymarks export --json"])
    @click.option("--kind", type=click.Choice(["all", "pin", "memory"], case_sensitive=False),
                  default="all", show_default=True,
                  help="Which items to export. E.g. --kind memory")
    @click.option("--status", "statuses", multiple=True, metavar="STATUS",
                  type=click.Choice(STATUSES, case_sensitive=False),
                  help="Only items in this status (repeat for several; default all, so the "
                       "history travels too). E.g. --status active")
    @click.option("-o", "--output", metavar="FILE",
                  help="Write to FILE (replaced atomically; only a regular file or a new "
                       "name, never a link, FIFO or device) instead of standard output "
                       "(- is standard output). E.g. -o memory.jsonl")
    def export(kind: str, statuses: tuple[str, ...], output: str | None) -> Result:
        """With --json the items come as one JSON document ({"format", "items"}) instead
        of one per line."""
        if output is not None and not output.strip():  # "" named the working directory
            raise click.UsageError("-o needs a FILE (or - for standard output)")
        if kind.lower() != "all" and (wrong := [s for s in statuses if s.lower() not in
                                                KIND_STATUSES[kind.lower()]]):
            # as `pins --status expired` is: it wrote an empty export, exit 0
            raise click.UsageError(f"--status {wrong[0]}: no {kind.lower()} has that status "
                                   f"(a {kind.lower()}'s: "
                                   f"{', '.join(KIND_STATUSES[kind.lower()])}); nothing was "
                                   "written")
        if output is not None and output.startswith("-") and output != "-":
            # `export -o --json` wrote the items to a file named "--json": an option typed
            # where the file was expected, almost always a slip
            raise click.UsageError(f"-o {cell(output)}: that is an option, not a FILE; nothing "
                                   f"was written (for a file of that name give ./{output})")
        app = runtime().app()
        if output is not None and output != "-" and resolved(Path(output).expanduser()) is None:
            return refused("invalid_argument", f"-o {cell(output)}: a loop of symbolic links; "
                           "nothing was written (write to a regular file, or to standard "
                           "output with -o - or no -o)")
        if output is not None and output != "-" and (kept := _kept_by_waymarks(app, output)):
            return refused("invalid_argument", f"-o {cell(output)}: {kept}, where Waymarks "
                           "keeps its own files (records, database, settings, team ledger, "
                           "personal memory); nothing was written (give a path outside it)")
        items = _exported(app, kind, statuses)
        # one item per line under every line-splitting rule: U+2028, U+2029 and NEL, which
        # JSON leaves raw, are escaped (a reader splitting on them read no line at all)
        lines = "".join(json_line(i) + "\n" for i in items)
        if output is None or output == "-":
            return Result({"format": FORMAT, "items": items}, lines.rstrip("\n"),
                          produced=True)
        try:
            write_atomic(Path(output), lines, mode=0o600)  # an export holds stored text
        except NotARegularFile as exc:  # a FIFO, a device, a link: never replaced
            return refused("invalid_argument", f"-o {cell(output)}: {exc.strerror}; nothing was "
                           "written (write to a regular file, or to standard output with "
                           "-o - or no -o)")
        except (FileNotFoundError, NotADirectoryError):  # (named its temporary file)
            return refused("invalid_argument", f"-o {cell(output)}: its directory does not exist; "
                           "nothing was written (create it, or give another path)")
        except OSError as exc:  # a full disk, no permission: the path given, not the temp
            raise OSError(exc.errno, exc.strerror, output) from exc
        return Result({"format": FORMAT, "path": output, "count": len(items)},
                      f"Exported {len(items)} item(s) to {cell(output)}")

    @command(root, "import", summary="Add pins and memory from an export, through the same "
             "rules as every write.",
             examples=["waymarks import memory.jsonl", "waymarks export | waymarks --cwd "
                       "../other import -", "waymarks import --dry-run memory.jsonl"])
    @click.option("--dry-run", is_flag=True,
                  help="Only say what would be written, refused and skipped. E.g. --dry-run")
    @click.argument("source", metavar="FILE|-")
    def import_(dry_run: bool, source: str) -> Result:
        """Active items become new pins and claims of this session (or project, for
        project items in a trusted project); refused, duplicate and skipped lines are
        listed. Nothing is written unless every line can be (see `--dry-run`)."""
        run = runtime()
        parsed = parse(_read(run, source))  # (the text is not kept past this)
        if isinstance(parsed, Result):
            return parsed
        wanted, skipped = parsed
        from waymarks.core.model import MemoryMutation, PinMutation
        from waymarks.service.outcomes import Duplicate, Rejected, ServiceError

        app = run.app()
        report: list[dict[str, Any]] = [
            {"line": line.number, "originalId": line.original_id, "outcome": "skipped",
             "reason": why} for line, why in skipped]
        # each line against what is stored and the lines before it, as writing them in
        # order would decide: lines that conflict with one another refuse the import too
        with run.progress.bar("check") as tick:
            checked = list(zip(wanted, app.dry_run_all([_decide(line) for line in wanted],
                                                       tick), strict=True))
        earlier = {d.item.id: line.number for line, d in checked
                   if isinstance(d, PinMutation | MemoryMutation) and d.item is not None}
        refusals = [(line, d) for line, d in checked if isinstance(d, Rejected)]
        duplicates = [(line, d) for line, d in checked if isinstance(d, Duplicate)]
        report += [_entry(line, d, earlier) for line, d in refusals + duplicates]
        planned = [(line, d) for line, d in checked if isinstance(d, PinMutation | MemoryMutation)]
        writable = [line for line, _d in planned]
        if refusals or dry_run:
            # what each line would write, to vet a file from elsewhere before importing it,
            # and what it would supersede (a stored item, or an earlier line's)
            report += [{"line": line.number, "originalId": line.original_id,
                        "outcome": "would-write" if not refusals else "not-written",
                        "kind": line.kind, "scope": line.scope, "key": _planned_key(d),
                        "classification": line.classification, "text": line.text,
                        **_supersedes(d.operation, d.previous_id, earlier, made=False)}
                       for line, d in planned]
            return _summary(report, wrote=False, dry_run=dry_run)
        from waymarks.commands.notices import note_pin_budget, with_write_notices
        from waymarks.service.write_path import writes_held

        done = 0
        failure: ServiceError | OSError | None = None
        made: dict[str, int] = {}  # the IDs the lines written so far were given
        flushed = len(report)  # the report's entries up to here are on disk
        holding = False  # whether a hold is open (its lines not flushed yet)
        with run.progress.bar("import") as tick, interrupts_deferred() as interrupted, \
                contextlib.ExitStack() as hold:
            for line in writable:
                if interrupted:  # Ctrl-C: stop between two lines, and say where
                    break
                try:
                    # the lines so far flushed, the lock taken again (others' writes wait
                    # at most so many lines; after the first, which may make the session)
                    if done % HELD_LINES == 0 or done == 1:
                        if holding:  # (raising: the flush failed, ``flushed`` stays)
                            holding = False
                            hold.close()
                        flushed = len(report)
                        hold.enter_context(writes_held(app))
                        holding = True
                    # what a typed write of the line would note (the file gives the scope)
                    report.append(_entry(line, with_write_notices(
                        app, _write(app, line), line.kind, scope_given=line.scope), made))
                except (ServiceError, OSError) as exc:
                    if not done:
                        raise  # nothing written: the command's own error says so
                    failure = exc  # (a full disk): say which lines were written
                    break
                if report[-1]["outcome"] == "imported":
                    made[report[-1]["id"]] = line.number
                done += 1
                if tick is not None:
                    tick(done, len(writable))
            try:
                if holding:  # the last lines flushed before any is reported
                    hold.close()
                    flushed = len(report)
            except OSError as exc:
                failure = failure or exc
        # a flush that failed (EIO) confirmed none of the lines held since the last one
        report[flushed:] = [_unconfirmed(e) for e in report[flushed:]]
        note_pin_budget(app, report)  # as a typed pin notes it
        if interrupted or failure is not None:
            report += [{"line": line.number, "originalId": line.original_id,
                        "outcome": "not-written", "kind": line.kind}
                       for line in writable[done:]]
        return _summary(report, wrote=True, dry_run=False, interrupted=bool(interrupted),
                        failure=failure)


def _unconfirmed(entry: dict[str, Any]) -> dict[str, Any]:
    """A written line's entry when the flush that was to make it durable failed: not
    written, as a line whose own write failed is (importing again adds it, or finds it a
    duplicate); a refusal or duplicate wrote nothing and stays."""
    if entry["outcome"] != "imported":
        return entry
    return {"line": entry["line"], "originalId": entry["originalId"],
            "outcome": "not-written", "kind": entry["kind"]}


def _kept_by_waymarks(app: Waymarks, output: str) -> str | None:
    """Where ``output`` lies among Waymarks' own files (``inside`` the home, a configured
    root of Pi's session files, Pi's own session folder, the project's ``.waymarks`` or
    the personal memory directory; or the legacy personal ``memory.md`` beside that
    directory, or its backup), if it does: an export written there could replace a
    session ledger, the database or the settings (``-o
    ~/.local/share/waymarks/waymarks.db`` did, atomically and for good), a team ledger,
    the project's settings or a person's own memory. A folder or file of them that is a
    loop of links holds nothing an export could replace: it is passed over (a looping
    personal folder made every `export -o` a traceback); a target that loops is the
    caller's to refuse (``None`` here)."""
    from waymarks.personal.setup import configured_store
    from waymarks.service.config import PROJECT_CONFIG
    from waymarks.service.sources import pi_sessions_root, session_files

    target = resolved(Path(output).expanduser())
    if target is None:
        return None
    personal = configured_store(app)
    # Pi's own session folder too: its ledgers are the project's sessions (an export
    # there replaced a Pi conversation, exit 0); and the personal directory, which may be
    # outside the home (`~/.pi/memory`: an export replaced an entry, exit 0)
    for folder in (app.home, *app.settings().session_roots, pi_sessions_root(),
                   Path(app.cwd) / PROJECT_CONFIG.parent, personal.directory):
        kept = resolved(Path(folder).expanduser())
        if kept is not None and (target == kept or kept in target.parents):
            return f"inside {kept}"
    for file in (personal.legacy_path, personal.legacy_backup):
        if target == resolved(file.expanduser()):
            return f"the personal memory file {target}"
    # a session opened by path lies anywhere (`--session /tmp/shared.jsonl`): an export
    # over it replaced the active session's ledger (exit 0; every command failed after)
    for ledger in session_files(app):
        if target == resolved(ledger) or _same_file(target, ledger):
            return f"the session ledger {ledger}"
    return None


def _same_file(one: Path, other: Path) -> bool:
    """Whether both paths name one existing file (a hard link, another mount of it)."""
    try:
        return os.path.samefile(one, other)
    except OSError:  # (either is missing: an export there replaces nothing)
        return False


def _exported(app: Waymarks, kind: str, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
    from waymarks.service.provenance import updated_at

    items: list[dict[str, Any]] = []
    wanted = {s.lower() for s in statuses}
    # an item stored without a level has the policy's default: written out when it is not
    # `normal`, so an import elsewhere (default `normal`) keeps it from the providers it
    # was kept from here (a sensitive-by-default claim came back normal)
    policy = app.settings().policy
    for each in ("pin", "memory"):
        if kind not in ("all", each):
            continue
        views = [v for v in app.items("pin" if each == "pin" else "memory")
                 if not wanted or v.status in wanted]
        dates = updated_at(app, views)
        items += [{"format": FORMAT, **v.to_json(), "givenKey": v.given_key,
                   "updatedAt": dates[v.id],
                   "project": (v.project_path or app.cwd) if v.scope == "project" else None,
                   "classification": policy.written(v.classification)} for v in views]
    return items


def _read(run: Any, source: str) -> str:
    """The text of ``source`` (``-``: standard input), at most :data:`MAX_IMPORT_BYTES`."""
    if run.read_file is None or run.read_stdin is None:
        raise click.UsageError("import reads a file only from the command line")
    text: str = run.read_stdin(MAX_IMPORT_BYTES) if source == "-" \
        else run.read_file(source, MAX_IMPORT_BYTES)
    return text


def _decide(line: Line) -> Callable[[WriteContext], Decision]:
    """The decision writing ``line`` makes (what :func:`_write` runs, as a dry run)."""
    from waymarks.core.decisions import decide_memory, decide_pin

    if line.kind == "pin":
        return lambda ctx: decide_pin(
            ctx, line.text, scope=line.scope, classification=line.classification,
            source=None, source_file=None, supersedes=None)
    return lambda ctx: decide_memory(
        ctx, line.text, scope=line.scope, classification=line.classification,
        key=line.key, sources=())


def _planned_key(planned: PinMutation | MemoryMutation) -> str | None:
    """The key a line's planned item will have, as lists show it (``DB Port``: ``db-port``)."""
    from waymarks.core.model import item_text
    from waymarks.core.rules import effective_key

    item = planned.item
    return None if item is None else effective_key(item, normalize(item_text(item)))


def _write(app: Waymarks, line: Line) -> WriteOutcome:
    if line.kind == "pin":
        return app.pin(line.text, scope=line.scope, classification=line.classification)
    return app.remember(line.text, scope=line.scope, classification=line.classification,
                        key=line.key)


def _entry(line: Line, outcome: Decision | WriteOutcome,
           earlier: dict[str, int] | None = None) -> dict[str, Any]:
    """A line's report. ``earlier``: the item IDs a dry run gave the lines it would write
    (no such item exists): a line refused or a duplicate because of one of them names
    that line (``lines``, ``ofLine``) instead; for a written line, the IDs the lines
    written before it were given (a line superseding one of them names it too)."""
    from waymarks.service.outcomes import Committed, Duplicate, Rejected

    earlier = earlier or {}
    entry: dict[str, Any] = {"line": line.number, "originalId": line.original_id,
                             "kind": line.kind}
    if isinstance(outcome, Rejected):
        stored = [c for c in outcome.conflicts if c not in earlier]
        lines = sorted({earlier[c] for c in outcome.conflicts if c in earlier})
        message = outcome.message
        if lines:
            message = (f"conflicts with line {', '.join(map(str, lines))} of this file"
                       + (f" and with active item(s) {', '.join(stored)}" if stored else "")
                       + "; keep one of them, or import one and then replace it with "
                       "`waymarks memory supersede ID -- NEW CLAIM`")
        return {**entry, "outcome": "refused", "code": outcome.code, "conflicts": stored,
                **({"lines": lines} if lines else {}), "message": message}
    if isinstance(outcome, Duplicate):
        if outcome.id in earlier:
            return {**entry, "outcome": "duplicate", "id": None,
                    "ofLine": earlier[outcome.id]}
        return {**entry, "outcome": "duplicate", "id": outcome.id}
    assert isinstance(outcome, Committed)
    return {**entry, "outcome": "imported", "id": outcome.id, "warning": outcome.warning,
            "notices": list(outcome.notices),
            **_supersedes(outcome.operation, outcome.previous_id, earlier, made=True)}


def _supersedes(operation: str, previous_id: str | None, lines: dict[str, int], *,
                made: bool) -> dict[str, Any]:
    """What a line's write does, as a typed write's ``--json`` says it (``operation``,
    ``previousId``): the same text as a stored item (or an earlier line) at a stricter
    level supersedes it, and an import said only "imported" (the item replaced could be
    a project item of another session). ``lines``: the IDs earlier lines were given
    (``made``: they exist; else a dry run's, which name no item: ``previousId`` is
    ``None`` and ``supersedesLine`` names the line)."""
    if operation != "supersede" or previous_id is None:
        return {"operation": "add", "previousId": None}
    line = lines.get(previous_id)
    return {"operation": "supersede",
            "previousId": previous_id if made or line is None else None,
            **({"supersedesLine": line} if line is not None else {})}


def _superseded(entry: dict[str, Any]) -> str:
    """``" 1a2b3c4d"``, ``" line 3"`` or ``" 1a2b3c4d of line 3"``: what ``entry``
    supersedes, for the text report."""
    line = f"line {entry['supersedesLine']}" if entry.get("supersedesLine") else ""
    if entry.get("previousId"):
        return f" {entry['previousId'][:8]}" + (f" of {line}" if line else "")
    return f" {line}"


#: why an import line supersedes (its only way: :func:`_decide` names no item to replace)
_STRICTER: Final = "the same text at a looser level"


def _counted(entry: dict[str, Any]) -> str:
    """The count a line's report goes under: a line superseding an item apart from plain
    adds (``superseding``, ``would-supersede``)."""
    outcome: str = entry["outcome"]
    if entry.get("operation") == "supersede":
        return {"imported": "superseding", "would-write": "would-supersede"}.get(outcome,
                                                                                 outcome)
    return outcome


def _summary(report: list[dict[str, Any]], *, wrote: bool, dry_run: bool,
             interrupted: bool = False, failure: ServiceError | OSError | None = None
             ) -> Result:
    report.sort(key=lambda e: int(e["line"]))
    counts: dict[str, int] = {}
    for entry in report:
        counts[_counted(entry)] = counts.get(_counted(entry), 0) + 1
    refusals = counts.get("refused", 0)
    lines = []
    for entry in report:
        what = f"line {entry['line']}"
        if entry.get("originalId"):
            what += f" ({cell(str(entry['originalId'])[:8])})"  # the file's: escaped
        outcome = entry["outcome"]
        if outcome == "refused":
            conflicts = ", ".join(c[:8] for c in entry["conflicts"])
            lines.append(f"  {what}: refused ({entry['code']}): {cell(entry['message'])}"
                         + (f" [conflicts: {conflicts}]" if conflicts else ""))
        elif outcome == "duplicate":
            of = f"line {entry['ofLine']}" if entry.get("ofLine") else entry["id"][:8]
            lines.append(f"  {what}: duplicate of {of} (nothing added)")
        elif outcome == "imported":
            lines.append(f"  {what}: imported as {entry['id'][:8]}" + (
                f", superseding{_superseded(entry)} ({_STRICTER})"
                if entry["operation"] == "supersede" else ""))
            if entry["warning"]:
                lines.append(f"    warning: {entry['warning']}")
            lines += [f"    note: {notice}" for notice in entry["notices"]]
        elif outcome == "skipped":
            lines.append(f"  {what}: skipped ({cell(entry['reason'])})")  # its status
        elif outcome == "would-write":
            verb = (f"would supersede{_superseded(entry)} ({_STRICTER}) with"
                    if entry["operation"] == "supersede" else "would write")
            lines.append(f"  {what}: {verb} a {cell(entry['scope'])} {entry['kind']}: "
                         f"{cell(entry['text'])}")
        elif outcome == "not-written" and "text" in entry:  # a refusal held it back
            lines.append(f"  {what}: not written (another line is refused); a "
                         f"{cell(entry['scope'])} {entry['kind']}: {cell(entry['text'])}"
                         + (f" (it would supersede{_superseded(entry)})"
                            if entry["operation"] == "supersede" else ""))
    tally = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    if interrupted or failure is not None:
        return _stopped(report, tally, counts, failure)
    written = any(e["outcome"] == "imported" for e in report)  # (wrote: the writes ran)
    partial = bool(refusals) and written  # refused by what changed since the check
    if dry_run:
        head = f"Dry run: {tally}; nothing was written."
    elif not wrote:
        head = (f"Refused: {refusals} line(s) cannot be written, so nothing was imported "
                f"({tally}). Fix or remove them, or supersede what they conflict with.")
    elif refusals:
        head = _changed_since_check(report, tally, partial)
    elif written:
        head = f"Imported: {tally}."
    else:  # every line stored already ("Imported: 1 duplicate." said a write was made)
        head = f"Nothing new to import: {tally}; nothing was written."
    data: dict[str, Any] = {
        "outcome": "partial" if partial else "rejected" if refusals else "dry-run" if dry_run
        else "imported",
        "id": None, "code": None, "conflicts": [], "notices": _notices(report),
        "written": written, "counts": counts, "lines": report}
    if refusals:
        data.update({"code": "changed_since_check" if wrote else "refused",
                     "message": head, "conflicts": sorted(
                         {c for e in report for c in e.get("conflicts", [])})})
    return Result(data, "\n".join([head, *lines]),
                  EXIT_ERROR if partial else EXIT_REJECTED if refusals else 0, report=True)


def _changed_since_check(report: list[dict[str, Any]], tally: str, partial: bool) -> str:
    """The head of an import whose writes met refusals its check ruled out."""
    refused = [e for e in report if e["outcome"] == "refused"]
    named = "; ".join(f"line {e['line']}: {e['code']}" + (
        f" with {', '.join(e['conflicts'])}" if e["conflicts"] else "") for e in refused[:5])
    more = f"; and {len(refused) - 5} more" if len(refused) > 5 else ""
    cause = (f"{len(refused)} line(s) were refused by what changed after every line was "
             f"checked, written by another process meanwhile ({named}{more})")
    if not partial:
        return f"Refused: {cause}; nothing was imported ({tally})."
    return (f"Partly imported: {tally}. {cause}; the other lines were written. Supersede or "
            "invalidate what they conflict with (or keep it), then import the file again "
            "if they should be added: the written lines come back as duplicates.")


def _stopped(report: list[dict[str, Any]], tally: str, counts: dict[str, int],
             failure: ServiceError | OSError | None) -> Result:
    """An import stopped between two lines, by Ctrl-C or by an error writing one (a full
    disk): which lines were written, which not (importing the file again adds the rest:
    the written ones are duplicates then). An error said "nothing was acknowledged"
    while the lines before it were committed and applying."""
    imported = [e["line"] for e in report if e["outcome"] == "imported"]
    left = [e["line"] for e in report if e["outcome"] == "not-written"]
    written = (f"{len(imported)} line(s) written" + (f" (lines {_spans(imported)})"
                                                     if imported else "")
               + f", {len(left)} not" + (f" (lines {_spans(left)})" if left else "")
               + f" ({tally})")
    again = "Import the file again to add the rest: the written lines come back as duplicates."
    if failure is None:
        head = f"Interrupted: {written}. {again}"
        outcome, code, status = "aborted", "interrupted", EXIT_INTERRUPTED
    else:
        if isinstance(failure.__cause__, OSError):  # a write's io_error: not "nothing was
            failure = failure.__cause__  # acknowledged", the lines before it were
        if isinstance(failure, OSError):
            cause, code = f"{os_error_cause(failure)}{fix_for(failure)}", "io_error"
        else:
            cause, code = str(failure).rstrip("."), failure.code
        head = (f"Stopped at line {left[0]} by an error: {cause}. {written}. Once that is"
                f" fixed, {again[0].lower()}{again[1:]}")
        outcome, status = "error", EXIT_ERROR
    data = {"outcome": outcome, "code": code, "id": None, "conflicts": [],
            "notices": _notices(report), "message": head, "written": bool(imported),
            "counts": counts, "lines": report}
    return Result(data, head, status)  # said on standard error: no line report here


def _notices(report: list[dict[str, Any]]) -> list[str]:
    """The imported lines' notices, as a write's ``notices`` (each names its line)."""
    return [f"line {e['line']}: {notice}" for e in report for notice in e.get("notices", [])]


def _spans(numbers: list[int]) -> str:
    """``1-3, 7``: line numbers in runs."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in runs)
