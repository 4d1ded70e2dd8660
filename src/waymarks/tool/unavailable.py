"""A tool call the environment cannot serve: a bad configuration (the home's or a trusted
project's ``config.toml``), a home or a database that cannot be used. Every model-callable
tool answers it the same way, ``unavailable``/``runtime-unavailable`` naming the error's
code, never as a refusal of its arguments nor as an uncategorized error with a traceback
(a bad ``[privacy]`` value made four MCP tools answer "Error executing tool")."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any, Final, TypeVar

from waymarks.core.privacy import PrivacyConfigError
from waymarks.service.outcomes import ServiceError
from waymarks.service.ports import SessionFileError

T = TypeVar("T")

#: what the environment raises under a tool call (the request is not in question): a
#: session file or folder that cannot be read is one (``bad_session``)
ENVIRONMENT_ERRORS: Final = (ServiceError, PrivacyConfigError, SessionFileError, OSError,
                             sqlite3.Error)


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it was raised from, in turn (a framework wraps what a callback
    raised); a chain is short, and never followed past 16 (never a loop)."""
    seen: BaseException | None = exc
    for _ in range(16):
        if seen is None:
            return
        yield seen
        seen = seen.__cause__


def environment_code(exc: BaseException) -> str | None:
    """The code of the environment's error that ``exc`` is or was raised from, else
    ``None``."""
    for seen in causes(exc):
        if isinstance(seen, ServiceError):
            return seen.code
        if isinstance(seen, PrivacyConfigError):
            return "bad_config"
        if isinstance(seen, SessionFileError):
            return "bad_session"
        if isinstance(seen, OSError | sqlite3.Error):
            return "io_error"
    return None


def unavailable(message: str) -> dict[str, Any]:
    return {"outcome": "unavailable", "category": "runtime-unavailable", "message": message}


def unavailable_for(exc: BaseException) -> dict[str, Any]:
    """The answer to a call ``exc`` (one of :data:`ENVIRONMENT_ERRORS`) stopped."""
    return unavailable(f"memory is unavailable ({environment_code(exc) or 'io_error'})")


def answered(run: Callable[[], T]) -> T | dict[str, Any]:
    """``run()``, or the ``unavailable`` answer when the environment stopped it."""
    try:
        return run()
    except ENVIRONMENT_ERRORS as exc:
        return unavailable_for(exc)
