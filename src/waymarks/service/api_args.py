"""The Python API's own argument checks: what the command line's parser refuses before
the service is called, refused by the service the same way for a program that embeds it
(a ``ServiceError`` with code ``invalid_argument``; nothing is read or changed)."""

from __future__ import annotations

from waymarks.core.text import echoed
from waymarks.service.outcomes import ServiceError


def counts(**given: int | None) -> None:
    """Each count given is a whole number of at least 0 (``None``: not given)."""
    for name, value in given.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 0):
            raise ServiceError("invalid_argument", f"{name} must be a whole number of at "
                               f"least 0, not {echoed(repr(value))}")
