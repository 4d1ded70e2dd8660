"""Route-level state of ``evolution.db``: cooldowns, transport failures in a row and the
fallback notices (EVOLUTION items 63, 66). Split from :mod:`waymarks.store.jobs` (its
``JobStore`` takes these methods) so that module stays about jobs, leases and calls; the
same connection and the same short ``BEGIN IMMEDIATE`` writes."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import Final

from waymarks.store.job_rows import Cooldown
from waymarks.store.job_rows import code as _code

#: a fallback between the same two routes is noticed at most once in this window
NOTICE_WINDOW_MS: Final = 3_600_000
#: the provider-wide row of ``route_health`` uses this model name
ANY_MODEL: Final = "*"


class RouteState:
    """The route-health and notice methods of ``JobStore`` (which sets ``db`` and
    ``write``)."""

    db: sqlite3.Connection

    def write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def cooldowns(self, now: int) -> list[Cooldown]:
        rows = self.db.execute(
            "SELECT provider, model, cooldown_until, reason FROM route_health "
            "WHERE cooldown_until > ? ORDER BY provider, model", (now,))
        return [Cooldown(str(p), str(m), int(u), r) for p, m, u, r in rows]

    def cooling(self, provider: str, model: str, now: int) -> Cooldown | None:
        """The cooldown that blocks ``provider``/``model`` now, if any."""
        row = self.db.execute(
            "SELECT provider, model, cooldown_until, reason FROM route_health WHERE "
            "provider = ? AND model IN (?, ?) AND cooldown_until > ? "
            "ORDER BY cooldown_until DESC LIMIT 1", (provider, model, ANY_MODEL, now)).fetchone()
        return None if row is None else Cooldown(str(row[0]), str(row[1]), int(row[2]), row[3])

    # --- recovery notices ----------------------------------------------------------------

    def note_fallback(self, from_route: tuple[str, str], to_route: tuple[str, str],
                      reason: str, now: int) -> bool:
        """Record that a call fell back from one route to another (item 66). One notice per
        route pair per hour, across processes: True only for the one that is new (the
        host shows it; the others are the same news)."""
        _code(reason)
        with self.write() as db:
            seen = db.execute(
                "SELECT 1 FROM recovery_notices WHERE from_provider = ? AND from_model = ? "
                "AND to_provider = ? AND to_model = ? AND created_at > ? LIMIT 1",
                (*from_route, *to_route, now - NOTICE_WINDOW_MS)).fetchone()
            if seen is not None:
                return False
            db.execute(
                "INSERT INTO recovery_notices (from_provider, from_model, to_provider, "
                "to_model, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (*from_route, *to_route, reason, now))
            return True

    def recent_notices(self, since: int, limit: int = 5) -> list[dict[str, object]]:
        rows = self.db.execute(
            "SELECT from_provider, from_model, to_provider, to_model, reason, created_at "
            "FROM recovery_notices WHERE created_at > ? ORDER BY id DESC LIMIT ?",
            (since, limit))
        return [{"from": f"{fp}/{fm}", "to": f"{tp}/{tm}", "reason": reason, "at": at}
                for fp, fm, tp, tm, reason, at in rows]

    # --- route health ------------------------------------------------------------------

    def cool_down(self, provider: str, model: str, until: int, reason: str, now: int) -> None:
        """Cool a route down (never shortens a longer cooldown already in force)."""
        _code(reason)
        with self.write() as db:
            db.execute(
                "INSERT INTO route_health (provider, model, cooldown_until, reason, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (provider, model) DO UPDATE SET "
                "cooldown_until = MAX(cooldown_until, excluded.cooldown_until), "
                "reason = CASE WHEN excluded.cooldown_until > cooldown_until "
                "THEN excluded.reason ELSE reason END, updated_at = excluded.updated_at",
                (provider, model, until, reason, now))

    def transport_failure(self, provider: str, model: str, now: int) -> int:
        """Count a transport failure on a route; returns how many in a row."""
        with self.write() as db:
            db.execute(
                "INSERT INTO route_health (provider, model, transport_failures, updated_at) "
                "VALUES (?, ?, 1, ?) ON CONFLICT (provider, model) DO UPDATE SET "
                "transport_failures = transport_failures + 1, updated_at = excluded.updated_at",
                (provider, model, now))
            row = db.execute("SELECT transport_failures FROM route_health WHERE provider = ? "
                             "AND model = ?", (provider, model)).fetchone()
            return int(row[0])

    def route_ok(self, provider: str, model: str, now: int) -> None:
        """A call on the route came back: its transport failures are no longer in a row."""
        row = self.db.execute("SELECT transport_failures FROM route_health WHERE provider = ? "
                              "AND model = ?", (provider, model)).fetchone()
        if row is None or int(row[0]) == 0:
            return
        with self.write() as db:
            db.execute("UPDATE route_health SET transport_failures = 0, updated_at = ? "
                       "WHERE provider = ? AND model = ?", (now, provider, model))
