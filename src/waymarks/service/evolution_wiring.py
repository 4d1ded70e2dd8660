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

from collections.abc import Callable
from typing import TYPE_CHECKING

from waymarks.core.model_port import ConsolidationStep
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig, load_evolution_config
from waymarks.service.evolution_queue import ClientFactory, EvolutionQueue, open_queue

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
