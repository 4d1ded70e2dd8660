"""The command table: each command parses its arguments, calls one service method, and
returns a :class:`Result` for the entry point to print. No rules live here.

The same table serves ``waymarks COMMAND ...`` and ``waymarks context "COMMAND ..."``:
both arrive as a token list and are parsed with seed 000's option rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from waymarks.core.arguments import ArgumentError, ParsedArgs, parse_options
from waymarks.recall.engine import explain
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Duplicate, Rejected, WriteOutcome
from waymarks.service.views import ItemView, SessionInfo

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_REJECTED = 2


@dataclass(frozen=True, slots=True)
class Result:
    data: dict[str, Any]
    text: str
    exit_code: int = EXIT_OK


@dataclass(frozen=True, slots=True)
class Command:
    usage: str
    summary: str
    run: Callable[[Waymarks, ParsedArgs, Env], Result]
    options: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    takes_positionals: bool = True


@dataclass(slots=True)
class Env:
    """What a command may need beyond the service: progress output for long work."""

    progress: Callable[[int, int], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class UsageError(ArgumentError):
    pass


# -- formatting -------------------------------------------------------------------------


def write_result(outcome: WriteOutcome, verb: str) -> Result:
    if isinstance(outcome, Rejected):
        data = {"outcome": "rejected", "id": None, "code": outcome.code,
                "conflicts": list(outcome.conflicts), "message": outcome.message}
        return Result(data, f"Rejected ({outcome.code}): {outcome.message}", EXIT_REJECTED)
    if isinstance(outcome, Duplicate):
        data = {"outcome": "duplicate", "id": outcome.id, "code": None, "conflicts": [],
                "kind": outcome.kind}
        return Result(data, f"Existing {outcome.kind} {outcome.id} (nothing appended)")
    assert isinstance(outcome, Committed)
    data = {"outcome": "committed", "id": outcome.id, "code": None, "conflicts": [],
            "kind": outcome.kind, "operation": outcome.operation, "entryId": outcome.entry_id,
            "previousId": outcome.previous_id, "warning": outcome.warning,
            "notices": list(outcome.notices)}
    text = f"{verb} {outcome.kind} {outcome.id} (entry {outcome.entry_id})"
    if outcome.previous_id:
        text += f", superseding {outcome.previous_id}"
    if outcome.warning:
        text += f"\nwarning: {outcome.warning}"
    text += "".join(f"\nnote: {notice}" for notice in outcome.notices)
    return Result(data, text)


def items_result(views: list[ItemView], kind: str) -> Result:
    data = {"items": [v.to_json() for v in views]}
    if not views:
        return Result(data, f"No {kind} items in this session.")
    lines = []
    for v in views:
        mark = "*" if v.applies else " "
        meta = [v.scope, v.status]
        if v.key:
            meta.append(f"key={v.key}")
        if v.classification:
            meta.append(v.classification)
        lines.append(f"{mark} {v.id[:8]}  [{', '.join(meta)}]  {v.text!r}")
        if v.superseded_by:
            lines.append(f"      superseded by {v.superseded_by[:8]}")
        elif v.reason:
            lines.append(f"      reason: {v.reason}")
    lines.append("(* = applies on the active branch)")
    return Result(data, "\n".join(lines))


def session_json(info: SessionInfo) -> dict[str, Any]:
    return {"id": info.id, "path": info.path, "cwd": info.cwd, "created": info.created,
            "entries": info.entries, "leafId": info.leaf_id, "branch": list(info.branch)}


def _id_and_reason(args: ParsedArgs, usage: str) -> tuple[str, str | None]:
    if not args.positionals:
        raise UsageError(f"Usage: {usage}")
    reason = " ".join(args.positionals[1:]) or None
    return args.positionals[0], reason


def _sources(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    return tuple(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))


# -- commands ---------------------------------------------------------------------------


def _session_new(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    info = app.session_new()
    return Result({"session": session_json(info)}, f"New session {info.id}\n{info.path}")


def _session_list(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    infos = app.session_list()
    text = "\n".join(f"{i.id}  {i.created}  {i.entries} entries" for i in infos)
    return Result({"sessions": [session_json(i) for i in infos]}, text or "No sessions here.")


def _session_show(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    info = app.session_show()
    text = (f"Session {info.id}\nFile: {info.path}\nCwd: {info.cwd}\nEntries: {info.entries}\n"
            f"Leaf: {info.leaf_id}\nActive branch: {' > '.join(info.branch) or '(empty)'}")
    return Result({"session": session_json(info)}, text)


def _session_say(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if not args.positionals:
        raise UsageError("Usage: waymarks session say TEXT")
    entry_id = app.session_say(args.text())
    return Result({"entryId": entry_id}, entry_id)


def _session_branch(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if len(args.positionals) != 1:
        raise UsageError("Usage: waymarks session branch ENTRY_ID [--summary TEXT]")
    entry_id = app.session_branch(args.positionals[0], args.options.get("summary"))
    return Result({"entryId": entry_id}, entry_id)


def _pins(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    return items_result(app.items("pin"), "pin")


def _pin(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    o = args.options
    content = args.text()
    if not content and o.get("file"):
        content = env.extra["read_file"](o["file"])
    outcome = app.pin(content, scope=o.get("scope"), classification=o.get("classification"),
                      source=o.get("source"), source_file=o.get("file"),
                      supersedes=o.get("supersedes"))
    return write_result(outcome, "Pinned")


def _unpin(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    pin_id, reason = _id_and_reason(args, "waymarks unpin PIN_ID [REASON]")
    return write_result(app.unpin(pin_id, reason), "Unpinned")


def _memory_list(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    return items_result(app.items("memory"), "memory")


def _memory_add(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    o = args.options
    outcome = app.remember(args.text(), scope=o.get("scope"), key=o.get("key"),
                           classification=o.get("classification"),
                           sources=_sources(o.get("source")))
    return write_result(outcome, "Recorded")


def _memory_supersede(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if len(args.positionals) < 2:
        raise UsageError("Usage: waymarks memory supersede MEMORY_ID [--source ID,ID] -- CLAIM")
    o = args.options
    outcome = app.supersede_memory(args.positionals[0], " ".join(args.positionals[1:]),
                                   classification=o.get("classification"),
                                   sources=_sources(o.get("source")))
    return write_result(outcome, "Recorded")


def _memory_status(status: str) -> Callable[[Waymarks, ParsedArgs, Env], Result]:
    def run(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
        memory_id, reason = _id_and_reason(args, f"waymarks memory {status} MEMORY_ID [REASON]")
        verb = "Invalidated" if status == "invalid" else "Expired"
        return write_result(app.set_memory_status(memory_id, status, reason),  # type: ignore[arg-type]
                            verb)
    return run


def _recall(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if not args.positionals:
        raise UsageError("Usage: waymarks recall QUERY [--history TEXT]... [--explain]")
    explaining = "explain" in args.options
    result = app.recall(args.text(), args.repeated.get("history", ()),
                        inherit=not explaining, provider=args.options.get("provider"))
    if explaining:
        report = explain(result)
        lines = [f"mode {report['mode']}; focus {' '.join(report['focus']) or '(none)'}"
                 + (f"; context {' '.join(report['context'])}" if report["context"] else ""),
                 f"{report['candidates']} candidates, {report['eligible']} eligible, "
                 f"selected: {', '.join(report['selected']) or 'none'}"]
        lines += [f"  {s['id'][:8]} {'+' if s['eligible'] else '-'} rel {s['relevance']:.3f} "
                  f"cov {s['coverage']:.2f} [{' '.join(s['matched'])}] {s['verdict']}"
                  for s in report["scored"]]
        return Result(report, "\n".join(lines))
    data = {"selected": result.selected, "digest": result.digest, "rows": result.rows}
    return Result(data, result.digest or "Nothing recalled.")


def _status(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    data = app.status()
    session = data["session"]
    lines = [f"Home: {data['home']}", f"Project: {data['cwd']} "
             f"({'trusted' if data['projectTrusted'] else 'not trusted'})",
             f"Session: {session['id'] if session else '(none yet)'}"]
    for kind in ("pins", "memory"):
        tally = data[kind]
        lines.append(f"{kind.capitalize()}: {tally['applies']} in effect, {tally['total']} stored")
    return Result(data, "\n".join(lines))


def _health(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    data = app.health()
    counts = data["anomalyCounts"]
    lines = [f"{'OK' if data['ok'] else 'ATTENTION'}: schema v{data['schemaVersion']}, "
             f"integrity {data['integrity']}, {data['mutations']} mutations "
             f"({data['ignoredMutations']} ignored)",
             f"Lines skipped: {counts['skipped']}, unknown entries: {counts['unknown']}, "
             f"malformed payloads: {counts['malformed']}"]
    lines += [f"  problem: {problem}" for problem in data["problems"]]
    if data.get("recovered"):
        lines.append(f"Repaired: the database was damaged ({data['recovered']['problem']}); "
                     f"set aside as {data['recovered']['damaged']} and rebuilt from the "
                     "session files")
    for source in data["sources"]:
        state = "missing" if not source["exists"] else f"{source['unreadBytes']} bytes unread"
        if source["status"] != "available":
            state += f", {source['status']}: project items held back"
        lines.append(f"  {source['sessionId']}: checkpoint {source['checkpointOffset']} "
                     f"({state}), {source['entries']} entries")
    if data.get("session", {}).get("partialTailBytes"):
        lines.append(f"  half-written last line: {data['session']['partialTailBytes']} bytes "
                     "(skipped; the next write terminates it)")
    for anomaly in data["anomalies"]:
        lines.append(f"  line {anomaly['line']} ({anomaly['kind']}): {anomaly['detail']}")
    return Result(data, "\n".join(lines))


def _rebuild(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    data = app.rebuild_index(env.progress)
    text = f"Rebuilt from {data['sources']} session file(s): {data['mutations']} mutations"
    if data["unreadable"]:
        text += "\nUnreadable: " + ", ".join(data["unreadable"])
    return Result(data, text)


def _trust(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if args.options.get("list"):
        projects = app.trusted_projects()
        return Result({"projects": projects}, "\n".join(projects) or "No trusted projects.")
    if len(args.positionals) != 1:
        raise UsageError("Usage: waymarks trust PATH | waymarks trust --list")
    project, added = app.trust(args.positionals[0])
    return Result({"project": project, "changed": added},
                  f"{'Trusted' if added else 'Already trusted'}: {project}")


def _untrust(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if len(args.positionals) != 1:
        raise UsageError("Usage: waymarks untrust PATH")
    project, removed = app.untrust(args.positionals[0])
    return Result({"project": project, "changed": removed},
                  f"{'No longer trusted' if removed else 'Was not trusted'}: {project}")


_WRITE = frozenset({"scope", "classification", "source"})


Runner = Callable[[Waymarks, ParsedArgs, "Env"], Result]


def _listing(usage: str, summary: str, run: Runner) -> Command:
    """A command that takes options at most, never positional words."""
    return Command(usage, summary, run, takes_positionals=False)

COMMANDS: dict[str, Command] = {
    "session new": _listing("session new", "start a new session for the cwd", _session_new),
    "session list": _listing("session list", "sessions of the cwd, oldest first", _session_list),
    "session show": _listing("session show", "the current session and its branch", _session_show),
    "session say": Command("session say TEXT", "append a user message entry", _session_say),
    "session branch": Command("session branch ENTRY_ID [--summary TEXT]",
                              "branch the session at an entry", _session_branch,
                              frozenset({"summary"})),
    "pins": _listing("pins", "list pins", _pins),
    "pin": Command("pin [--scope session|branch|project] [--classification LEVEL] "
                   "[--source ENTRY] [--file PATH] [--supersedes PIN_ID] -- TEXT",
                   "pin an instruction", _pin, _WRITE | {"file", "supersedes"}),
    "unpin": Command("unpin PIN_ID [REASON]", "unpin (status deleted)", _unpin),
    "memory": _listing("memory", "list memory", _memory_list),
    "memory list": _listing("memory list", "list memory", _memory_list),
    "memory add": Command("memory add [--scope session|project] [--classification LEVEL] "
                          "[--key KEY] [--source ID,ID] -- CLAIM", "record a claim",
                          _memory_add, _WRITE | {"key"}),
    "memory supersede": Command("memory supersede MEMORY_ID [--classification LEVEL] "
                                "[--source ID,ID] -- CLAIM", "replace a claim",
                                _memory_supersede, frozenset({"classification", "source"})),
    "memory invalidate": Command("memory invalidate MEMORY_ID [REASON]", "mark a claim invalid",
                                 _memory_status("invalid")),
    "memory expire": Command("memory expire MEMORY_ID [REASON]", "mark a claim expired",
                             _memory_status("expired")),
    "recall": Command("recall QUERY [--history TEXT]... [--provider ID] [--explain]",
                      "memory the query is about (a digest, or --explain: scored candidates)",
                      _recall, frozenset({"history", "provider"}), frozenset({"explain"})),
    "status": _listing("status", "where things are, what is in effect", _status),
    "health": _listing("health", "checkpoints, skipped lines, unknown entries", _health),
    "rebuild-index": _listing("rebuild-index", "rebuild the database from the ledgers", _rebuild),
    "trust": Command("trust PATH | trust --list", "trust a project for project scope", _trust,
                     flags=frozenset({"list"})),
    "untrust": Command("untrust PATH", "stop trusting a project", _untrust),
}
GROUPS = {"session": "session show", "memory": "memory", "privacy": "privacy",
          "config": "config show", "personal": "personal list", "notes": "notes list"}


def _all_commands() -> dict[str, Command]:
    from waymarks.cli.personal_commands import PERSONAL_COMMANDS
    from waymarks.cli.plan_commands import PLAN_COMMANDS
    from waymarks.cli.source_commands import SOURCE_COMMANDS

    return {**COMMANDS, **PLAN_COMMANDS, **SOURCE_COMMANDS, **PERSONAL_COMMANDS}


def find_command(tokens: list[str]) -> tuple[Command, list[str]]:
    """Match the longest command name at the start of ``tokens``."""
    if not tokens:
        raise UsageError("No command given; try `waymarks --help`")
    commands = _all_commands()
    words = [t.lower() for t in tokens[:2]]
    if len(words) == 2 and f"{words[0]} {words[1]}" in commands:
        return commands[f"{words[0]} {words[1]}"], tokens[2:]
    if words[0] in GROUPS:
        if len(tokens) == 1 or tokens[1].startswith("--"):
            return commands[GROUPS[words[0]]], tokens[1:]
        raise UsageError(f"Unknown {words[0]} command {tokens[1]!r}; try `waymarks --help`")
    if words[0] in commands:
        return commands[words[0]], tokens[1:]
    raise UsageError(f"Unknown command {tokens[0]!r}; try `waymarks --help`")


def run_tokens(app: Waymarks, tokens: list[str], env: Env, json_flag: set[str]) -> Result:
    """Parse ``tokens`` as one command and run it; ``--json`` may appear among them."""
    command, rest = find_command(tokens)
    if "--help" in rest[: rest.index("--") if "--" in rest else len(rest)]:
        return Result({"usage": f"waymarks {command.usage}", "summary": command.summary},
                      f"usage: waymarks {command.usage}\n  {command.summary}")
    args = parse_options(rest, command.options, command.flags | {"json"})
    if args.positionals and not command.takes_positionals:
        raise UsageError(f"Unexpected argument {args.positionals[0]!r}; usage: waymarks "
                         f"{command.usage}")
    if "json" in args.options:
        json_flag.add("json")
    return command.run(app, args, env)


def help_text() -> str:
    lines = ["usage: waymarks [--home DIR] [--session PATH|ID] [--cwd DIR] [--json] COMMAND ...",
             "", "Pins and durable memory for coding agents, kept in append-only session files.",
             "", "commands:"]
    lines += [f"  {c.usage}\n      {c.summary}" for c in _all_commands().values()]
    lines += ["  context ARGS\n      the same commands as one /context argument string",
              "", "WAYMARKS_HOME overrides the default home. Rejected writes exit with 2."]
    return "\n".join(lines)
