"""Where the two halves of memory evolution plug together for a Waymarks home.

The queue (``evolution_queue``) runs any ``ConsolidationStep``; the real one is the
consolidation half's :class:`waymarks.service.evolution.Evolution` over the home's
evolution ledger. Tests substitute a double with :func:`register_step` (``None`` restores
the real step). The recovery tick of a long-lived process starts only while learning is on
for the home: with it off nothing is captured, so there is nothing to consolidate.

What must stay true: registering a step starts nothing (no thread, no database, no call);
the adapters decide when a queue is opened and run (``open_for``), with the model clients
they choose, so ``service`` never imports an adapter package.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from waymarks.core.evolution_policy import CHILD_ENV, TICK_INTERVAL_S
from waymarks.core.model_port import ConsolidationStep
from waymarks.core.privacy import ProviderPolicy
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig, load_evolution_config
from waymarks.service.evolution_queue import ClientFactory, EvolutionQueue, Reload
from waymarks.service.evolution_tick import RecoveryTick
from waymarks.service.learning import learning_enabled

if TYPE_CHECKING:
    from threading import Event

    from waymarks.service.app import Waymarks
    from waymarks.store.jobs import JobStore

StepFactory = Callable[["Waymarks"], ConsolidationStep | None]


def _consolidation(app: Waymarks) -> ConsolidationStep:
    step = Evolution(app.home, clock=app.clock, ids=app.ids)
    if app.trust_override is not None:  # inside Pi: its decision on its project, now
        step.host_trust = (app.cwd, app.trust_override)
    return step


_factory: list[StepFactory] = [_consolidation]


def register_step(factory: StepFactory | None) -> None:
    """Make ``factory`` the consolidation step of this process (None: the real one)."""
    _factory[:] = [factory or _consolidation]


def step_for(app: Waymarks) -> ConsolidationStep | None:
    return _factory[0](app)


def _closing(queue: EvolutionQueue, step: ConsolidationStep) -> EvolutionQueue:
    """Close the step (its ledger and projection) with the queue."""
    close = getattr(step, "close", None)
    if callable(close):
        queue.on_close.append(close)
    return queue


def config_for(app: Waymarks) -> EvolutionConfig:
    """The queue's configuration for ``app``'s home and project (tightened by a trusted
    project's file). Raises ``EvolutionConfigError`` for an invalid file."""
    return load_evolution_config(app.home, app.cwd, trusted=app.project_trusted)


def settings_for(app: Waymarks) -> tuple[EvolutionConfig, ProviderPolicy]:
    """The queue's configuration and the provider policy in force for ``app`` now (a
    queue reads them again at every check: :attr:`EvolutionQueue.reload`)."""
    return config_for(app), app.settings().policy


def open_for(app: Waymarks, clients: ClientFactory, available: Callable[[RouteConfig], bool],
             *, cancel: Event | None = None) -> EvolutionQueue | None:
    """The queue for ``app``'s home, or None when no consolidation step is wired."""
    step = step_for(app)
    if step is None:
        return None
    return _closing(open_queue(app.home, step, *settings_for(app), clients, available,
                               cancel=cancel, reload=partial(settings_for, app)), step)


def start_recovery(home: Path, clients: ClientFactory,
                   available: Callable[[RouteConfig], bool], *,
                   interval_s: float = TICK_INTERVAL_S) -> RecoveryTick | None:
    """Start the recovery tick of a long-lived host process (Claude Code helper, MCP
    server); None when there is nothing to run: learning is off for the home, or this
    process was itself started by a consolidation call. The tick works on jobs of every
    origin, so it reads the HOME configuration only (a project's file cannot widen
    anything anyway), again at every check: an edit while the host runs (a provider
    allowed less, a route removed, a lower ceiling) applies at the next one.

    Nothing is opened here: the queue (and the step's ``Waymarks``) are made on the tick's
    own thread at its first check, 15 s after the start, never on a prompt's path."""
    if os.environ.get(CHILD_ENV) or not learning_enabled(home):
        return None

    def make() -> EvolutionQueue | None:
        from waymarks.service.app import Waymarks
        from waymarks.service.config import load_settings

        app = Waymarks(home, cwd=str(home), keep_recall_index=False)
        step = step_for(app)
        if step is None:
            app.close()
            return None

        def settings() -> tuple[EvolutionConfig, ProviderPolicy]:
            # the home's files as they are at each check: the tick lives for hours
            return load_evolution_config(home), load_settings(home, str(home), False).policy

        queue = open_queue(home, step, *settings(), clients, available, reload=settings)
        queue.on_close.append(app.close)
        return _closing(queue, step)

    tick = RecoveryTick(make, interval_s=interval_s)
    tick.start()
    return tick


def open_queue(home: Path, step: ConsolidationStep, config: EvolutionConfig,
               policy: ProviderPolicy, clients: ClientFactory,
               available: Callable[[RouteConfig], bool], *,
               cancel: Event | None = None, reload: Reload | None = None) -> EvolutionQueue:
    """The queue over ``<home>/evolution.db`` (created 0600 on first use). Every queue of
    a home is made here, so each obeys the learning switch and the privacy policy of each
    job's origin (the project the source was captured in);
    ``reload``: how a queue that lives on reads ``config`` and ``policy`` again at each
    check."""
    from datetime import UTC, datetime

    from waymarks.service.config import origin_policy
    from waymarks.service.evolution_config import origin_evolution_config
    from waymarks.service.learning import learning_enabled
    from waymarks.service.recovery import open_job_store
    from waymarks.store.evolution_probe import settled_sources

    def reopen() -> JobStore:
        return open_job_store(home, datetime.now(UTC))

    queue = EvolutionQueue(reopen(), step, config, policy, clients, available=available,
                           cancel=cancel, learning=lambda origin: learning_enabled(home, origin),
                           origin_policy=lambda origin: origin_policy(home, origin),
                           origin_config=lambda origin: origin_evolution_config(home, origin),
                           reopen=reopen, reload=reload)
    queue.settled = lambda ids: settled_sources(home / "waymarks.db", ids)
    return queue
