"""``waymarks evolution status``: what the queue is doing and why (EVOLUTION item 70).

Pending/retrying/paused counts, why due jobs wait, at most five failed jobs with their next
due time, the routes with their cooldowns, the budgets (hourly calls, rolling-24 h estimated
spend) and recent model outcomes. It reads ``evolution.db`` and the configuration only; it
never creates the database, never calls a model, and shows codes and IDs, never stored text,
provider bodies or keys (a route shows the *name* of its key variable and whether it is set).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, Final

from waymarks.core.codec import utc_clamped
from waymarks.core.privacy import ProviderPolicy
from waymarks.files.atomic import NotARegularFile, write_atomic
from waymarks.files.reading import read_regular
from waymarks.service.capture_spool import pending, set_aside
from waymarks.service.config import PROJECT_CONFIG
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_notes import (
    NOTE_BYTES,
    host_route_path,
    read_note,
    unreadable_notes,
)
from waymarks.service.learning import learning_enabled
from waymarks.service.ports import iso
from waymarks.service.recovery import damaged_copies, using_job_store
from waymarks.store.evolution_probe import (
    check_projection,
    every_settled_source,
    settled_sources,
    unsettled_sources,
)
from waymarks.store.jobs import DB_FILE, JobStore

PROJECTION_DB = "waymarks.db"

#: failed jobs listed in detail
FAILED_SHOWN = 5
#: at most this many directories whose jobs wait as learning_off are checked again
OFF_CHECKED = 64
#: at most this many leased jobs are read for those whose lease ended
LEASES_CHECKED = 64
#: a variable's name as such names are written (capitals, digits, underscores): one that
#: is not set is still named in status; any other unset one may be a pasted key
_CONVENTIONAL: Final = re.compile(r"[A-Z][A-Z0-9_]*")


def note_host_route(home: Path, host: str, provider: str, model: str) -> None:
    """Record that ``host`` offers its own active model to this home's queue (written only
    when it changed: the Pi timer calls this every 15 s)."""
    path = host_route_path(home)
    data = json.dumps({"host": host, "provider": provider[:200], "model": model[:200]},
                      sort_keys=True)
    try:
        if read_regular(path, limit=NOTE_BYTES) == data.encode("utf-8"):
            return
    except NotARegularFile:  # (a FIFO was waited on, every 15 s): status names it
        return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomic(path, data, mode=0o600)


def host_route(home: Path) -> dict[str, str] | None:
    """The host model last noted for ``home`` (None: none, or an unreadable note)."""
    try:
        found = read_note(host_route_path(home))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(found, dict) or not all(
            isinstance(found.get(k), str) for k in ("host", "provider", "model")):
        return None
    return {k: str(found[k]) for k in ("host", "provider", "model")}


WAIT_TEXT = {
    "no_route": "no model route is configured or reachable ([evolution] in the home "
                "config.toml, or `claude` on PATH; inside Pi, the Waymarks extension uses "
                "Pi's own model), or the key variable a route names is not set in the "
                "process that tried",
    "privacy": "the provider policy does not let any configured provider receive the "
               "source's classification",
    "cooldown": "every usable route is cooling down after provider errors",
    "hourly_cap": "the shared hourly call ceiling (callsPerHour) is spent",
    # (``hourly_cap`` as its last check recorded it, where the last hour's calls are now
    # below the ceiling: raised since, or the calls aged out)
    "hourly_room": "the shared hourly call ceiling (callsPerHour) was spent at its last "
                   "check and has room now: it is taken at the next check (or `waymarks "
                   "evolve`)",
    "daily_budget": "the rolling-24 h estimated spend (dailyEstimatedUsd) is spent",
    "price_unknown": "dailyEstimatedUsd is set but no usable route has prices "
                     "(inputUsdPerMTok/outputUsdPerMTok)",
    "source_cap": "the source spent its own call budget",
    "origin_config_invalid": "the [evolution] table of the project it was captured in (its "
                             ".waymarks/config.toml, trusted here) is invalid, so nothing of "
                             "it is sent until the file is fixed",
    "source_models": "the models it may use (sourceModels) are cooling down, and another "
                     "would be one too many; it waits for one of them",
    "learning_off": "learning is off for its directory (`waymarks learn on`, or its "
                    "project's [evolution] learn = false): nothing more of it is sent",
    # (``learning_off`` as its last check recorded it, where learning is on now)
    "learning_back_on": "learning was off for its directory at its last check and is on "
                        "now: it is taken at the next check (or `waymarks evolve`)",
    "stale": "the learned memory of its directory changed while the model worked; the "
             "reply was not applied and the source is tried again with a fresh view",
}


def _when(ms: int | None) -> str | None:
    return None if not ms else iso(utc_clamped(ms))


def unrouted(home: Path, available: Iterable[bool]) -> str | None:
    """Why no model consolidates what is learned (:data:`WAIT_TEXT`'s ``no_route``) when no
    route of ``available`` (one flag per configured route: usable here) is and no host
    brings its own model (:func:`host_route`); ``None`` when one does."""
    if any(available) or host_route(home) is not None:
        return None
    return WAIT_TEXT["no_route"]


@dataclass(frozen=True)
class _QueueReads:
    """What status reads from the queue's store (all empty without one)."""

    counts: dict[str, int] = field(default_factory=dict)
    queued: set[str] = field(default_factory=set)
    waiting: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    off: list[str] = field(default_factory=list)  # origins of jobs waiting as learning_off
    failed: list[Any] = field(default_factory=list)
    cooldowns: list[Any] = field(default_factory=list)
    hour: int = 0
    usd: float = 0.0
    recent: list[dict[str, Any]] = field(default_factory=list)
    health: dict[str, Any] | None = None
    notices: list[dict[str, Any]] = field(default_factory=list)


def _ended_leases(store: JobStore, now_ms: int) -> list[Any]:
    """Jobs whose lease ended with its process (killed mid-attempt), shown as what the
    counts call them and the next check records: retrying, ``interrupted``, due since the
    lease ended (they were counted as retrying, and listed nowhere)."""
    from waymarks.core.records import replace

    return [replace(j, state="retrying", last_error="interrupted", retry_at=j.lease_until)
            for j in store.jobs_in(("leased",), LEASES_CHECKED)
            if j.lease_until is not None and j.lease_until <= now_ms][:FAILED_SHOWN]


def _queue_reads(store: JobStore, *, now_ms: int, home: Path) -> _QueueReads:
    # healed first from the learned ledger (brought up to it by `outcomes`): a job whose
    # process was killed after the ledger's write was counted retrying while `learn
    # status` counted its source settled
    store.heal(partial(settled_sources, home / PROJECTION_DB), now_ms)
    return _QueueReads(
        counts=store.counts(now_ms), queued=store.source_ids(),
        waiting=store.wait_reasons(),
        # the files to fix, by the origins that wait on them (the error names the key)
        files=[str(Path(o) / PROJECT_CONFIG) for o in store.origins_waiting(
            "origin_config_invalid", FAILED_SHOWN)],
        off=store.origins_waiting("learning_off", OFF_CHECKED),
        failed=(_ended_leases(store, now_ms) + store.jobs_in(
            ("retrying", "paused", "given_up"), FAILED_SHOWN))[:FAILED_SHOWN],
        cooldowns=store.cooldowns(now_ms), hour=store.calls_since(now_ms - 3_600_000),
        usd=store.usd_since(now_ms - 86_400_000), recent=store.recent_calls(5),
        health=store.check().to_json(), notices=store.recent_notices(now_ms - 86_400_000))


def evolution_status(home: Path, config: EvolutionConfig, policy: ProviderPolicy, now_ms: int,
                     *, available: Callable[[RouteConfig], bool], learning: bool,
                     turn_on: str = "waymarks learn on") -> dict[str, Any]:
    """The queue's state for ``evolution status``; ``turn_on``: the command that turns
    learning on for ``home`` (with its ``--home`` where a bare command uses another)."""
    routes = config.routes()
    exists = os.path.lexists(home / DB_FILE)  # a dangling link too: it is refused
    read = using_job_store(home, datetime.now(UTC), partial(
        _queue_reads, now_ms=now_ms, home=home)) if exists else _QueueReads()
    counts, waiting, files, failed, cooldowns, hour, usd, recent, queue_health, notices = (
        read.counts, read.waiting, read.files, read.failed, read.cooldowns, read.hour,
        read.usd, read.recent, read.health, read.notices)
    # a captured source gets its job when the queue next runs (a tick, `evolve`): until
    # then it waits all the same, and the counts said 0 pending
    unqueued = len(unsettled_sources(home / PROJECTION_DB) - read.queued)
    # a wait for learning is what the last check found: once the switch is on again for
    # every such directory, saying "learning is off" (run `learn on`) is no longer true
    back_on = bool(read.off) and len(read.off) < OFF_CHECKED and all(
        learning_enabled(home, origin) for origin in read.off)
    if unqueued:
        counts = {**counts, "pending": counts.get("pending", 0) + unqueued}
    # and one the ledger settled before the queue made its job (a person's forget settles
    # the queued sources repeating the claim): the ledger is canonical, `learn status`
    # counted it, and status said "0 settled" beside "Processed 1 source"
    unrecorded = len(every_settled_source(home / PROJECTION_DB) - read.queued)
    if unrecorded:
        counts = {**counts, "settled": counts.get("settled", 0) + unrecorded}
    route_rows = []
    for route in routes:
        row = route.to_json()
        row["available"] = available(route)
        row["keySet"] = bool(route.key_env and os.environ.get(route.key_env, "").strip())
        row["keyNamed"] = route.key_env is not None
        if not row["keySet"] and not _CONVENTIONAL.fullmatch(route.key_env or ""):
            # a name no variable holds may be a key pasted in its place (no credential
            # rule knows every provider's keys): shown only when it is written as
            # variables are (OPENAI_API_KEY), so the person knows which one to set
            row["keyEnv"] = None
        row["receives"] = sorted(policy.allowed(route.provider))
        cooling = [c for c in cooldowns if c.provider == route.provider
                   and c.model in (route.model, "*")]
        row["cooldownUntil"] = _when(max((c.until_ms for c in cooling), default=0))
        route_rows.append(row)
    blocked = unrouted(home, [bool(row["available"]) for row in route_rows])
    if blocked is None and not learning:
        blocked = f"learning is off for this home: nothing new is captured ({turn_on})"
    for call in recent:
        call["reservedAt"] = _when(int(str(call["reservedAt"])))
    return {
        "learning": learning,
        "blocked": blocked,
        "counts": {k: counts.get(k, 0) for k in ("pending", "retrying", "leased", "paused",
                                                  "settled", "given_up")},
        "waiting": [{"reason": r, "jobs": n, "why": WAIT_TEXT.get(
                        "learning_back_on" if r == "learning_off" and back_on else
                        "hourly_room" if r == "hourly_cap" and hour < config.calls_per_hour
                        else r, r),
                     **({"files": files} if r == "origin_config_invalid" else {})}
                    for r, n in sorted(waiting.items())],
        "failed": [{"sourceId": j.source_id, "state": j.state, "lastError": j.last_error,
                    "failures": j.failures, "outputFailures": j.output_failures,
                    "calls": j.calls, "nextDueAt": _when(j.retry_at) if j.state == "retrying"
                    else None} for j in failed],
        "routes": route_rows,
        # Pi's active model, called by the Waymarks Pi extension while Pi runs (configured
        # routes, if any, are its backups)
        "hostRoute": host_route(home),
        # notes in the evolution directory that cannot be read (what is in their place)
        "unreadableNotes": unreadable_notes(home),
        "cooldowns": [{"provider": c.provider, "model": c.model, "until": _when(c.until_ms),
                       "reason": c.reason} for c in cooldowns],
        "budgets": {"callsLastHour": hour, "callsPerHour": config.calls_per_hour,
                    "estimatedUsd24h": round(usd, 6), "dailyEstimatedUsd": config.daily_usd,
                    **config.limits_json()},
        "recentCalls": recent,
        # fallbacks between routes in the last 24 h (one per route pair per hour)
        "notices": [{**n, "at": _when(int(str(n["at"])))} for n in notices],
        "config": {"files": list(config.sources), "ignored": list(config.ignored)},
        # capture requests waiting to be stored (item 11), and those set aside after
        # failing every retry (file names: host, session, event; never content)
        "captureQueue": {"pending": len(pending(home)), "setAside": set_aside(home)},
        # rows that are not well formed, by ID only (item 79): readers leave them out
        "health": {"queue": queue_health,
                   "projection": _with_edited(home, check_projection(home / PROJECTION_DB)),
                   # queue databases found damaged and set aside (kept, never read again)
                   "damagedQueues": damaged_copies(home / DB_FILE)},
    }


def _with_edited(home: Path, projection: dict[str, Any]) -> dict[str, Any]:
    """The projection's check, with ``editedRecords``: the claims among its damaged rows
    whose record in the evolution ledger was edited (``rebuild-index`` folds them again
    as they are; the status said to run it). The ledger is read only when there are."""
    bad = ((projection.get("bad") or {}).get("claims") or {}).get("ids") or []
    if not bad:
        return projection
    from waymarks.service.evolution import Evolution, LedgerDamaged
    from waymarks.service.evolution_recall import edited_records

    try:
        with Evolution(home) as evo:
            edited = set(edited_records(evo.ledger))
    except LedgerDamaged:  # said by the learning commands themselves
        return projection
    return {**projection, "editedRecords": [i for i in bad if i in edited]}
