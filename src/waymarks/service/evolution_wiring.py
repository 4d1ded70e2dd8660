"""Where the two halves of memory evolution plug together for a Waymarks home.

The queue (this package's ``evolution_queue``) runs any ``ConsolidationStep``; the
consolidation half provides the real one. Until the lead wires it, no step is registered
and every entry point (``waymarks evolve``, the recovery tick) says evolution is not
available rather than pretending. The one call the other half makes::

    from waymarks.service.evolution_wiring import register_step
    register_step(lambda app: MyConsolidationStep(app))   # returns None to opt out

What must stay true: registering a step starts nothing (no thread, no database, no call);
the adapters decide when a queue is opened and run (``open_for``), with the model clients
they choose, so ``service`` never imports an adapter package.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from waymarks.core.evolution_policy import CHILD_ENV, TICK_INTERVAL_S
from waymarks.core.model_port import ConsolidationStep
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig, load_evolution_config
from waymarks.service.evolution_queue import ClientFactory, EvolutionQueue, open_queue
from waymarks.service.evolution_tick import RecoveryTick

if TYPE_CHECKING:
    from threading import Event

    from waymarks.service.app import Waymarks

StepFactory = Callable[["Waymarks"], ConsolidationStep | None]
_factory: list[StepFactory] = []


def register_step(factory: StepFactory | None) -> None:
    """Make ``factory`` the consolidation step of this process (None: none)."""
    _factory.clear()
    if factory is not None:
        _factory.append(factory)


def step_for(app: Waymarks) -> ConsolidationStep | None:
    return _factory[0](app) if _factory else None


def config_for(app: Waymarks) -> EvolutionConfig:
    """The queue's configuration for ``app``'s home and project (tightened by a trusted
    project's file). Raises ``EvolutionConfigError`` for an invalid file."""
    return load_evolution_config(app.home, app.cwd, trusted=app.project_trusted)


def open_for(app: Waymarks, clients: ClientFactory, available: Callable[[RouteConfig], bool],
             *, cancel: Event | None = None) -> EvolutionQueue | None:
    """The queue for ``app``'s home, or None when no consolidation step is wired."""
    step = step_for(app)
    if step is None:
        return None
    return open_queue(app.home, step, config_for(app), app.settings().policy, clients,
                      available, cancel=cancel)


def start_recovery(home: Path, clients: ClientFactory,
                   available: Callable[[RouteConfig], bool], *,
                   interval_s: float = TICK_INTERVAL_S) -> RecoveryTick | None:
    """Start the recovery tick of a long-lived host process (Claude Code helper, MCP
    server); None when there is nothing to run: no step wired, or this process was itself
    started by a consolidation call. The tick works on jobs of every origin, so it reads
    the HOME configuration only (a project's file cannot widen anything anyway).

    Nothing is opened here: the queue (and the step's ``Waymarks``) are made on the tick's
    own thread at its first check, 15 s after the start, never on a prompt's path."""
    if os.environ.get(CHILD_ENV) or not _factory:
        return None

    def make() -> EvolutionQueue | None:
        from waymarks.service.app import Waymarks
        from waymarks.service.config import load_settings

        app = Waymarks(home, cwd=str(home), keep_recall_index=False)
        step = step_for(app)
        if step is None:
            app.close()
            return None
        policy = load_settings(home, str(home), False).policy
        queue = open_queue(home, step, load_evolution_config(home), policy, clients,
                           available)
        queue.on_close.append(app.close)
        return queue

    tick = RecoveryTick(make, interval_s=interval_s)
    tick.start()
    return tick
