"""``waymarks evolve [SOURCE]`` and ``waymarks evolution status``: memory evolution's job
queue from the terminal (EVOLUTION items 69, 70).

``evolve`` runs ONE attempt now, in this process: the named source (its retry delay, pause
and per-source caps overridden; the shared hourly and daily ceilings and route cooldowns
never), or else the next due one. A settled source is never run again. ``evolution status``
reads the queue and calls nothing.

The model clients are chosen here (``waymarks.models``), so the service never imports an
adapter; nothing here is on a host's prompt path. The service is imported inside the commands, so
help stays quick.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import click

from waymarks.commands.base import EXIT_ERROR, Group, Result, command, runtime
from waymarks.commands.render import refused
from waymarks.core.text import echoed, unknown_id

if TYPE_CHECKING:
    from waymarks.core.model_port import ModelClient
    from waymarks.service.evolution_config import RouteConfig

_DONE = {"settled", "idle", "done"}
_TEXT = {
    "settled": "Consolidated {source} ({reason}, {written} claim(s) written) with "
               "{provider}/{model}.",
    "idle": "Nothing is due: every captured source is settled, waiting out its retry delay, "
            "paused, or held by an attempt in progress (one whose process died is free "
            "again when its lease ends; see `waymarks evolution status`).",
    "done": "{source} is already {reason}; it is never run again.",
    "waiting": "{source} was not attempted: {why}",
    "failed": "The attempt on {source} failed ({reason}); it is retried after its backoff.",
    "paused": "{source} is paused ({reason}); `waymarks evolve {source}` tries it again.",
    "given_up": "{source} spent its call budget ({reason}); it will not be retried.",
    "busy": "{source} is being attempted by another process right now.",
    "late": "The reply for {source} came after its lease ended and was not applied.",
    "cancelled": "The attempt on {source} was cancelled; it stays pending.",
    "unknown_source": "",  # (said as every unknown ID is: below)
    "bad_row": "The queue row of {source} is damaged and left out; see `waymarks evolution "
               "status`.",
}


def clients(route: RouteConfig) -> ModelClient:
    from waymarks.models import route_client  # httpx only when a call is made

    return route_client(route)


def available(route: RouteConfig) -> bool:
    from waymarks.models import route_is_available

    return route_is_available(route)


def register_evolution(root: Group) -> None:
    @command(root, "evolve", summary="Consolidate one captured source now (the next due "
             "one, or SOURCE).", examples=["waymarks evolve", "waymarks evolve 3f2a9c1e"])
    @click.argument("source", required=False, metavar="[SOURCE]")
    def evolve(source: str | None) -> Result:
        """One attempt, with the model route of [evolution] in the home config.toml. SOURCE
        (a source ID or a unique prefix of 4+ characters) overrides the source's retry
        delay, pause and own caps, never the shared hourly or daily ceilings; a settled
        source is never run again."""
        from waymarks.commands.learn import configured
        from waymarks.service.evolution_status import WAIT_TEXT
        from waymarks.service.evolution_wiring import open_for
        from waymarks.service.learning import learning_state

        run = runtime()
        app = run.app()
        learning = configured(lambda: learning_state(app.home, app.cwd))
        if not learning.enabled:  # nothing is sent (the queue also checks each job's origin)
            return refused("learning_off", "learning is off for this directory; " + (
                "its .waymarks/config.toml sets [evolution] learn = false"
                if learning.project_off else
                f"`waymarks{run.home_option(str(app.home))} learn on` to turn it on"))
        queue = configured(lambda: open_for(app, clients, available))
        if queue is None:
            return refused("unavailable", "memory consolidation is not wired in this build "
                           "(no consolidation step is registered)")
        try:
            attempt = queue.run_once(source)
        finally:
            queue.close()
        data: dict[str, Any] = attempt.to_json()
        why = WAIT_TEXT.get(attempt.reason or "", attempt.reason or "")
        if attempt.file is not None:  # the file to fix (`evolution status` there says why)
            why += f": {echoed(attempt.file)}"
        shown = echoed(attempt.source_id or source or "")  # an unknown one is the argument
        # a call that was made and then told to wait (a 429) was "not attempted" before
        form = "{source} was attempted and now waits: {why}" if (
            attempt.outcome == "waiting" and attempt.calls) else _TEXT[attempt.outcome]
        if attempt.outcome == "settled" and attempt.provider is None:  # nothing was sent
            form = ("Consolidated {source} ({reason}, {written} claim(s) written); no model "
                    "call was needed.")
        text = form.format(source=shown, why=why, reason=attempt.reason,
                           provider=attempt.provider, model=attempt.model,
                           written=attempt.written or 0)
        if attempt.outcome == "unknown_source":  # an unknown ID: refused as every command's
            refusal = refused("not_found", unknown_id(
                "captured source", attempt.source_id or source or "", "in the learning queue",
                "waymarks evolution status") + " (a source ID, or a unique prefix of 4+ "
                "characters)")
            refusal.data["sourceId"] = shown
            return refusal
        if attempt.outcome in _DONE:
            return Result(data, text)
        # a failed attempt: its outcome is the code a script reads, as in every error
        return Result({**data, "code": attempt.outcome, "message": text}, text, EXIT_ERROR)

    group = Group("evolution", default="status", help="Memory evolution's job queue.",
                  examples=["waymarks evolution status", "waymarks evolution status --json"])

    @command(group, "status", summary="Pending, retrying and paused sources, recent "
             "failures, routes, cooldowns and budgets.",
             examples=["waymarks evolution status --json"])
    def status() -> Result:
        """Reads the queue (<home>/evolution.db) and the configuration; calls no model."""
        from waymarks.commands.evolution_observe import outcome_line
        from waymarks.commands.learn import configured
        from waymarks.service.evolution_observe import outcomes
        from waymarks.service.evolution_status import evolution_status
        from waymarks.service.evolution_wiring import config_for
        from waymarks.service.learning import learning_enabled

        run = runtime()
        app = run.app()
        config = configured(lambda: config_for(app))
        # first: it brings the projection up to the evolution ledger, which the counts
        # read (after `waymarks.db` was deleted they said 0 pending for a captured source)
        learned = outcomes(app.home)  # processed is not changed (issue 19)
        data = evolution_status(app.home, config, app.settings().policy,
                                int(time.time() * 1000), available=available,
                                learning=learning_enabled(app.home, app.cwd),
                                turn_on=f"waymarks{run.home_option(str(app.home))} learn on")
        data["learned"] = learned
        return Result(data, "\n".join([_status_text(data), outcome_line(data["learned"])]))

    root.add_command(group)


def _status_text(data: dict[str, Any]) -> str:
    counts = data["counts"]
    lines = []
    if data["blocked"]:
        lines.append(f"Not running: {data['blocked']}.")
    lines.append(f"Sources: {counts['pending']} pending, {counts['retrying']} retrying, "
                 f"{counts['paused']} paused, {counts['leased']} in flight, "
                 f"{counts['settled']} settled, {counts['given_up']} given up")
    lines += [f"Waiting ({w['jobs']}): {w['why']}"
              + (f" ({', '.join(echoed(f) for f in w['files'])})" if w.get("files") else "")
              for w in data["waiting"]]
    for job in data["failed"]:
        due = f", next due {job['nextDueAt']}" if job["nextDueAt"] else ""
        lines.append(f"Failed: {job['sourceId']} {job['state']} ({job['lastError']}, "
                     f"{job['failures']} failures{due})")
    for route in data["routes"]:
        cooling = f", cooling down until {route['cooldownUntil']}" \
            if route["cooldownUntil"] else ""
        key = ""  # an unset variable not named as variables are is not shown (a pasted key?)
        if route.get("keyEnv"):
            key = f", key from ${route['keyEnv']} ({'set' if route['keySet'] else 'NOT set'})"
        elif route.get("keyNamed"):
            key = ", key (the variable named by keyEnv is not set)"
        where = f" at {route['endpoint']}" if route["endpoint"] else ""  # shown_endpoint's
        lines.append(f"Route: {route['provider']}/{route['model']} via {route['api']}{where}"
                     f"{'' if route['available'] else ' (not available here)'}{key}{cooling}")
    host = data.get("hostRoute")
    if host:
        lines.append(f"Model: {host['host']}'s active model ({host['provider']}/"
                     f"{host['model']}), called by the Waymarks {host['host']} extension "
                     "while it runs" + ("; the routes above are its backups"
                                        if data["routes"] else ""))
    lines += [f"Unreadable: {note} (remove it: Waymarks writes it again)"
              for note in data.get("unreadableNotes") or []]
    if not data["routes"] and not host:
        lines.append("Routes: none configured ([evolution] in the home config.toml)")
    budgets = data["budgets"]
    lines.append(f"Calls in the last hour: {budgets['callsLastHour']} of "
                 f"{budgets['callsPerHour']}")
    if budgets["dailyEstimatedUsd"] is not None:
        lines.append(f"Estimated spend, 24 h: ${budgets['estimatedUsd24h']:.4f} of "
                     f"${budgets['dailyEstimatedUsd']:.2f}")
    lines += [f"Ignored: {i}" for i in data["config"]["ignored"]]
    lines += [f"Fallback: {n['from']} failed ({n['reason']}), {n['to']} used, at {n['at']}"
              for n in data.get("notices") or []]
    spool = data.get("captureQueue") or {}
    if spool.get("pending"):
        lines.append(f"Captures waiting to be stored: {spool['pending']} (retried at the next "
                     "turn, tick or `waymarks evolve`)")
    if spool.get("setAside"):
        lines.append(f"Captures set aside after {20} failed tries, or as not regular files "
                     f"(in <home>/evolution/spool/failed/): {', '.join(spool['setAside'])}; "
                     "see the log for the code")
    lines += _health_text(data.get("health") or {})
    return "\n".join(lines)


def _health_text(health: dict[str, Any]) -> list[str]:
    """Damaged rows by ID, with the fix (item 79); nothing when every row is well formed."""
    lines = []
    queue = health.get("queue") or {}
    if queue and not queue.get("ok", True):
        named = queue["badJobs"] + [str(c) for c in queue["badCalls"]] + queue["badRoutes"]
        lines.append(f"Damaged queue rows in evolution.db (left out): {', '.join(named)}; "
                     "move evolution.db aside to start the queue afresh (jobs come back "
                     "from the unsettled sources)")
    if health.get("damagedQueues"):
        lines.append(f"Damaged queue databases set aside (a new one was made; its jobs came "
                     f"back from the unsettled sources): {', '.join(health['damagedQueues'])}")
    projection = health.get("projection") or {}
    edited = projection.get("editedRecords") or []
    if edited:  # folded again as they are: rebuild-index cannot mend them
        lines.append(f"Learned claims whose record in the evolution ledger was edited (the "
                     f"text no longer matches the ID; left out): {', '.join(edited)}; "
                     "restore the lines in <home>/evolution/ledger.jsonl, or forget the "
                     "claims with `waymarks evolution forget ID`")
    if projection.get("readable") and not projection.get("ok", True):
        bad = {name: {**v, "ids": [i for i in v["ids"] if i not in edited]}
               for name, v in (projection.get("bad") or {}).items()}
        parts = [f"{name} {', '.join(v['ids'])}" for name, v in bad.items() if v["ids"]]
        if projection.get("schema") != projection.get("expectedSchema"):
            parts.append(f"schema {projection.get('schema')} (expected "
                         f"{projection.get('expectedSchema')})")
        if projection.get("marker") is False:
            parts.append("the fold checkpoint")
        if parts:
                lines.append(f"Damaged learned-memory rows in waymarks.db (left out): "
                         f"{'; '.join(parts)}; run `waymarks rebuild-index` to fold the "
                         "evolution ledger again")
    return lines
