"""A legacy import is never half visible (one ledger entry: a crash that tears it leaves
none of it, and the import stays available), and ``archive-legacy`` copies exactly the
imported ledgers into a backup, byte-identical, originals in place, through the real CLI
(item 80)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evolution.test_legacy_import import ACTIONS, MEMORIES, _cli, _without_age, _write


def _ledger(home: Path) -> Path:
    return home / "evolution" / "ledger.jsonl"


@pytest.mark.slow
def test_the_import_is_one_entry_and_a_torn_write_leaves_none_of_it(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _write(legacy, MEMORIES, ACTIONS)
    done = _cli(home, cwd, "evolution", "import", str(legacy))
    assert done["outcome"] == "done" and done["claims"] == 3  # m4: a placeholder, skipped
    header, added = _ledger(home).read_bytes().split(b"\n", 1)
    assert json.loads(header)["type"] == "session"
    before = header + b"\n"
    lines = [line for line in added.split(b"\n") if line.strip()]
    assert len(lines) == 1 and json.loads(lines[0])["data"]["op"] == "importBatch"
    assert len(_cli(home, cwd, "evolution", "list")["claims"]) == 4  # with the correction

    # a crash in the middle of that one write: the line is torn, nothing of it is read
    torn = before + added[: len(added) // 2]
    _ledger(home).write_bytes(torn)
    for path in home.glob("waymarks.db*"):
        path.unlink()
    assert _cli(home, cwd, "evolution", "list")["claims"] == []
    assert _cli(home, cwd, "evolution", "history")["events"] == []


@pytest.mark.slow
def test_archive_legacy_copies_exactly_the_imported_ledgers(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _write(legacy, MEMORIES, ACTIONS)
    originals = {p.name: p.read_bytes() for p in legacy.iterdir()}
    refused = _cli(home, cwd, "evolution", "archive-legacy", str(legacy), expect=2)
    assert refused["code"] == "not_found"  # nothing imported yet: nothing moves
    assert {p.name for p in legacy.iterdir()} == set(originals)
    assert _cli(home, cwd, "evolution", "import", str(legacy))["outcome"] == "done"

    (legacy / "memories.jsonl").write_bytes(originals["memories.jsonl"] + b"\n")
    changed = _cli(home, cwd, "evolution", "archive-legacy", str(legacy), expect=2)
    assert changed["code"] == "changed_since"  # not the bytes that were imported
    (legacy / "memories.jsonl").write_bytes(originals["memories.jsonl"])

    listed = _cli(home, cwd, "evolution", "list")
    done = _cli(home, cwd, "evolution", "archive-legacy", str(legacy))
    archive = Path(str(done["archive"]))
    assert archive.parent == legacy and archive.name.startswith("waymarks-archive-")
    assert {p.name: p.read_bytes() for p in archive.iterdir()} == originals  # unchanged
    assert {p.name: p.read_bytes() for p in legacy.iterdir() if p.is_file()} == originals
    # the import stays done
    assert _without_age(_cli(home, cwd, "evolution", "list")) == _without_age(listed)
    assert _cli(home, cwd, "evolution", "import", str(legacy), expect=2)["code"] == "duplicate"
