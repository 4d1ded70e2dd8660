"""The Claude Code helper's work beside its hooks (split from
:mod:`waymarks.hosts.cc_helper`, which answers them): its start-up (the capture requests
queued while no helper ran, memory evolution's recovery tick), the learned claims'
corpus built as it starts, and the drain of the capture spool with its warm evolution
state.

What must stay true: the helper listens before any of this is done (a hook that found the
new socket waited for it, past its 4 s on a loaded machine, and did the prompt again in
its own process); the spool is never drained twice at once (a ``Stop``'s drain waits for
the start-up's, :attr:`StartUp.drained`); a failure here is logged by its kind, never
raised into a hook, and the helper serves on. Nothing is imported at the top: the
helper's detached processes import :mod:`~waymarks.hosts.cc_helper` bare.
"""

TYPE_CHECKING = False  # not typing's: nothing more than needed in the detached processes
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = ["StartUp", "drain_spool", "note_failure", "start_recovery", "warm_embedder",
           "warm_learned"]


class StartUp:
    """A new helper's start-up work, on a thread of its own: the capture requests queued
    while no helper ran are drained, and memory evolution's recovery tick is started
    (:func:`start_recovery`). Done before the first connection was taken (~0.3-0.5 s of
    imports and database opening), it kept the hooks that found the new socket waiting; on
    a loaded machine past their 4 s, and each such prompt was done again in its hook's own
    process. What else uses the warm evolution state (a ``Stop``'s drain, the drain after
    a prompt) waits for its drain (:attr:`drained`), or is left to it: never two at once;
    not for the recovery's start after it (the drain after each prompt was skipped as
    long as that took)."""

    def __init__(self, home: "Path") -> None:
        import threading

        self.home = home
        #: the recovery tick's poller, once started (``None``: not yet, or it failed)
        self.recovery: Any = None
        #: set once the start-up drain is over (done or failed)
        self.drained = threading.Event()
        self._thread = threading.Thread(target=self._run, name="waymarks-cc-start-up",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:  # (apart: a drain that raised left recovery off for the helper's life)
            drain_spool(self.home)
        except Exception as exc:  # noqa: BLE001 (the helper serves on; logged)
            note_failure(self.home, exc)
        finally:
            self.drained.set()
        warm_embedder()
        try:
            self.recovery = start_recovery(self.home)
        except Exception as exc:  # noqa: BLE001 (the helper serves on; logged)
            note_failure(self.home, exc)

    def done(self) -> bool:
        """Whether the start-up work is over."""
        return not self._thread.is_alive()

    def wait(self) -> "Any":
        """Wait for the start-up work; the recovery poller (``None``: none started)."""
        self._thread.join()
        return self.recovery


def warm_learned(home: "Path") -> "Any":
    """Build the learned claims' ranking corpus on a thread of its own, as the helper
    starts: its first prompts read slices of it (:mod:`waymarks.service.evolution_slice`),
    each a fraction of a second at 60k claims; built once, every prompt ranks from it in
    milliseconds. Built on a prompt instead, it took seconds at 60k claims, past the
    hook's 4 s wait: the hook did the prompt again in its own process."""
    from waymarks.service.evolution_recall import warm_on_a_thread

    return warm_on_a_thread(home, lambda exc: note_failure(home, exc))  # (logged)


def warm_embedder() -> None:
    """Load hybrid recall's embedder (NumPy and the model, ~0.1 s of CPU) as the helper
    starts, when the extra is on: the hook that started it answered by words alone
    (:mod:`waymarks.service.recall_mode`), and the next prompt, this helper's first, is
    recalled by meaning too without waiting for the load. A broken extra is left to that
    prompt, which says so (``semantic_broken``)."""
    import os

    from waymarks.spawn.switches import SEMANTIC, switched_on

    if not switched_on(os.environ.get(SEMANTIC, "")):
        return
    from waymarks.service.outcomes import ServiceError
    from waymarks.service.semantic_recall import loaded

    try:
        loaded()
    except ServiceError:
        return


def note_failure(home: "Path", exc: BaseException) -> None:
    """Log a failure of the helper's capture work (its kind, never content)."""
    from datetime import UTC, datetime

    from waymarks.hosts.claude_code import _log

    _log(home, datetime.now(UTC), "Stop", type(exc).__name__)


def drain_spool(home: "Path") -> None:
    """Drain the capture spool with the helper's warm evolution state (a request that
    fails stays queued; nothing here blocks a hook). One directory listing when nothing
    waits: every new helper opened the state (~0.3 s) for an empty spool."""
    import sqlite3

    from waymarks.service.capture_spool import drain, pending

    if not pending(home):
        return
    from waymarks.hosts.claude_code_capture import drop_warm, warm_evolution

    try:
        drain(home, warm_evolution(home))
    except (sqlite3.Error, OSError) as exc:
        drop_warm(home)
        note_failure(home, exc)


def start_recovery(home: "Path") -> "Any":
    """Memory evolution's recovery tick, in the helper (never in a hook's own process):
    one queued source per check, the first 15 s after the helper starts, or after the
    prompt that finds learning turned on since (:class:`~waymarks.service.
    recovery_poll.Recovery`)."""
    from waymarks.models import route_client, route_is_available
    from waymarks.service.recovery_poll import Recovery

    recovery = Recovery(home, route_client, route_is_available)
    recovery.poll()
    return recovery
