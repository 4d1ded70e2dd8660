"""One :class:`~waymarks.service.app.Waymarks` object shared safely: by threads, one
call at a time, and never re-entered from inside its own write.

Why: the object holds one SQLite connection, one session reader and the state of the
request in progress. Two threads calling it at once closed the connection under each
other (the process crashed) and set healthy databases aside; so every public method of
the class takes the object's re-entrant lock (:func:`serialized`), and a second thread
waits its turn. A call from the thread that holds it, inside a callback the object runs
while a write holds the session lock and a database transaction (a write's ``guard``,
a dry run's decision, ``append_record``'s ``unless``), would begin a second transaction
and wait on the session lock it holds itself: it is refused at once instead
(``invalid_argument``), and the write it came from appends nothing. Calls the object
makes of its own methods (a request's reads, say) are not callbacks and go ahead.
"""

from __future__ import annotations

import _thread
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FunctionType
from typing import Any, Final, TypeVar

from waymarks.service.outcomes import ServiceError

C = TypeVar("C", bound=type)
#: ``inspect.CO_GENERATOR``: a hook's process imports neither ``inspect`` nor ``threading``
_CO_GENERATOR: Final = 0x20


class CallLock:
    """The object's lock, and whether the thread holding it is inside a callback."""

    def __init__(self) -> None:
        self.lock = _thread.RLock()
        self.callbacks = 0  # callbacks running (only the thread holding the lock counts)

    @contextmanager
    def call(self, name: str) -> Iterator[None]:
        """One public method's turn: wait for another thread's call to end; refused inside
        a callback of this object's own write."""
        with self.lock:
            if self.callbacks:
                raise ServiceError(
                    "invalid_argument", f"Waymarks.{name}() was called from inside a "
                    "callback of the same object's write (a guard, a dry run's decision or "
                    "append_record's `unless`), which runs while that write holds the "
                    "session lock and a database transaction. A callback must not call back "
                    "into the object: decide from the context it is given (another object on "
                    "the same home waits on the same lock). Nothing was written")
            yield

    @contextmanager
    def callback(self) -> Iterator[None]:
        """Run a caller's callback: the object's methods refuse to be called meanwhile."""
        self.callbacks += 1
        try:
            yield
        finally:
            self.callbacks -= 1


def serialized(cls: C) -> C:
    """Every public method of ``cls`` (a function named without ``_``; properties are
    plumbing) run under ``self._calls`` (a :class:`CallLock`); a method that is a context
    manager (``begin``) holds it until its block ends."""
    for name, method in list(vars(cls).items()):
        if not name.startswith("_") and isinstance(method, FunctionType):
            setattr(cls, name, _in_turn(name, method))
    return cls


def _in_turn(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    wrapped = getattr(method, "__wrapped__", None)
    if wrapped is not None and wrapped.__code__.co_flags & _CO_GENERATOR:  # @contextmanager

        @functools.wraps(method)
        @contextmanager
        def held(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
            with self._calls.call(name), method(self, *args, **kwargs) as value:
                yield value

        return held

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._calls.call(name):
            return method(self, *args, **kwargs)

    return run
