"""msgspec imported without ``typing_extensions`` (``waymarks.spawn.imports``): the same
msgspec, and ``typing_extensions`` importable as usual afterwards."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
{before}
from waymarks.spawn.imports import import_msgspec
import_msgspec()
skipped = 'typing_extensions' not in sys.modules
from typing import Annotated, NotRequired, TypedDict
import msgspec

class Row(TypedDict):
    id: str
    note: NotRequired[Annotated[str, msgspec.Meta(max_length=3)]]

class Item(msgspec.Struct):
    rows: list[Row]
    size: Annotated[int, msgspec.Meta(ge=0)] = 0

item = msgspec.json.decode(b'{{"rows": [{{"id": "a"}}, {{"id": "b", "note": "ok"}}]}}',
                           type=Item)
assert item.rows == [{{"id": "a"}}, {{"id": "b", "note": "ok"}}] and item.size == 0
for bad in (b'{{"rows": [{{"id": "b", "note": "long"}}]}}', b'{{"rows": [], "size": -1}}',
            b'{{"rows": [{{"note": "x"}}]}}'):
    try:
        msgspec.json.decode(bad, type=Item)
    except msgspec.ValidationError:
        pass
    else:
        raise AssertionError(bad)
import typing_extensions
assert typing_extensions.NotRequired is NotRequired
print(skipped)
"""


def run(before: str = "") -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(before=before)],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_msgspec_comes_without_typing_extensions_and_decodes_alike() -> None:
    """Required and optional keys, constraints inside ``Annotated``: what msgspec reads
    through ``get_type_hints(include_extras=True)``, the call it takes from ``typing``."""
    assert run() == "True"


def test_nothing_changes_when_either_was_imported_before() -> None:
    assert run("import typing_extensions") == "False"
    assert run("import msgspec") == "False"  # msgspec imported it itself
