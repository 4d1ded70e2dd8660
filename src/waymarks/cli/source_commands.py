"""``waymarks memory sources | exclude | include``: this project's other sessions as
sources of project memory, and the local policy over them."""

from __future__ import annotations

from datetime import UTC, datetime

from waymarks.cli.commands import Command, Env, Result, UsageError
from waymarks.core.arguments import ParsedArgs
from waymarks.service.app import Waymarks
from waymarks.service.sources import list_sources, set_source_excluded


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%SZ") if ms else "-"


def _sources(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    views = list_sources(app)
    lines = [f"{'session':<36}  {'status':<17} {'items':>5} {'held':>4}  last indexed"]
    for v in views:
        flags = " (active)" if v.active else ""
        flags += " (excluded)" if v.excluded else ""
        lines.append(f"{v.session_id:<36}  {v.status:<17} {v.contributed:>5} {v.held_back:>4}"
                     f"  {_when(v.updated_at)}{flags}")
        if v.detail:
            lines.append(f"    {v.detail}")
    if not views:
        lines = ["No sessions of this project are known yet."]
    if not app.project_trusted:
        lines.append(f"{app.cwd} is not trusted: project memory is not shared (`waymarks "
                     "trust PATH`).")
    return Result({"sources": [v.to_json() for v in views], "projectTrusted":
                   app.project_trusted}, "\n".join(lines))


def _full_id(app: Waymarks, ref: str) -> str:
    matches = [v.session_id for v in list_sources(app) if v.session_id.startswith(ref)]
    return matches[0] if len(matches) == 1 else ref


def _exclude(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if not args.positionals:
        raise UsageError("Usage: waymarks memory exclude SESSION_ID [REASON]")
    session_id = _full_id(app, args.positionals[0])
    reason = " ".join(args.positionals[1:]) or None
    changed = set_source_excluded(app, session_id, True, reason)
    text = (f"Excluded {session_id}: its project pins and memory no longer count here."
            if changed else f"{session_id} was already excluded.")
    return Result({"sessionId": session_id, "excluded": True, "changed": changed}, text)


def _include(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if len(args.positionals) != 1:
        raise UsageError("Usage: waymarks memory include SESSION_ID")
    session_id = _full_id(app, args.positionals[0])
    changed = set_source_excluded(app, session_id, False)
    text = (f"Included {session_id} again." if changed
            else f"{session_id} was not excluded.")
    return Result({"sessionId": session_id, "excluded": False, "changed": changed}, text)


SOURCE_COMMANDS: dict[str, Command] = {
    "memory sources": Command("memory sources", "this project's sessions as memory sources",
                              _sources, takes_positionals=False),
    "memory exclude": Command("memory exclude SESSION_ID [REASON]",
                              "stop counting a session's project pins and memory here "
                              "(local policy, kept in the database only)", _exclude),
    "memory include": Command("memory include SESSION_ID", "count an excluded session again",
                              _include),
}
