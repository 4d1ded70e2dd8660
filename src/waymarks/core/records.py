"""``replace`` for the project's immutable records, whichever way they are declared, and
their JSON decoders, built on first use.

Records on the start path are msgspec ``Struct`` classes: declaring a frozen, slotted
dataclass generates its methods with ``exec`` (about 1.4 ms a class, 49 of them on a fresh
``waymarks recall``), declaring a Struct costs microseconds, and a path without
dataclasses does not import ``dataclasses`` (with ``inspect``, ``ast`` and ``dis``: 4-7
ms). Other records are still dataclasses. ``dataclasses.replace`` refuses a Struct and
``msgspec.structs.replace`` a dataclass, and type checkers accept either on both (a
Struct is a dataclass transform), so every module takes this one: a record can change
declaration without its callers changing.

A typed msgspec decoder reads its type's annotations when it is made: 0.2-1 ms a record
type (the mutations' two, 1.7 ms), at import for a module-level one. A recall that finds
its projection current decodes no mutation, so :func:`json_decoder` makes the decoder on
its first ``decode``.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

R = TypeVar("R")
T = TypeVar("T")


def replace(record: R, /, **changes: Any) -> R:
    """A copy of ``record`` with ``changes`` (a Struct or a dataclass instance)."""
    if isinstance(record, msgspec.Struct):
        return msgspec.structs.replace(record, **changes)
    import dataclasses  # not on the start path: its records are Structs (above)

    return dataclasses.replace(record, **changes)  # type: ignore[type-var]


class _LazyDecoder(Generic[T]):
    """Stands in for ``msgspec.json.Decoder(type)`` until its first ``decode``, which makes
    the decoder and keeps its bound ``decode``: later calls cost what the decoder's do."""

    def __init__(self, type_: type[T]) -> None:
        self._type = type_

    def decode(self, data: bytes | bytearray | memoryview | str) -> T:
        decoder = msgspec.json.Decoder(self._type)
        self.decode = decoder.decode  # type: ignore[method-assign, assignment]
        return decoder.decode(data)


def json_decoder(type_: type[T]) -> msgspec.json.Decoder[T]:
    """``msgspec.json.Decoder(type_)``, made on its first ``decode`` (see above)."""
    return _LazyDecoder(type_)  # type: ignore[return-value]  # (decode is all it offers)
