"""Immutable records for pins, memory items and the mutations that create and change them.

These structs are the canonical mutation contract of seed 000 (the "DS4" design): a
mutation is stored as the ``data`` of a Pi ``custom`` entry whose ``customType`` is
``ds4-context-pin-v1`` or ``ds4-context-memory-v1``. Field names are camelCase on the wire
and must not change: sessions written by the original implementation are read as they
are, and ours can be read by it. Absent optional fields are omitted, never written as
``null``. Adding an optional field is compatible; renaming or retyping one is a new
``schemaVersion``.

No ``from __future__ import annotations``: the records' annotations are the types
themselves, not strings, so a decoder (made on every prompt for the items' rows) reads
them without compiling and evaluating each field's text (0.38 ms of a hook's CPU for the
two item decoders, 0.12 without).
"""

from typing import Final, Literal

import msgspec

PIN_CUSTOM_TYPE: Final = "ds4-context-pin-v1"
MEMORY_CUSTOM_TYPE: Final = "ds4-context-memory-v1"
KNOWN_CUSTOM_TYPES: Final = frozenset({PIN_CUSTOM_TYPE, MEMORY_CUSTOM_TYPE})
#: custom types in our family that this version does not understand are kept and reported
CUSTOM_TYPE_FAMILY_PREFIX: Final = "ds4-context-"
SCHEMA_VERSION: Final = 1

Kind = Literal["pin", "memory"]
PinScope = Literal["session", "branch", "project"]
MemoryScope = Literal["session", "project"]
Scope = Literal["session", "branch", "project"]
Status = Literal["active", "superseded", "deleted", "invalid", "expired"]
#: the statuses that take an item out of effect by a change of its own, each with the
#: change a history names it by (the inspector's timeline)
ENDING_CHANGES: Final = {"invalid": "invalidate", "expired": "expire", "deleted": "delete"}
Classification = Literal["normal", "internal", "sensitive", "local-only"]
Operation = Literal["add", "supersede", "status"]

PIN_SCOPES: Final[tuple[str, ...]] = ("session", "branch", "project")
MEMORY_SCOPES: Final[tuple[str, ...]] = ("session", "project")
CLASSIFICATIONS: Final[tuple[str, ...]] = ("normal", "internal", "sensitive", "local-only")
#: lifecycle statuses a ``status`` mutation may set, per kind
PIN_STATUS_TARGETS: Final = frozenset({"deleted"})
MEMORY_STATUS_TARGETS: Final = frozenset({"invalid", "expired"})
#: caps of seed 000's reference implementation, measured on the stripped text
MAX_PIN_CHARS: Final = 4000
MAX_CLAIM_CHARS: Final = 2000
MAX_REASON_CHARS: Final = 500
#: a pin's source file: a path (Linux's PATH_MAX), rendered with the pin into every plan
MAX_SOURCE_FILE_CHARS: Final = 4096


class PinItem(msgspec.Struct, frozen=True, omit_defaults=True, rename="camel"):
    """A user-confirmed instruction, immutable once written."""

    id: str
    scope: Scope
    content: str
    created_at: int
    project_path: str | None = None
    branch_leaf_id: str | None = None
    classification: Classification | None = None
    source_entry_id: str | None = None
    source_file: str | None = None


class MemoryItem(msgspec.Struct, frozen=True, omit_defaults=True, rename="camel"):
    """A durable claim, quoted to the model as data; immutable once written."""

    id: str
    scope: Scope
    claim: str
    created_at: int
    source_entry_ids: tuple[str, ...]  # required on the wire, even when empty
    project_path: str | None = None
    key: str | None = None
    classification: Classification | None = None


Item = PinItem | MemoryItem


class PinMutation(msgspec.Struct, frozen=True, omit_defaults=True, rename="camel"):
    """Payload of a ``ds4-context-pin-v1`` custom entry."""

    schema_version: int
    mutation_id: str
    created_at: int
    operation: Operation
    item: PinItem | None = None
    previous_id: str | None = None
    pin_id: str | None = None
    status: Status | None = None
    reason: str | None = None


class MemoryMutation(msgspec.Struct, frozen=True, omit_defaults=True, rename="camel"):
    """Payload of a ``ds4-context-memory-v1`` custom entry."""

    schema_version: int
    mutation_id: str
    created_at: int
    operation: Operation
    item: MemoryItem | None = None
    previous_id: str | None = None
    memory_id: str | None = None
    status: Status | None = None
    reason: str | None = None


Mutation = PinMutation | MemoryMutation


def item_text(item: Item) -> str:
    """The user's words in an item: a pin's content or a memory's claim."""
    return item.content if isinstance(item, PinItem) else item.claim


def mutation_kind(mutation: Mutation) -> Kind:
    return "pin" if isinstance(mutation, PinMutation) else "memory"


def status_target(mutation: Mutation) -> str | None:
    """The item a ``status`` mutation changes."""
    return mutation.pin_id if isinstance(mutation, PinMutation) else mutation.memory_id


class MutationRecord(msgspec.Struct, frozen=True):
    """A decoded mutation together with where it sits in the canonical ledger.

    ``order`` is the replay sort key of seed 000: timestamp, source session ID, entry order
    in the source file, mutation ID, canonical entry key. It is total and deterministic.
    ``timestamp_ms`` is the Pi entry's timestamp (the payload's ``createdAt`` only when the
    entry's cannot be parsed), as the reference implementation replays it.
    """

    session_id: str
    entry_id: str
    entry_index: int
    timestamp_ms: int
    mutation: Mutation
    parent_id: str | None = None  # the entry's parent: where on the tree it was written
    project: str | None = None  # the canonical project of the session that wrote it

    @property
    def entry_key(self) -> str:
        return f"{self.session_id}:{self.entry_id}"

    @property
    def order(self) -> tuple[int, str, int, str, str]:
        return (
            self.timestamp_ms,
            self.session_id,
            self.entry_index,
            self.mutation.mutation_id,
            self.entry_key,
        )
