"""The notes Waymarks keeps for status in the home's ``evolution`` directory, and how they
are read: the host model last offered to the queue (``host-route.json``) and the last
capture decision (``last-capture.json``), codes and names only, never text.

A note is read only from a regular file of at most :data:`NOTE_BYTES`
(:func:`waymarks.files.reading.read_regular`): a FIFO in its place hung ``evolution
status``, ``evolution learning`` and Pi's evolve checks for ever. Such a thing reads as no
note, and :func:`unreadable_notes` names it for status.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from waymarks.files.reading import read_regular

#: where a host that brings its own model (Pi) says which one it last offered the queue:
#: provider and model names only (no key, no text), so ``status`` can tell "Pi calls the
#: model" from "no route"
HOST_ROUTE_FILE = ("evolution", "host-route.json")
LAST_CAPTURE: Final = "last-capture.json"
#: the most a note holds
NOTE_BYTES: Final = 1 << 20


def host_route_path(home: Path) -> Path:
    return home.joinpath(*HOST_ROUTE_FILE)


def last_capture_path(home: Path) -> Path:
    return home / "evolution" / LAST_CAPTURE


def read_note(path: Path) -> Any:
    """The JSON a note holds. Raises ``OSError`` (``NotARegularFile`` for anything but a
    regular file, ``EFBIG`` past :data:`NOTE_BYTES`) or ``ValueError``."""
    return json.loads(read_regular(path, limit=NOTE_BYTES))


def unreadable_notes(home: Path) -> list[str]:
    """The notes that something in their place keeps from being read (a FIFO, a
    directory, one too large), each with why: status says so, as it names a capture set
    aside."""
    problems = []
    for path in (host_route_path(home), last_capture_path(home)):
        try:
            read_regular(path, limit=NOTE_BYTES)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or type(exc).__name__}")
    return problems
