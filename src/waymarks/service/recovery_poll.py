"""Whether a long-lived host process runs memory evolution's recovery tick: polled on each
request, it starts the tick once learning is on for the home.

What must stay true: a poll while learning is off imports none of evolution (the queue,
the fold, the model routes: ~20 ms of a server's start, which a client waits for before
its first answer); with the tick running, or the home's configuration unchanged since the
last look, a poll costs one ``stat``. What the tick does is
:func:`waymarks.service.evolution_wiring.start_recovery`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from waymarks.files.reading import stamp_of
from waymarks.service.learning import CONFIG_FILE, learning_enabled

if TYPE_CHECKING:
    from waymarks.service.evolution_config import RouteConfig
    from waymarks.service.evolution_queue import ClientFactory
    from waymarks.service.evolution_tick import RecoveryTick


class Recovery:
    """The recovery tick of a long-lived host process, started as soon as learning is on
    for the home: at the process's start, or at a later :meth:`poll` (the host calls it
    on each request) after ``waymarks learn on`` or an edit of the home's
    ``config.toml``. A poll with the tick running, or with the file unchanged since the
    last look, costs one ``stat``. Once started the tick runs until :meth:`stop`; turning
    learning off stops its calls at the next check (the queue reads the switch).
    ``interval_s``: the tick's (``None``: its default)."""

    def __init__(self, home: Path, clients: ClientFactory,
                 available: Callable[[RouteConfig], bool], *,
                 interval_s: float | None = None) -> None:
        self.home = home
        self._clients = clients
        self._available = available
        self._interval: dict[str, Any] = {} if interval_s is None else {
            "interval_s": interval_s}
        self.tick: RecoveryTick | None = None
        self._seen: object = _UNSEEN  # the configuration's stamp when last looked at

    def poll(self) -> None:
        if self.tick is not None:
            return
        stamp = stamp_of(self.home / CONFIG_FILE)
        if stamp == self._seen:
            return
        self._seen = stamp
        if not learning_enabled(self.home):  # (start_recovery asks again: a child of a
            return  # consolidation call starts none either)
        from waymarks.service.evolution_wiring import start_recovery

        self.tick = start_recovery(self.home, self._clients, self._available,
                                   **self._interval)

    def stop(self) -> None:
        """Stop the tick (an attempt in flight returns to pending, without a failure)."""
        if self.tick is not None:
            self.tick.stop()
            self.tick = None


_UNSEEN: Final = object()
