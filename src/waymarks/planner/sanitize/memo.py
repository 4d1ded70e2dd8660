"""What earlier sanitizations made of the same messages, for a caller that sends one
growing conversation again and again (Pi's bridge: every provider request holds every
earlier turn, so a long session's request was scanned whole each time, seconds at tens of
megabytes).

A :class:`Memo` maps the rules of a run and the digest of one message or Responses item
(the list entries ``fast.units`` walks) to what the walk made of it: nothing to change, or
its sanitized copy, with the counts it added and whether it was Anthropic's. A unit found
there is not walked again; anything else is, and its result stored.

What must stay true:

- a result is reused only under the same rules: the levels the destination may receive,
  the credential check (none when the provider gets no redaction), the marker parser and
  the redaction the walk looks up, the unit's handler and the part handlers. A provider
  or a privacy setting that changes gives another key, never a stale result;
- the digest is of the unit's MessagePack encoding, which tells every JSON type apart
  (``1``/``1.0``/``true``, ``NaN``/``null``, ``"1"``/``1`` keys, key order); a unit it
  cannot encode (a lone surrogate, an integer past 64 bits) is walked and not stored.
  JSON-decoded payloads only: a tuple encodes as a list does;
- a unit whose walk failed (malformed) is not stored, so it fails again;
- stored copies are shared between results: callers serialize them, never mutate them.

Bounded: at most ``entries`` units (a unit left as it was costs its key, about 150
bytes), and ``held`` encoded bytes of sanitized copies (what a changed unit keeps alive,
as Python objects a few times that); the least recently used go first, but never one the
current run (:meth:`Memo.begin`) has used: a conversation larger than the bounds keeps
its earliest units and walks the rest, where evicting each in turn had every request
find nothing (100k changed messages: no hit, 13 s a request against 11 s without a memo).

Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Final, NamedTuple

import msgspec

#: a unit the walk left as it was (``Stored.out``)
SAME: Final = object()

_ENCODE = msgspec.msgpack.Encoder().encode


class Stored(NamedTuple):
    out: Any  # the sanitized unit, or SAME
    removed: int
    redacted: int
    markers: int
    anthropic: bool
    size: int  # encoded bytes a changed unit holds (0 for SAME)


class Key(NamedTuple):
    name: bytes  # the rules' tag, then the unit's digest (bytes: nothing for the GC to walk)
    size: int  # encoded bytes


#: rule sets a memo tells apart before it starts again (they change with a setting)
_RULE_SETS: Final = 1024


class Memo:
    """Sanitized units by (rules, digest), least recently used evicted first."""

    def __init__(self, entries: int = 200_000, held: int = 16 * 2**20) -> None:
        self.entries = entries
        self.held = held
        self._held = 0
        self._stored: OrderedDict[bytes, Stored] = OrderedDict()
        self._rules: dict[tuple[Any, ...], bytes] = {}  # rules -> their tag
        self.hits = 0
        self.misses = 0
        #: lookups and stores since :meth:`begin`: at least the entries this run used,
        #: which :meth:`get` and :meth:`put` move to the end (see ``put``)
        self._used = 0

    def __len__(self) -> int:
        return len(self._stored)

    def begin(self) -> None:
        """A new run (one payload): what the last one used may be evicted again."""
        self._used = 0

    def key(self, rules: tuple[Any, ...], unit: Any) -> Key | None:
        """``unit``'s key under ``rules``; None when it cannot be encoded."""
        try:
            encoded = _ENCODE(unit)
        except (TypeError, ValueError, OverflowError):
            return None
        tag = self._rules.get(rules)
        if tag is None:
            if len(self._rules) >= _RULE_SETS:
                self._rules.clear()
                self._stored.clear()
                self._held = 0
            tag = self._rules[rules] = len(self._rules).to_bytes(2, "big")
        return Key(tag + hashlib.blake2b(encoded, digest_size=20).digest(), len(encoded))

    def get(self, key: Key) -> Stored | None:
        found = self._stored.get(key.name)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._used += 1
        self._stored.move_to_end(key.name)
        return found

    def put(self, key: Key, stored: Stored) -> None:
        """Store what the walk made of the unit of ``key`` (its ``size`` set here)."""
        size = 0 if stored.out is SAME else key.size
        if size > self.held:
            return
        old = self._stored.pop(key.name, None)
        if old is not None:
            self._held -= old.size
        if size == 0 and stored in _CLEAN:
            stored = _CLEAN[stored]  # one shared entry for the many units left as they were
        self._stored[key.name] = stored._replace(size=size) if size else stored
        self._held += size
        self._used += 1
        while len(self._stored) > self.entries or self._held > self.held:
            if self._used >= len(self._stored):  # the first may be one this run used
                del self._stored[key.name]  # (then keep what the run found, not this)
                self._held -= size
                return
            _, dropped = self._stored.popitem(last=False)
            self._held -= dropped.size


_CLEAN: Final = {entry: entry for entry in (Stored(SAME, 0, 0, 0, False, 0),
                                            Stored(SAME, 0, 0, 0, True, 0))}
