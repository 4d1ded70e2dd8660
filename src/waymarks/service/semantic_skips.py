"""Records the background worker could not embed: set aside, so that the rest are embedded.

The worker embeds the oldest missing records first, so a record whose embedding fails
(the engine raises for it) or kills the process (the native engine aborted on U+FDFA
before its input was made safe: :func:`waymarks.semantic.e5.engine_safe`) was in every
batch of every later worker, and no record written after it was ever embedded.

So the worker (:class:`Guard`) notes the records of each engine call in the home before
it makes it (*in flight*: item IDs and text hashes, never text) and clears the note when
it ends. A worker that finds a note left behind (its predecessor died in that call, or
was killed) embeds those records one at a time; a record that raises on its own, or was
alone in flight when :data:`DEATHS` workers died, is *skipped*: no longer counted missing
and never given to the engine again, its claim scored by its words as one without a
vector is; ``waymarks status`` says how many. A record of another text (a rebuild keeps
item IDs) or another model (an upgraded engine) is tried again. ``index --semantic``
skips them too (:func:`skipped`), and only the worker writes the file (it holds the
home's worker lock).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final

import msgspec

from waymarks.files.atomic import write_atomic
from waymarks.files.reading import read_regular
from waymarks.recall.fusion import Embedder
from waymarks.store.recall_vectors import text_hash

#: the worker's notes, in the home (item IDs, text hashes and error class names only)
SKIPS_FILE: Final = "semantic-skipped.json"
#: the most of it that is read
SKIPS_LIMIT: Final = 1 << 22
#: how many workers must die with a record alone in flight before it is skipped (one may
#: have been killed for another reason: a reboot, the OOM killer, a person)
DEATHS: Final = 2
#: why a record was skipped when the process died embedding it
CRASHED: Final = "crashed"

Row = tuple[str, str, bytes]


class _Notes(msgspec.Struct):
    """What the file holds for one model."""

    #: item ID -> {"hash": the failed text's hash, "why": an error class or CRASHED}
    skipped: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    #: item ID -> text hash of the records of the engine call under way
    in_flight: dict[str, str] = msgspec.field(default_factory=dict)
    #: item ID -> how many workers died with it alone in flight
    deaths: dict[str, int] = msgspec.field(default_factory=dict)


class _File(_Notes):
    model: str = ""


def _load(home: Path, model: str) -> _Notes:
    """The notes for ``model`` (another model's are dropped: a new engine tries again);
    none when there are none or they cannot be read (then nothing is skipped)."""
    try:
        found = msgspec.json.decode(read_regular(home / SKIPS_FILE, limit=SKIPS_LIMIT),
                                    type=_File)
    except (OSError, msgspec.DecodeError):
        return _Notes()
    if found.model != model:
        return _Notes()
    return _Notes(found.skipped, found.in_flight, found.deaths)


def skipped(home: Path, model: str) -> dict[str, str]:
    """The records set aside for ``model``: item ID -> the hash of the text that failed."""
    return {item_id: entry.get("hash", "") for item_id, entry
            in _load(home, model).skipped.items()}


class Guard:
    """The background worker's engine calls, noted in the home and survived (module
    docstring). Open it holding the worker lock. ``still_home``: called before each write
    of the notes, it raises when the home is no longer the worker's (a home moved away and
    another put at its path had its notes overwritten with these)."""

    def __init__(self, home: Path, model: str,
                 still_home: Callable[[], object] = lambda: None) -> None:
        self._home, self._model, self._still_home = home, model, still_home
        self._notes = _load(home, model)
        #: item ID -> text hash of the records set aside, kept current as it skips more
        self.skipped = {item_id: entry.get("hash", "")
                        for item_id, entry in self._notes.skipped.items()}
        left, self._notes.in_flight = self._notes.in_flight, {}
        #: records that were in flight when a worker died: embedded one at a time
        self.suspects = set(left)
        if len(left) == 1:  # it died with this record alone
            ((item_id, digest),) = left.items()
            deaths = self._notes.deaths[item_id] = self._notes.deaths.get(item_id, 0) + 1
            if deaths >= DEATHS:
                self._skip(item_id, digest, CRASHED)
        if left:
            self._save({})

    def _skip(self, item_id: str, digest: str, why: str) -> None:
        self._notes.skipped[item_id] = {"hash": digest, "why": why}
        self._notes.deaths.pop(item_id, None)
        self.suspects.discard(item_id)
        self.skipped[item_id] = digest

    def _save(self, in_flight: Mapping[str, str]) -> None:
        self._notes.in_flight = dict(in_flight)
        data = _File(self._notes.skipped, self._notes.in_flight, self._notes.deaths,
                     model=self._model)
        self._still_home()
        with contextlib.suppress(OSError):  # unwritable: embedding goes on unguarded
            write_atomic(self._home / SKIPS_FILE, msgspec.json.encode(data), mode=0o600)

    def embed(self, embedder: Embedder, todo: Sequence[tuple[str, str]]) -> list[Row]:
        """``(item_id, text, vector)`` of the records of ``todo`` embedded in one engine
        call (the caller commits them, then asks again for what is still missing): the
        ones not suspected, else the first suspect alone. A call that raises is made
        again one record at a time, a record that raises alone being set aside."""
        part = [record for record in todo if record[0] not in self.suspects] or [todo[0]]
        return self._call(embedder.passages, part)

    def _call(self, passages: Callable[[Sequence[str]], list[bytes]],
              part: Sequence[tuple[str, str]]) -> list[Row]:
        self._save({item_id: text_hash(text) for item_id, text in part})
        try:
            vectors = passages([text for _, text in part])
        except Exception as exc:  # noqa: BLE001 - the record's failure: set aside
            self._save({})
            if len(part) > 1:
                return [row for record in part for row in self._call(passages, [record])]
            ((item_id, text),) = part
            self._skip(item_id, text_hash(text), type(exc).__name__)
            self._save({})
            return []
        for item_id, _ in part:
            self.suspects.discard(item_id)
            self._notes.deaths.pop(item_id, None)
        self._save({})
        return [(i, t, v) for (i, t), v in zip(part, vectors, strict=True)]
