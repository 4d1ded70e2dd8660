"""The identity adapters of :mod:`waymarks.store.binding` store exactly what SQLite stored
without them: NULL for ``None``, the same blob for ``bytes``, 0 and 1 for ``bool``."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from waymarks.store.projection import Projection

PROBE = """
import sqlite3, sys
if sys.argv[1] == "installed":
    from waymarks.store import binding
    binding.install()
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE t (v)")
values = (None, b"\\x00blob\\xff", True, False, 7, "text", 2.5, bytearray(b"ba"))
db.executemany("INSERT INTO t (v) VALUES (?)", [(v,) for v in values])
print(repr(db.execute("SELECT typeof(v), v FROM t ORDER BY rowid").fetchall()))
"""


def stored(mode: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_the_adapters_store_what_the_default_binding_stores() -> None:
    # each in a fresh process: the adapter registry is the sqlite3 module's, process-wide
    plain, installed = stored("plain"), stored("installed")
    assert installed == plain
    assert plain.startswith("[('null', None), ('blob', b'\\x00blob\\xff'), ('integer', 1),"
                            " ('integer', 0)")


def test_opening_a_projection_installs_them(tmp_path: Path) -> None:
    projection = Projection(tmp_path / "waymarks.db", 0)
    try:
        adapters = sqlite3.adapters  # type: ignore[attr-defined]
        protocol = sqlite3.PrepareProtocol
        assert adapters[(type(None), protocol)](None) is None
        assert adapters[(bytes, protocol)](b"x") == b"x"
        assert adapters[(bool, protocol)](True) == 1
    finally:
        projection.close()
