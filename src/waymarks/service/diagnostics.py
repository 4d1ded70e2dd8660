"""Diagnostics: ``status`` (where things are, how many items are in effect) and ``health``
(checkpoints against files, skipped lines, entries not understood, database checks).

They only read, except that ``health`` rebuilds a projection whose integrity check fails:
damage no query had touched yet is repaired when it is found, never reported and left.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.core.text import escaped, shell_command
from waymarks.ledger.discovery import (
    aside_fix,
    files_without_header,
    irregular_files,
    not_a_session,
    project_headers,
    session_dir,
    shared_session_ids,
    stray_fix,
    unlistable_folder,
)
from waymarks.service.helper_status import helper_status
from waymarks.service.kept_exclusions import LOST_EXCLUSIONS_SAID, lost_exclusions_caveat
from waymarks.service.outcomes import ServiceError
from waymarks.service.recovery import (
    QUEUE_ROLE,
    damaged_copies,
    refuse_irregular_files,
    starts_with,
    using_job_store,
)
from waymarks.service.semantic_recall import BROKEN, other_model_vectors, vector_status
from waymarks.service.session_checks import (
    pointer_problems,
    replaced_problem,
    rewritten_problem,
)
from waymarks.service.team_identity import damaged_contributor
from waymarks.store.projection import ProjectionDamaged

if TYPE_CHECKING:
    from waymarks.ledger.log import SessionLog
    from waymarks.service.app import Waymarks


def status(app: Waymarks) -> dict[str, Any]:
    """Counts of pins and memory in effect here; memory is counted in SQL, not listed."""
    session = app.refresh()
    pins = app.items("pin")  # (without a session, the project's: as `pins` lists them)
    counts: dict[str, dict[str, int]] = {
        "pin": {"total": len(pins), "applies": sum(v.applies for v in pins)},
        "memory": {"total": 0, "applies": 0},
    }
    for view in pins:
        counts["pin"][view.status] = counts["pin"].get(view.status, 0) + 1
    trusted = app.project_trusted
    # without a session, the project's memory, as `memory` lists it (it said 0 of both)
    sid = session.session_id if session is not None else ""
    for status_, scope, count in app.projection.memory_counts(sid, app.cwd):
        tally = counts["memory"]
        tally["total"] += count
        tally[status_] = tally.get(status_, 0) + count
        # the session's own project claims of another project apply there only, as
        # `memory` shows them
        if status_ == "active" and scope != "other-project" and (
                scope != "project" or trusted):
            tally["applies"] += count
    return {
        "home": str(app.home), "database": str(app.db_path), "cwd": app.cwd,
        "projectTrusted": app.project_trusted,
        "session": None if session is None else {
            "id": session.session_id, "path": str(session.path),
            "entries": session.entry_count, "leafId": session.leaf_id},
        "pins": counts["pin"], "memory": counts["memory"],
        "semantic": vector_status(app),  # hybrid recall's vectors (issue 20)
        "claudeCodeHelper": helper_status(app.home),
        "sessionsProblem": sessions_folder_problem(app),
        "learning": learning_status(app),
    }


def learning_status(app: Waymarks) -> dict[str, Any]:
    """Whether statements are captured here, as ``learn status`` reads the switch (the
    project's file may turn it off; a file that cannot be read is off, and why)."""
    from waymarks.service.learning import LearningConfigError, learning_state

    try:
        state = learning_state(app.home, app.cwd)
    except LearningConfigError as exc:
        return {"enabled": False, "projectOff": False, "problem": str(exc)}
    return {"enabled": state.enabled, "projectOff": state.project_off, "problem": None}



def sessions_folder_problem(app: Waymarks) -> str | None:
    """Where this project's sessions go, when a file stands there: every write failed
    ("File exists") and no session can be read, so ``status`` saying "(none yet)" misled."""
    folder = session_dir(app.home, app.cwd)
    return next((f"{path}: not a folder, so no session of this project can be created or "
                 "read there: move it aside" for path in (folder.parent, folder)
                 if os.path.lexists(path) and not os.path.isdir(path)), None)


def claimed_ids(app: Waymarks, said: set[Path]) -> list[str]:
    """This project's session files whose header holds the ID of a session indexed from
    another file that is still there and does not hold all of it (``said``: those
    already named as files of one session by their names). The incremental pass skips
    such a file as a copy and a rebuild as a second file of the session, so only here
    would anyone hear of it; an earlier copy of the indexed file loses nothing."""
    problems = []
    for path, header in project_headers(app.home, app.cwd):
        indexed = app.projection.source_path(header.id)
        if path in said or indexed is None or indexed == str(path):
            continue
        with contextlib.suppress(OSError):
            size = path.stat().st_size
            if not path.samefile(indexed) and not (
                    os.path.getsize(indexed) >= size and starts_with(Path(indexed), path, size)):
                problems.append(
                    f"{path}: holds session {header.id}, which is indexed from {indexed}: a "
                    "copy of it, or a file claiming its ID, so nothing in it is read; move "
                    "it out of the folder if it is not a session of its own")
    return problems

def health(app: Waymarks) -> dict[str, Any]:
    """The health report. An unreadable active session does not stop it: it is what it
    reports. A ``--session`` that names none is a bad argument, as for every command (it
    was reported as a problem, exit 0)."""
    try:
        session = app.refresh()
    except ServiceError as exc:
        if exc.refusal:
            raise
        session = None  # a configuration's fault (the trust list's too) is said once,
        # below, as its own: it was also the "active session"'s, in a trusted project
        if exc.code not in ("bad_config", "bad_trust_file"):
            app.refresh_problem = str(exc)
    if session is not None and app.refresh_problem is None:
        app.refresh_problem = replaced_problem(app.projection, session, thorough=True) \
            or rewritten_problem(app.projection, session)
    report = app.projection.health()
    if report["integrity"] != "ok":  # damage no query had touched yet: rebuild now
        app._recover(ProjectionDamaged(f"integrity check: {report['integrity']}"))
        report = app.projection.health()
    report["damagedCopies"] = damaged_copies(app.db_path)
    report["recovered"] = app.recovered
    if app.recovered:  # what the repair could not keep: not OK until someone looks
        report["problems"] += [f"repair: {caveat}" for caveat in app.recovered.get("caveats")
                               or () if not caveat.startswith(LOST_EXCLUSIONS_SAID)]
    # lost exclusions from the database's note, by a repair in this process or another:
    # the note ends when an exclusion is set or lifted, the repair's own caveat never did
    lost = app.projection.lost_exclusions()
    if lost is not None:
        report["problems"].append(f"repair: {lost_exclusions_caveat(lost)}")
    if app.stale_note is not None:  # (a full disk: read as it is, nothing can be written)
        report["problems"].append(f"database: {app.stale_note}")
    report["activeSessionProblem"] = app.refresh_problem
    if app.refresh_problem is not None:
        report["problems"].append(f"active session: {app.refresh_problem}")
    # a folder on the way to this project's sessions that cannot be listed (mode 000):
    # named once (the active session's problem says it when the pick met it), and the
    # checks that list the folder are passed over (health ended in their I/O error)
    blocked = unlistable_folder(app.home, app.cwd)
    if blocked is not None and str(blocked) not in (app.refresh_problem or ""):
        report["problems"].append(f"{blocked}: cannot list this project's sessions "
                                  "(permission denied): make the folder readable to this "
                                  "user (its owner may have to)")
    listed = blocked is None
    # never picked as a session, so only here would anyone hear of them
    headerless = files_without_header(app.home, app.cwd) if listed else []
    report["filesWithoutHeader"] = [{"path": str(path), "firstLineComplete": complete}
                                    for path, complete in headerless]
    report["problems"] += [not_a_session(path) for path, complete in headerless if complete]
    # a newer file cut inside its header: no interrupted creation (it holds bytes), and
    # every command passed it over with a note sending the person here
    report["problems"] += [
        f"{path}: newer than the session used, with no complete session header (cut short"
        f" or damaged), so nothing in it is read: {aside_fix(path)}"
        for path in app.passed_over if str(path) not in " ".join(report["problems"])]
    # a FIFO or a folder where a ledger was: a rebuild said "unreadable", health said OK
    report["problems"] += [
        f"{path}: {what}, not a session file, so nothing in it is read: {stray_fix(path, what)}"
        for path, what in (irregular_files(app.home, app.cwd) if listed else ())
        if str(path) not in (app.refresh_problem or "")]
    report["problems"] += pointer_problems(app.home)
    folder_problem = sessions_folder_problem(app)
    report["problems"] += [folder_problem] if folder_problem else []
    shared = shared_session_ids(app.home, app.cwd) if listed else {}
    report["problems"] += [
        f"session {sid}: {len(paths)} ledger files ({', '.join(p.name for p in paths)} in "
        f"{paths[0].parent}): one session should have one; hooks and `waymarks mcp "
        "--claude-code` use the first, the CLI may use the newest, so what one of them "
        "wrote the others do not read. Keep the one to go on with and move the others "
        "out of the folder (their entries are then no longer read), then run `waymarks "
        "rebuild-index`" for sid, paths in shared.items()]
    if listed:
        report["problems"] += claimed_ids(app, {p for paths in shared.values() for p in paths})
    if session is not None:
        # a half-written last line (a writer died mid-line) is reported, never read
        report["session"] = {"id": session.session_id, "partialTailBytes": session.partial_tail}
        if session.partial_tail:
            report["problems"].append(f"active session: a half-written last line "
                                      f"({session.partial_tail} bytes)")
        if app.refresh_problem is None and not os.access(session.path, os.W_OK):
            # every write to it fails (Permission denied): not OK, as for a bad config
            report["problems"].append(
                f"active session: {session.path} is not writable by this user, so no pin "
                f"or memory can be recorded in it: chmod u+w {session.path} (its owner "
                "may have to), or start another with `waymarks session new`")
    try:  # every write, plan and recall reads the settings: a file they refuse stops them
        app.settings()
    except ServiceError as exc:
        report["problems"].append(f"configuration: {exc}")
    contributor = damaged_contributor(app)  # every team share would be refused
    if contributor is not None:
        report["problems"].append(f"team: {contributor}")
    # not a problem (they are embedded again), but said: "OK" with no vector in use misled
    try:
        report["otherModelVectors"] = other_model_vectors(app)
    except ServiceError as exc:  # the extra cannot be loaded: every recall fails
        if exc.code != BROKEN:
            raise
        report["otherModelVectors"] = {}
        report["problems"].append(f"hybrid recall: {exc}")
    report["problems"] += learned_problems(app, report) + queue_problems(app, report) + \
        crossed_claims(app, session)
    report["claudeCodeHelper"] = helper_status(app.home)  # (said, not a problem: the next
    # hook starts one)
    report["ok"] = not report["problems"]
    return report


def crossed_claims(app: Waymarks, session: SessionLog | None) -> list[str]:
    """Claims of this session that contradict a project claim in effect here: each write
    checks what its own session sees, so a project claim written from another session
    (or while the project was untrusted) is not refused for a session claim it cannot
    see, and both were sent to the model with nothing said. Found as a write here would
    find them (:func:`~waymarks.core.rules.find_contradictions`: paraphrases and Chinese
    too, "The dev DB listens on 5436." beside "数据库端口是 5435。"); the replay rule alone
    (same derived key) named only the pairs worded alike, and said OK for the others."""
    from waymarks.core.rules import find_contradictions

    if session is None or app.refresh_problem is not None or not app.project_trusted:
        return []
    problems = []
    for view in app.items("memory"):
        # (the session's own claims only: each project claim's state was read first, one
        # query apiece, 60k of them for nothing at 60k claims)
        if not view.applies or view.scope != "session":
            continue
        state = app.projection.view.get(view.id)
        if state is None:
            continue
        crossed = find_contradictions(app.projection.view, state, (f"project:{app.cwd}",))
        # the IDs quoted as a shell reads them in the commands suggested: another
        # session's file chose its claim's ID (`$(sh x)` is a word, never a command)
        invalidate = shell_command(["waymarks", "memory", "invalidate", view.id[:8]])
        problems += [f"session claim {escaped(view.id[:8])} contradicts project claim "
                     f"{escaped(other[:8])} (written from another session); both are in "
                     "effect here: keep one with "
                     f"`{shell_command(['waymarks', 'memory', 'supersede', other[:8]])} -- "
                     f"CLAIM` or `{invalidate}`" for other in crossed]
    return problems


def queue_problems(app: Waymarks, report: dict[str, Any]) -> list[str]:
    """A damaged ``evolution.db`` is set aside and made anew, as a command would (its copy
    is then listed with the damaged copies); what cannot be fixed so is a problem."""
    from waymarks.store.jobs import DB_FILE

    problems = []
    try:  # a name that is not a regular file (a dangling link too) is refused
        refuse_irregular_files(app.home / DB_FILE, QUEUE_ROLE)
        if (app.home / DB_FILE).exists():  # every row read: damage in a page too
            using_job_store(app.home, app.clock.now(), lambda store: store.check())
    except ServiceError as exc:
        problems.append(str(exc))
    report["damagedCopies"] += damaged_copies(app.home / DB_FILE)
    return problems


def learned_problems(app: Waymarks, report: dict[str, Any]) -> list[str]:
    """What stops learned memory from being read (nothing is read without a ledger), and,
    in ``report["learnedLedger"]``, what of the learned ledger was not used: lines skipped
    as unreadable, entries not understood, a half-written last line. By the session files'
    rule (:mod:`waymarks.store.health`, and :func:`health` for the active session) the
    first two are counted and listed, not problems (nothing acknowledged was lost by
    them), and a half-written last line is a problem."""
    from waymarks.service.learning import has_ledger

    report["learnedLedger"] = None
    if not has_ledger(app.home):
        return []
    from waymarks.core.evolution.model import EVOLUTION_CUSTOM_TYPE, decode_record
    from waymarks.ledger.entries import custom_entries
    from waymarks.service.evolution import Evolution, LedgerDamaged
    from waymarks.service.evolution_recall import bad_rows_problems, edited_records
    from waymarks.store.health import MAX_DETAILS

    try:
        with Evolution(app.home, clock=app.clock) as evo:
            ledger = evo.ledger  # opening reads it: no database is touched
            ledger.refresh()
            unknown = [entry.id for entry in custom_entries(ledger, EVOLUTION_CUSTOM_TYPE)
                       if decode_record(entry.data) is None]
            edited = edited_records(ledger)
        # claims left out of recall as malformed: said (an edited record was never)
        problems = bad_rows_problems(app.home, ledger, edited)
    except LedgerDamaged as exc:
        return [str(exc)]
    skipped = [a for a in ledger.anomalies if a.kind == "skipped"]
    report["learnedLedger"] = {
        "path": str(ledger.path), "partialTailBytes": ledger.partial_tail,
        "anomalyCounts": {"skipped": len(skipped), "unknown": len(unknown)},
        "anomalies": [{"line": a.line, "entryId": a.entry_id, "kind": a.kind,
                       "detail": a.detail} for a in skipped[:MAX_DETAILS]]
        + [{"line": None, "entryId": entry_id, "kind": "unknown",
            "detail": "a learned record this version does not understand"}
           for entry_id in unknown[:max(MAX_DETAILS - len(skipped), 0)]]}
    if ledger.partial_tail:
        problems.append(f"learned ledger {ledger.path}: a half-written last line "
                        f"({ledger.partial_tail} bytes)")
    return problems
