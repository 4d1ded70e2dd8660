"""Progress of long work, on standard error, only when it is a terminal.

- :meth:`TerminalProgress.bar`: a progress bar (rich) for work that counts itself
  (rebuild, import), shown once it has taken half a second; work of several steps names
  each one as it starts (``stage``), and a step that cannot count itself shows its name
  beside a pulsing bar rather than the last step's full one;
- :meth:`TerminalProgress.busy`: a spinner for work that cannot count itself (reading a
  project's sessions, recovering a database), shown once a command has taken half a
  second; :meth:`stop` ends it before anything else uses the terminal (an editor, a
  protocol, the answer).

Nothing is shown when standard error is not a terminal, so logs and pipes stay clean.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import IO, Any

DELAY_S = 0.5


class TerminalProgress:
    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._status: Any = None
        self._stopped = False

    # -- the spinner ------------------------------------------------------------------

    @contextlib.contextmanager
    def busy(self, label: str) -> Iterator[None]:
        if self.enabled:
            self._timer = threading.Timer(DELAY_S, self._spin, (label,))
            self._timer.daemon = True
            self._timer.start()
        try:
            yield
        finally:
            self.stop()

    def _spin(self, label: str) -> None:
        from rich.console import Console

        with self._lock:
            if self._stopped:
                return
            self._status = Console(file=self.stream, highlight=False).status(label)
            self._status.start()

    def stop(self) -> None:
        """End the spinner (for good): something else needs the terminal now."""
        with self._lock:
            self._stopped = True
            if self._timer is not None:
                self._timer.cancel()
            if self._status is not None:
                self._status.stop()
                self._status = None

    # -- the bar ----------------------------------------------------------------------

    @contextlib.contextmanager
    def bar(self, label: str) -> Iterator[Any]:
        if not self.enabled:
            yield None
            return
        self.stop()
        shown = _Bar(self.stream, label)
        try:
            yield shown
        finally:
            shown.close()


class _Bar:
    def __init__(self, stream: IO[str], label: str) -> None:
        self.stream = stream
        self.label = label
        self.started = time.monotonic()
        self.progress: Any = None
        self.task: Any = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._closed = False

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            if self.progress is None:
                if time.monotonic() - self.started < DELAY_S:
                    return
                self._show()
            self.progress.update(self.task, completed=done, total=total or None)

    def stage(self, label: str) -> None:
        """A new step of the work starts: its name shown (``label: step``), its count
        unknown until it counts itself; shown after the half second even if it never
        does (the step that replays the mutations, say)."""
        with self._lock:
            self.label = f"{self.label.split(':', 1)[0]}: {label}"
            if self.progress is not None:
                self.progress.update(self.task, description=self.label, completed=0,
                                     total=None)
                return
            if self._timer is None and not self._closed:
                wait = max(0.0, DELAY_S - (time.monotonic() - self.started))
                self._timer = threading.Timer(wait, self._show_late)
                self._timer.daemon = True
                self._timer.start()

    def _show_late(self) -> None:
        with self._lock:
            if self.progress is None and not self._closed:
                self._show()

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), transient=True,
                                 console=Console(file=self.stream))
        self.progress.start()
        self.task = self.progress.add_task(self.label, total=None)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self.progress is not None:
                self.progress.stop()
