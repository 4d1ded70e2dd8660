"""A capture that meets a full disk (EVOLUTION item 11, F20), for real: the home lives on
a small tmpfs, filled to the last byte, so the capture's own writes (the evolution ledger's
append and fsync, the projection's SQLite) fail as they would on a full disk. The
request stays queued with the fixed code ``disk_full`` (logged as a code, never content),
nothing half-written becomes a source, and the next drain after space returns captures it
once.

Mounting a tmpfs needs root (CI runs as root); elsewhere the test is skipped with the
reason printed. An ``RLIMIT_FSIZE`` subprocess was the other choice, but it answers
``EFBIG``, not ``ENOSPC``, and never reaches SQLite's ``SQLITE_FULL``: it would test a
different error than the one mapped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.durability.test_disk_full import fill, small_fs  # noqa: F401 - the fixture
from waymarks.service.capture_spool import pending, spool_dir, write_request
from waymarks.service.evolution import Evolution, drain_captures
from waymarks.service.learning import ledger_path

SESSION = "d15cf011-0000-4000-8000-00000000d15c"
STATEMENT = "Remember: the staging database listens on port 5433 from now on"


def fill_leaving(directory: Path, free: int) -> Path:
    """Fill the file system but ``free`` bytes (about: tmpfs counts whole pages)."""
    stat = os.statvfs(directory)
    filler = directory / "filler"
    filler.write_bytes(b"\0" * max(0, stat.f_bavail * stat.f_frsize - free))
    return filler


def _logged_codes(home: Path) -> list[str]:
    return [json.loads(line)["code"] for path in (home / "logs").rglob("*") if path.is_file()
            for line in path.read_text().splitlines() if "evolution_capture_queued" in line]


def _transcript(path: Path) -> None:
    path.write_text("\n".join(json.dumps(e) for e in [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": STATEMENT}},
        {"type": "assistant", "uuid": "a1", "message": {
            "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}}]) + "\n",
        encoding="utf-8")


def test_a_full_disk_keeps_the_request_as_disk_full_until_space_returns(
        small_fs: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    home, project = small_fs / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    with Evolution(home) as evo:  # the ledger and projection exist before the disk fills
        assert evo.capture(str(project.resolve()), "statement", "Remember: tabs, not spaces",
                           session="s0", key="k0") is not None
        before = len(evo.store.sources())
    ledger = ledger_path(home).read_bytes()
    transcript = tmp_path / "transcript.jsonl"  # Claude Code's file: not on the full disk
    _transcript(transcript)
    assert write_request(home, "claude-code", "Stop", SESSION, str(transcript),
                         str(project))
    [name] = pending(home)

    filler = fill(small_fs)
    drained = drain_captures(home)  # what the detached drainer and the helper run
    assert drained == {"captured": 0, "done": 0, "dropped": 0, "kept": 1, "set_aside": 0,
                       "errors": {"disk_full": 1}}, drained
    assert pending(home) == [name]  # still queued, unchanged: the disk refused its try count
    assert json.loads((Path(spool_dir(home)) / name).read_text())["tries"] == 0
    assert ledger_path(home).read_bytes() == ledger  # nothing half-written was appended

    # a little space, not enough: the try count and the code are recorded with the request
    filler.unlink()
    filler = fill_leaving(small_fs, 48 * 1024)
    drained = drain_captures(home)
    # SQLite cannot grow its shared-memory file: an SQLITE_IOERR, taken for a full disk
    # because the file system has less than FULL_DISK_BYTES left
    assert drained["errors"] == {"disk_full": 1} and drained["kept"] == 1, drained
    request = json.loads((Path(spool_dir(home)) / name).read_text())
    assert (request["tries"], request["error"]) == (1, "disk_full")
    assert STATEMENT not in json.dumps(request)  # a reference, never the text
    codes = _logged_codes(home)
    assert codes == ["disk_full"], codes  # the first failure could not even log

    filler.unlink()
    drained = drain_captures(home)
    # done once; captured now, or already appended by the try above (whose projection
    # failed): either way one source, the capture being idempotent per entry
    assert drained["done"] == 1 and drained["errors"] == {}, drained
    assert pending(home) == []
    with Evolution(home) as evo:
        evo.sync()
        texts = [s.text for s in evo.store.sources()]
    assert len(texts) == before + 1 and sum("port 5433" in t for t in texts) == 1
