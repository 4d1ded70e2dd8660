"""The evolution worker: one attempt at consolidating one captured source (EVOLUTION G 57-69).

One attempt, in this order, and never a transaction open across the model call::

    expire old leases -> reconcile jobs from step.unsettled() -> pick a due job (no lock)
    -> choose a route (privacy, cooldowns, prices) -> lease (BEGIN IMMEDIATE)
    -> step.request_for -> privacy check of the request's classification
    -> reserve the call under the shared ceilings (BEGIN IMMEDIATE)
    -> client.complete (no transaction) -> the lease still ours? -> step.apply -> settle
       (a source's first contract break: one corrective call naming the rule, same model)

The queue runs any ``ConsolidationStep`` (``core/model_port.py``) against any
``ModelClient``; which clients exist is the adapters' business (``clients`` is passed in).

What must stay true:
- never a model call on a host's prompt path: only ``evolve``, the recovery tick and the
  hosts' background helpers call :meth:`EvolutionQueue.run_once`;
- no route configured, a provider policy that forbids every route, a cooldown or a spent
  ceiling: nothing is leased or reserved, the job stays due, and ``wait_reason`` says why;
- learning off for a job's origin (``waymarks learn off``, or a project's ``learn =
  false``), read again on every check and before every call: nothing of it is leased or
  sent (``learning_off``), so a long-lived process stops calling as soon as it is off;
- the configuration and the provider policy are read again at every check
  (``reload``, given by :func:`.evolution_wiring.open_queue`'s callers): a queue kept for hours (the
  recovery tick, Pi's bridge) sends nothing an edit of ``config.toml`` since has
  forbidden, and a file that no longer parses fails the check before anything is leased;
- a reply that arrives after the lease ended (or after the attempt's deadline) is never
  applied; a cancelled attempt returns the job to pending without a failure;
- what is persisted about a failure is an allowlisted code, never an exception's text.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from threading import Event

from waymarks.core.egress import Egress
from waymarks.core.evolution.limits import ModelLimits
from waymarks.core.evolution.request import corrective
from waymarks.core.evolution_policy import (
    NO_ANSWER_CODES,
    TRANSPORT_COOLDOWN_S,
    TRANSPORT_FAILURES_BEFORE_COOLDOWN,
    action_for,
    attempt_deadline_s,
    backoff_s,
    lease_s,
    should_pause,
    step_action,
)
from waymarks.core.model_port import (
    ConsolidationStep,
    ModelClient,
    ModelError,
    ModelReply,
    ModelRequest,
    Route,
)
from waymarks.core.privacy import PrivacyConfigError, ProviderPolicy
from waymarks.service.config import PROJECT_CONFIG
from waymarks.service.evolution_attempt import (
    Attempt,
    call_cost,
    ordered,
    route_keys,
    with_calls,
    worst_usd,
)
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.ports import iso
from waymarks.store.jobs import ANY_MODEL, Job, JobStore, Lease

#: how many unsettled sources one reconcile asks the step for
RECONCILE_BATCH = 64
#: how many due jobs one check looks at to find one it may attempt
CANDIDATES = 8
#: fresh requests one attempt may make after a stale reply (item 57: "bounded re-read")
STALE_REREADS = 1

ClientFactory = Callable[[RouteConfig], ModelClient]
#: the configuration and the provider policy in force now (raises for an invalid file)
Reload = Callable[[], tuple[EvolutionConfig, ProviderPolicy]]


def _system_ms() -> int:
    return int(time.time() * 1000)


class EvolutionQueue:
    """The worker over one ``JobStore``; use it from one thread (see ``SerialChain``)."""

    #: which sources the ledger settled (``open_queue``): their jobs heal at each check
    settled: Callable[[list[str]], set[str]] | None = None

    def __init__(self, store: JobStore, step: ConsolidationStep, config: EvolutionConfig,
                 policy: ProviderPolicy, clients: ClientFactory, *,
                 available: Callable[[RouteConfig], bool] = lambda route: True,
                 now_ms: Callable[[], int] = _system_ms,
                 jitter: Callable[[], float] = random.random,
                 cancel: Event | None = None,
                 learning: Callable[[str], bool] = lambda origin: True,
                 origin_policy: Callable[[str], ProviderPolicy | None] | None = None,
                 origin_config: Callable[[str], EvolutionConfig | None] | None = None,
                 reopen: Callable[[], JobStore] | None = None,
                 reload: Reload | None = None) -> None:
        self.store = store
        #: opens the store again when its file was replaced (:meth:`follow`)
        self._reopen = reopen or (lambda: JobStore(store.path))
        #: whether learning is on for an origin, asked before a job is leased and before
        #: each call (``open_queue`` gives the home's switch; a queue built alone, as
        #: its own tests do, runs every job)
        self.learning = learning
        #: the policy of the project a source was captured in (None: a file that cannot
        #: be read, so nothing is sent); each job also meets it (``open_queue``)
        self.origin_policy = origin_policy
        #: the configuration of the project a source was captured in (None: a file that
        #: cannot be honoured, so nothing is sent): its tightening (fallback off, lower
        #: caps) holds for its jobs whichever directory the queue runs from
        self.origin_config = origin_config
        self.step = step
        self.config = config
        self.policy = policy
        #: the configuration and policy in force now, read at the start of every check
        #: (None: the ones given stay, as for a queue built alone by its own tests)
        self.reload = reload
        self.clients = clients
        self.available = available
        self.now_ms = now_ms
        self.jitter = jitter
        self.cancel = cancel or Event()
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        #: the limits of a route's model (item 53): what the configuration declares
        #: (``contextWindow``/``maxTokens`` of the route), or what the host knows (Pi
        #: replaces this with its active model's); None: send as built
        self.limits: Callable[[RouteConfig], ModelLimits | None] = lambda route: route.limits
        #: requests this queue has sent (an attempt's calls are what it added: a route
        #: refused at reservation or never sent counts for nothing)
        self.sent = 0
        #: the code of the last route-level failure in this check (for fallback notices)
        self.last_route_error: str | None = None
        #: run by :meth:`close` after the store is closed (e.g. the step's ``Waymarks``)
        self.on_close: list[Callable[[], None]] = []

    def close(self) -> None:
        self.store.close()
        for closer in self.on_close:
            closer()
        self.on_close.clear()

    # --- routes ------------------------------------------------------------------------

    def routes(self) -> list[RouteConfig]:
        """Configured routes whose adapter can run here (``claude`` on PATH, ...)."""
        return [r for r in self.config.routes() if self.available(r)]

    def _usable(self, routes: list[RouteConfig], classification: str, now: int,
                origin: str) -> tuple[list[RouteConfig], str | None]:
        """Routes that may be tried for a source of ``classification`` captured in
        ``origin`` now, and, when none may, the wait reason of the first obstacle
        (privacy, price, cooldown)."""
        policy: ProviderPolicy | None = self.policy
        if self.origin_policy is not None:  # a queue's policy is its home's or project's
            own = self.origin_policy(origin)
            try:
                policy = self.policy.tightened_by(own) if own is not None else None
            except PrivacyConfigError:  # the two together allow a provider nothing
                policy = None
        if policy is None:
            return [], "privacy"
        # the source's level folds its marked spans into one: every level up to it must
        # be allowed (an exact allow list may skip one)
        allowed = [r for r in routes
                   if Egress.to(policy, r.provider).admits_all_up_to(classification)]
        if not allowed:
            return [], "privacy"
        if self.config.daily_usd is not None:
            allowed = [r for r in allowed if r.priced]
            if not allowed:
                return [], "price_unknown"
        cool = [r for r in allowed if self.store.cooling(r.provider, r.model, now) is None]
        return cool, (None if cool else "cooldown")

    # --- the attempt -------------------------------------------------------------------

    def reconcile(self) -> int:
        """Jobs for sources the step has captured and not settled; returns how many new.

        Sources with an open job (paused ones above all: an authority refusal leaves its
        source unsettled for good) come first in the step's oldest-first list, so the
        step is asked for that many more: a backlog of paused sources never hides a new
        one from the queue."""
        return self.store.add_jobs(
            self.step.unsettled(RECONCILE_BATCH + self.store.open_jobs()), self.now_ms())

    def run_once(self, source_id: str | None = None) -> Attempt:
        """One check: at most one source attempted. With ``source_id`` (``evolve
        SOURCE``) that source is forced: its delay, pause and per-source caps are
        overridden, the shared ceilings (hourly calls, daily spend) and cooldowns are not,
        and a settled source is never run again.

        ``evolution.db`` found damaged while in use (a page its open did not read) is set
        aside as on open and the check runs once more on a new one, whose jobs come back
        from the unsettled sources (before, ``evolve`` ended in a traceback, and a host's
        recovery tick failed every check)."""
        try:
            return self._check(source_id)
        except sqlite3.Error as exc:
            from waymarks.service.recovery import is_damage, set_queue_aside

            if not is_damage(exc):
                raise
            path, found = self.store.path, self.store.identity
            self.store.close()
            set_queue_aside(path, datetime.now(UTC), found)
        self.store = self._reopen()
        return self._check(source_id)

    def _check(self, source_id: str | None) -> Attempt:
        self.follow()
        if self.reload is not None:  # before anything is leased: an invalid file raises
            self.config, self.policy = self.reload()
        now = self.now_ms()
        self.store.expire_leases(now, self._retry_at(now))
        self.reconcile()
        if self.settled is not None:  # killed after the ledger's write: never tried again
            self.store.heal(self.settled, now)
        routes = self.routes()
        forced = source_id is not None
        if forced:
            job = self._named(str(source_id))
            if job is None:
                # a damaged row is named, not mistaken for an unknown source (item 79)
                bad = self.store.is_bad(str(source_id))
                return Attempt("bad_row" if bad else "unknown_source", source_id)
            if job.state in ("settled", "given_up"):
                return Attempt("done", job.source_id, job.state)
            if job.state == "leased" and (job.lease_until or 0) > now:
                return Attempt("busy", job.source_id)
            candidates = [job]
        else:
            candidates = self.store.due(now, CANDIDATES)
            if not candidates:
                return Attempt("idle")
        if not routes:
            self.store.mark_waiting(candidates[0].source_id, "no_route", now)
            return Attempt("waiting", candidates[0].source_id, "no_route")
        if self.store.calls_since(now - 3_600_000) >= self.config.calls_per_hour:
            self.store.mark_waiting(candidates[0].source_id, "hourly_cap", now)
            return Attempt("waiting", candidates[0].source_id, "hourly_cap")
        last: Attempt | None = None
        queue_config = self.config
        try:
            for job in candidates:
                self.config = queue_config
                if not self.learning(job.origin):
                    self.store.mark_waiting(job.source_id, "learning_off", now)
                    last = Attempt("waiting", job.source_id, "learning_off")
                    continue
                own = self._origin_config(job.origin)
                self.config = own or queue_config  # for this job's checks and attempt
                mine = [r for r in routes if own is not None and r in own.routes()]
                # an origin whose [evolution] cannot be honoured fails closed, and says so
                # (it was reported as "privacy", naming neither the file nor the key)
                usable, reason = self._usable(mine, job.classification, now, job.origin) \
                    if mine else ([], "origin_config_invalid" if own is None else "no_route")
                if not usable:
                    self.store.mark_waiting(job.source_id, str(reason), now)
                    last = Attempt("waiting", job.source_id, reason, file=str(
                        Path(job.origin) / PROJECT_CONFIG) if own is None else None)
                    continue
                lease = self.store.lease(
                    job.source_id, self.owner, now,
                    now + int(lease_s(self.config.timeout_ms / 1000) * 1000), forced=forced)
                if lease is None:
                    last = Attempt("busy", job.source_id)
                    continue
                return self._attempt(job, lease, mine, forced)
        finally:
            self.config = queue_config
        return last or Attempt("idle")

    def _origin_config(self, origin: str) -> EvolutionConfig | None:
        """The queue's configuration tightened by the one of the project ``origin`` (a
        trusted project's ``crossProviderFallback = false`` and lower caps: a queue run
        from another directory sent its text to a backup provider); None: the origin's
        file cannot be honoured, nothing of it is sent."""
        if self.origin_config is None:
            return self.config
        own = self.origin_config(origin)
        return None if own is None else self.config.narrowed_by(own)

    def follow(self) -> None:
        """Before a check: when another process replaced ``evolution.db`` (set aside as
        damaged, or moved aside by the person), work on the file at the path from now on
        (its jobs come back from the unsettled sources at reconcile)."""
        if self.store.replaced():
            self.store.close()
            self.store = self._reopen()

    def _named(self, given: str) -> Job | None:
        """The job ``given`` names: its source ID or a unique prefix, as typed or in lower
        case (source IDs are; ``SEAAD639`` was refused as an unknown source)."""
        for typed in dict.fromkeys((given, given.lower())):
            job = self.store.job(typed) or self._by_prefix(typed)
            if job is not None:
                return job
        return None

    def _by_prefix(self, prefix: str) -> Job | None:
        """The one job whose source ID starts with ``prefix`` (4+ characters), if unique."""
        if len(prefix) < 4:
            return None
        found = self.store.ids_starting(prefix, 2)
        return self.store.job(found[0]) if len(found) == 1 else None

    def _attempt(self, job: Job, lease: Lease, routes: list[RouteConfig],
                 forced: bool) -> Attempt:
        request = self.step.request_for(job.source_id)
        now = self.now_ms()
        if request is None:
            if not self.store.settle(lease, "no_change", now):
                return Attempt("late", job.source_id, "no_change")
            return Attempt("settled", job.source_id, "no_change")
        usable, reason = self._usable(routes, request.classification, now, job.origin)
        if not usable:
            self.store.release(lease, now, reason)
            return Attempt("waiting", job.source_id, reason)
        usable = ordered(usable, job)
        calls, start = 0, self.sent
        tried: list[tuple[str, str]] = []  # (provider, model): a model name is no route
        failed: RouteConfig | None = None
        capped = False
        notice: dict[str, str] | None = None
        self.last_route_error = None
        for route in usable:
            if (route.provider, route.model) in tried or self.store.cooling(
                    route.provider, route.model, self.now_ms()) is not None:
                continue  # tried, or cooled down by the failure just now (auth: the provider)
            if failed is not None and self.store.note_fallback(
                    (failed.provider, failed.model), (route.provider, route.model),
                    self.last_route_error or "unknown", self.now_ms()):
                # one notice per route pair per hour, for the host to show (item 66)
                notice = {"from": f"{failed.provider}/{failed.model}",
                          "to": f"{route.provider}/{route.model}",
                          "reason": self.last_route_error or "unknown"}
            off = self._learning_off(job, lease, calls)  # turned off while this went on
            if off is not None:
                return off
            before = self.sent
            outcome = self._call(job, lease, route, request, forced)
            if outcome is not None and outcome.reason == "source_models":
                capped = True  # one model more than the source may use: not this one
                continue
            # only requests sent count, as calls and as tried (before, a route refused at
            # reservation or too small for the request did too: "calls": 2 for one sent)
            calls = self.sent - start
            if self.sent > before:
                tried.append((route.provider, route.model))
            if outcome is not None:
                return with_calls(outcome, calls, notice=notice)
            failed = route
            # a route-level failure (auth, quota, rate limit, no API): try the next route
            # in the same attempt, within the source's model budget (the store's count of
            # the models that answered, or may have: a refusal spends none of it)
        now = self.now_ms()
        reason = "source_models" if capped else "cooldown"
        self.store.release(lease, now, reason)
        return Attempt("waiting", job.source_id, reason, calls=calls)

    def _call(self, job: Job, lease: Lease, route: RouteConfig, request: ModelRequest,
              forced: bool, *, correcting: bool = False, rereads: int = 0
              ) -> Attempt | None:
        """One reserved call and what follows it; None means "try the next route".
        ``correcting``: this call is the source's one format correction; ``rereads``: how
        many stale replies this attempt already re-read after."""
        now = self.now_ms()
        limits = self.limits(route)
        if limits is not None:
            from waymarks.core.evolution.limits import shape_request

            shaped = shape_request(request, limits)
            if shaped is None:
                # the model's window cannot hold this request (item 53): not sent; the
                # model is cooled down like a context overflow, the next route is tried
                self.store.cool_down(route.provider, route.model, now + 3_600_000,
                                     "bad_request", now)
                self.last_route_error = "bad_request"
                return None
            request = shaped
        current = self.store.job(job.source_id) or job
        # a forced attempt (`evolve SOURCE`) gets a fresh deadline: the cumulative budget
        # is one of the source's own caps it overrides
        deadline = attempt_deadline_s(self.config.timeout_ms / 1000,
                                      0.0 if forced else current.spent_ms / 1000,
                                      self.config.source_time_ms / 1000)
        if deadline <= 0:
            return self._give_up(lease, "budget_spent")
        reserved = self.store.reserve_call(
            lease, route.provider, route.model, now, hourly_cap=self.config.calls_per_hour,
            source_calls=self.config.source_calls, source_models=self.config.source_models,
            daily_usd=self.config.daily_usd, forced=forced,
            worst_usd=worst_usd(route, request))
        if isinstance(reserved, str):
            if reserved == "source_cap":  # its calls are spent: given up for good
                return self._give_up(lease, "budget_spent")
            if reserved == "source_models":  # the next route (the lease stays held)
                return Attempt("waiting", job.source_id, reserved)
            self.store.release(lease, now, reserved)
            return Attempt("waiting", job.source_id, reserved)
        if self.cancel.is_set():
            self.store.finish_call(reserved, "cancelled", now, 0)
            self.store.release(lease, now, None)
            return Attempt("cancelled", job.source_id)
        self.sent += 1
        started = time.monotonic()
        reply: ModelReply | None = None
        error: ModelError | None = None
        try:
            reply = self.clients(route).complete(request, Route(route.provider, route.model),
                                                 timeout_s=deadline)
        except ModelError as exc:
            error = exc
        except Exception:  # noqa: BLE001 - an adapter's own bug: a failed call, never a crash
            error = ModelError("unknown")  # (that leaves a reserved call row, a lease)
        except KeyboardInterrupt:
            # Ctrl-C while the model worked: a cancelled attempt, the job pending again
            # without a failure (the lease held the source "busy by another process" for
            # the lease's length, and its expiry then counted as a failed try)
            with contextlib.suppress(Exception):
                now = self.now_ms()
                self.store.finish_call(reserved, "cancelled", now,
                                       int((time.monotonic() - started) * 1000),
                                       **call_cost(route, request, None, None))
                self.store.release(lease, now, None)
            raise
        elapsed = time.monotonic() - started
        now = self.now_ms()
        duration = int(elapsed * 1000)
        # what a call sent cost, its reply's usage or an estimate erring high (a billed
        # call that failed cost nothing, and the daily ceiling never tripped)
        cost = call_cost(route, request, reply, error)
        if self.cancel.is_set() or (error is not None and error.code == "cancelled"):
            self.store.finish_call(reserved, "cancelled", now, duration, **cost)
            self.store.release(lease, now, None)
            return Attempt("cancelled", job.source_id, provider=route.provider,
                           model=route.model)
        if not self.store.holds(lease, now) or elapsed > deadline + 1.0:
            # late output never commits (items 54, 59): the lease is gone or the deadline
            # passed; the new owner (or the expired-lease sweep) decides what happens
            self.store.finish_call(reserved, "late", now, duration, **cost)
            return Attempt("late", job.source_id, provider=route.provider, model=route.model)
        if error is not None:
            self.store.finish_call(reserved, error.code, now, duration, **cost)
            if error.code in NO_ANSWER_CODES:  # refused unanswered: the source spent nothing
                self.store.refund_call(reserved)
            return self._failed(job, lease, route, error, now)
        assert reply is not None
        # turned off while the model worked: nothing of its reply is written (the call is
        # recorded as cancelled, its usage counted)
        off = self._learning_off(job, lease, 1, route)
        self.store.finish_call(reserved, "ok" if off is None else "cancelled", now, duration,
                               **cost)
        if off is not None:
            return off
        self.store.route_ok(route.provider, route.model, now)
        if not self.store.holds(lease, self.now_ms()):  # lost while the call was recorded
            return Attempt("late", job.source_id, provider=route.provider, model=route.model)
        try:
            outcome = self.step.apply(job.source_id, reply, iso(datetime.fromtimestamp(
                now / 1000, UTC)), secrets=route_keys(self.routes()))
        except Exception:  # noqa: BLE001 - a defect met on this reply: a failed attempt
            # (it left the lease to run out, recorded as interrupted, and every retry paid
            # for another call that crashed the same way)
            return self._failed(job, lease, route, ModelError("unknown"), self.now_ms())
        if outcome.code == "stale":
            return self._stale(job, lease, route, forced, reserved, rereads)
        effect = step_action(outcome.code)
        base = Attempt("settled", job.source_id, outcome.code, route.provider, route.model,
                       written=outcome.written)
        now = self.now_ms()
        late = Attempt("late", job.source_id, outcome.code, route.provider, route.model)
        if effect == "settled":
            # the lease may have run out while the step applied: the job is then not ours
            # to settle (the step's own settlement stands; the next owner finds the source
            # settled and records ``no_change`` without a call)
            return base if self.store.settle(lease, outcome.code, now) else late
        if (effect == "output" and not correcting and outcome.rule is not None
                and self.store.begin_correction(lease, now)):
            # the first contract break of a source: one corrective prompt naming the rule,
            # to the same model, in the same attempt (item 63); its break is persisted
            # first, so a crash cannot buy a second correction
            return self._again(job, lease, route, corrective(request, outcome.rule), forced,
                               correcting=True)
        failures, outputs = self.store.failures_of(job.source_id)
        pause = effect == "pause" or should_pause(failures + 1, outputs + 1)
        code = "invalid_output" if effect == "output" else "write_rejected"
        if not self.store.fail(lease, code, now, output=effect == "output", pause=pause,
                               retry_at=self._retry_at(now)):
            return late
        return with_calls(base, 0, "paused" if pause else "failed", code)

    def _stale(self, job: Job, lease: Lease, route: RouteConfig, forced: bool,
               call_id: int, rereads: int) -> Attempt | None:
        """The origin's memory changed while the model worked (item 57): nothing of the
        reply was written. A bounded re-read: one fresh request and call in this attempt
        (within the source's caps); past that the job is released, without a failure, for
        the next check."""
        self.store.call_outcome(call_id, "stale")
        if rereads < STALE_REREADS:
            fresh = self.step.request_for(job.source_id)
            if fresh is not None:
                return self._again(job, lease, route, fresh, forced, rereads=rereads + 1)
        self.store.release(lease, self.now_ms(), None)
        return Attempt("waiting", job.source_id, "stale", route.provider, route.model)

    def _again(self, job: Job, lease: Lease, route: RouteConfig, request: ModelRequest,
               forced: bool, *, correcting: bool = False, rereads: int = 0
               ) -> Attempt | None:
        """A second call in this attempt (the format correction, a stale re-read): the
        learning switch is read again before it is sent, as before the first."""
        off = self._learning_off(job, lease, 1, route)
        if off is not None:
            return off
        again = self._call(job, lease, route, request, forced, correcting=correcting,
                           rereads=rereads)
        return again  # its calls are counted by what it sent (the attempt's loop)

    def _learning_off(self, job: Job, lease: Lease, calls: int,
                      route: RouteConfig | None = None) -> Attempt | None:
        """None while learning is on for the job's origin; else the lease is released as
        ``learning_off`` (the job waits, without a failure) and nothing more is sent."""
        if self.learning(job.origin):
            return None
        self.store.release(lease, self.now_ms(), "learning_off")
        return Attempt("waiting", job.source_id, "learning_off",
                       route.provider if route else None, route.model if route else None,
                       calls=calls)

    def _failed(self, job: Job, lease: Lease, route: RouteConfig, error: ModelError,
                now: int) -> Attempt | None:
        action = action_for(error.code, error.retry_after_s)
        if action.cooldown != "none":
            model = ANY_MODEL if action.cooldown == "provider" else route.model
            self.store.cool_down(route.provider, model, now + int(action.cooldown_s * 1000),
                                 action.code, now)
        if action.transport and self.store.transport_failure(
                route.provider, route.model, now) >= TRANSPORT_FAILURES_BEFORE_COOLDOWN:
            self.store.cool_down(route.provider, route.model,
                                 now + int(TRANSPORT_COOLDOWN_S * 1000), action.code, now)
        if action.counts == "none":
            self.last_route_error = action.code
            return None  # the route failed, not the source: the next route may be tried
        failures, outputs = self.store.failures_of(job.source_id)
        output = action.counts == "output"
        pause = should_pause(failures + 1, outputs + (1 if output else 0))
        if not self.store.fail(lease, action.code, now, output=output, pause=pause,
                               retry_at=self._retry_at(now)):
            return Attempt("late", job.source_id, action.code, route.provider, route.model)
        return Attempt("paused" if pause else "failed", job.source_id, action.code,
                       route.provider, route.model)

    def _give_up(self, lease: Lease, code: str) -> Attempt:
        now = self.now_ms()
        if not self.store.give_up(lease, code, now):
            return Attempt("late", lease.source_id, code)  # not ours any more: no say
        self.step.give_up(lease.source_id, code, iso(datetime.fromtimestamp(now / 1000, UTC)))
        return Attempt("given_up", lease.source_id, code)

    def _retry_at(self, now: int) -> Callable[[int], int]:
        return lambda failures: now + int(backoff_s(failures, self.jitter()) * 1000)
