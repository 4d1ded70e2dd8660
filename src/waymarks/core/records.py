"""``replace`` for the project's immutable records, whichever way they are declared.

Records on the start path are msgspec ``Struct`` classes: declaring a frozen, slotted
dataclass generates its methods with ``exec`` (about 1.4 ms a class, 49 of them on a fresh
``waymarks recall``), declaring a Struct costs microseconds, and a path without
dataclasses does not import ``dataclasses`` (with ``inspect``, ``ast`` and ``dis``: 4-7
ms). Other records are still dataclasses. ``dataclasses.replace`` refuses a Struct and
``msgspec.structs.replace`` a dataclass, and type checkers accept either on both (a
Struct is a dataclass transform), so every module takes this one: a record can change
declaration without its callers changing.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

R = TypeVar("R")


def replace(record: R, /, **changes: Any) -> R:
    """A copy of ``record`` with ``changes`` (a Struct or a dataclass instance)."""
    if isinstance(record, msgspec.Struct):
        return msgspec.structs.replace(record, **changes)
    import dataclasses  # not on the start path: its records are Structs (above)

    return dataclasses.replace(record, **changes)  # type: ignore[type-var]
