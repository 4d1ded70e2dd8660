"""An import's write-ahead log stays bounded: it committed once a line and the log was
never started over while it ran (157 MB of log for 2,000 lines, a 3.9 MB database; on a
small disk the import stopped with "No space left on device" and left every command
failing). The log's size after each commit, as the writer sees it before bounding it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_transfer import cli  # noqa: F401 (the fixture: the CLI in a project)
from waymarks.store.wal import WAL_LIMIT_BYTES, Checkpointer


@pytest.mark.slow  # 0.3 s of CPU or more in two lane runs (0.4-0.6 s, loaded machine): scale
def test_an_import_keeps_the_log_under_its_limit(
        cli: Any, home: Path, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "export.jsonl"
    source.write_text("".join(json.dumps(
        {"format": "waymarks-export-v1", "kind": "pin", "scope": "session", "status": "active",
         "text": f"Always run check {n} before merging."} if n % 5 == 0 else
        {"format": "waymarks-export-v1", "kind": "memory", "scope": "session",
         "status": "active", "givenKey": f"svc-{n}-port",
         "text": f"The service svc{n} port is {10000 + n}."}) + "\n" for n in range(200)))
    sizes: list[int] = []
    committed = Checkpointer.committed

    def measured(self: Checkpointer, *args: Any) -> None:
        log = home / "waymarks.db-wal"
        sizes.append(log.stat().st_size if log.exists() else 0)
        committed(self, *args)

    monkeypatch.setattr(Checkpointer, "committed", measured)
    assert cli("import", str(source))["counts"] == {"imported": 200}
    assert len(sizes) >= 200  # a commit a line at least
    # (before: ~20 MB, each line's commit appended to a log never started over)
    assert max(sizes) <= WAL_LIMIT_BYTES + 1024 * 1024, f"the log reached {max(sizes)}"
