"""The serial task chain and the recovery tick for long-lived processes (EVOLUTION 7, 68, 85).

Why: a persisted failed job, or a source captured while no model was reachable, must be
consolidated with no user activity, and never on a host's prompt path. A long-lived host
process (the Claude Code helper, the MCP server, the Pi bridge) starts one
:class:`RecoveryTick`: every ``TICK_INTERVAL_S`` (15 s) *after the previous check or call
ended* it runs one check (at most one source) on the process's :class:`SerialChain`.

What must stay true:
- one chain per process runs evolution work one task at a time (capture, manual and
  timer work share it), so two attempts of one process never overlap;
- the timer never piles up: while a task is queued or running, a tick is skipped;
- the tick's thread is a daemon and is never started by a factory or at import; ``stop``
  cancels an in-flight attempt (the job returns to pending without a failure) and joins;
- a failing check is contained: the tick logs nothing of its content and keeps going.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from waymarks.core.evolution_policy import TICK_INTERVAL_S
from waymarks.service.evolution_attempt import Attempt
from waymarks.service.evolution_queue import EvolutionQueue

T = TypeVar("T")


class SerialChain:
    """One worker thread running submitted tasks in order (the queue's SQLite connection
    lives on it: every task gets the same thread)."""

    def __init__(self, name: str = "waymarks-evolution") -> None:
        self._tasks: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._busy = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False
        self._lock = threading.Lock()

    def _ensure(self) -> None:
        with self._lock:
            if not self._started:
                self._thread.start()
                self._started = True

    def submit(self, task: Callable[[], T]) -> Future[T]:
        self._ensure()
        future: Future[T] = Future()
        self._tasks.put((task, future))
        return future

    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return self._tasks.empty() and not self._busy.is_set()

    def close(self, timeout: float = 5.0) -> None:
        if self._started:
            self._tasks.put(None)
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._tasks.get()
            if item is None:
                return
            task, future = item
            self._busy.set()
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(task())
                    except BaseException as exc:  # noqa: BLE001 - handed to the submitter, never swallowed
                        future.set_exception(exc)
            finally:
                self._busy.clear()


class RecoveryTick:
    """Every ``interval_s`` after the previous check ended: one check on ``chain``.

    ``make_queue`` runs on the chain's thread the first time a check runs (so the queue's
    database connection is made and used on one thread); returning None means evolution
    is not available in this process (no consolidation step wired), and the tick stops.
    """

    def __init__(self, make_queue: Callable[[], EvolutionQueue | None], *,
                 chain: SerialChain | None = None, interval_s: float = TICK_INTERVAL_S,
                 on_attempt: Callable[[Attempt], None] | None = None) -> None:
        self.chain = chain or SerialChain()
        self.interval_s = interval_s
        self._make_queue = make_queue
        self._queue: EvolutionQueue | None = None
        self._stop = threading.Event()
        self._on_attempt = on_attempt
        self._thread: threading.Thread | None = None
        self.checks = 0
        self.skipped = 0
        self.errors = 0

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="waymarks-recovery",
                                            daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop ticking; an attempt in flight is cancelled (pending again, no failure)."""
        self._stop.set()
        if self._queue is not None:
            self._queue.cancel.set()
        if self._thread is not None:
            self._thread.join(timeout)
        try:
            self.chain.submit(self._close).result(timeout)
        except FutureTimeout:
            # a model call is still running on the chain (the cancel is seen when it
            # returns); the thread is a daemon and ends with the process, and a lease left
            # behind expires into a retry
            return
        self.chain.close(timeout)

    def _close(self) -> None:
        if self._queue is not None:
            self._queue.close()
            self._queue = None

    def check(self) -> Attempt | None:
        """One check on the chain's thread (the tick's unit of work)."""
        if self._queue is None:
            self._queue = self._make_queue()
            if self._queue is None:
                self._stop.set()
                return None
        return self._queue.run_once()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            if not self.chain.idle():
                self.skipped += 1
                continue  # work is queued: no pile-up
            try:
                attempt = self.chain.submit(self.check).result()
            except Exception:  # noqa: BLE001 - contained: the next tick tries again
                self.errors += 1
                continue
            self.checks += 1
            if attempt is not None and self._on_attempt is not None:
                self._on_attempt(attempt)
