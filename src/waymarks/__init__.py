"""Waymarks: durable, trustworthy memory for LLM coding agents.

The public API is what ``__all__`` lists; everything else is private and may change.
Names are imported lazily so that ``import waymarks`` (and the CLI's start-up) stays cheap.
"""

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~5 ms

__version__ = "0.1.0"

_EXPORTS = {
    "Waymarks": "waymarks.service.app",
    "ItemView": "waymarks.service.views",
    "SessionInfo": "waymarks.service.views",
    "Committed": "waymarks.service.outcomes",
    "Duplicate": "waymarks.service.outcomes",
    "Rejected": "waymarks.service.outcomes",
    "ServiceError": "waymarks.service.outcomes",
    "WriteOutcome": "waymarks.service.outcomes",
    "PinItem": "waymarks.core.model",
    "MemoryItem": "waymarks.core.model",
    "PinMutation": "waymarks.core.model",
    "MemoryMutation": "waymarks.core.model",
}

__all__ = ["__version__", *sorted(_EXPORTS)]

if TYPE_CHECKING:
    from waymarks.core.model import MemoryItem, MemoryMutation, PinItem, PinMutation
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import (
        Committed,
        Duplicate,
        Rejected,
        ServiceError,
        WriteOutcome,
    )
    from waymarks.service.views import ItemView, SessionInfo


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'waymarks' has no attribute {name!r}")
    from importlib import import_module  # here: `importlib` pulls `warnings` (hook path)

    return getattr(import_module(module), name)
