"""Legacy imports take the person's ``defaultClassification`` for unmarked text, as
capture does (a review: both converters sanitized at ``normal``, so under a ``local-only``
or ``sensitive`` policy an imported pending job was queued at ``normal`` and went to a
route the policy kept that text from)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.evolution.test_legacy_import import _cli, _memory, _write
from waymarks.core.evolution.legacy import convert
from waymarks.core.evolution.legacy_sqlite import convert_rows
from waymarks.core.evolution.model import SourceRecord
from waymarks.core.privacy import Classification
from waymarks.service.evolution import Evolution

LEVELS: dict[str, Classification] = {"/w/a": "sensitive", "/w/b": "local-only"}


def levels_of(records: list[object]) -> dict[str, str]:
    return {r.origin: r.classification for r in records if isinstance(r, SourceRecord)}


def test_the_jsonl_converter_takes_each_origins_default_level() -> None:
    memories = "".join(json.dumps(m) + "\n" for m in [
        _memory("m1", "fact", "The staging port is 8080", "/w/a"),
        _memory("m2", "fact", "The build cache lives in /srv/cache", "/w/b"),
        _memory("m3", "fact", "Releases are cut on Fridays", "/w/c")])
    conversion = convert(memories, "", lambda origin: LEVELS.get(origin, "normal"))
    levels = levels_of(conversion.records)
    assert levels["/w/a"] == "sensitive" and levels["/w/c"] == "normal"
    assert levels["/w/b"] == "normal" and conversion.claims == 2  # nothing of it kept
    assert "The build cache" not in json.dumps([str(r) for r in conversion.records])


def test_a_pending_sqlite_job_is_queued_at_its_origins_level() -> None:
    job = json.dumps({"kind": "user", "content": "Remember: the deploy window is Tuesday",
                      "scope": "/w/a", "createdAt": "2026-05-01T10:00:00.000Z"})
    hidden = json.dumps({"kind": "user", "content": "Remember: the vault sits in room 4",
                         "scope": "/w/b", "createdAt": "2026-05-01T10:00:00.000Z"})
    conversion = convert_rows("6", [], [("j1", job, "pending", 0, ""),
                                        ("j2", hidden, "pending", 0, "")], (),
                              lambda origin: LEVELS.get(origin, "normal"))
    assert levels_of(conversion.records) == {"/w/a": "sensitive"}
    assert conversion.jobs_due == 1 and conversion.jobs_settled == 1


def test_the_import_reads_the_homes_policy(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "sensitive"\n')
    _write(legacy, [_memory("m1", "fact", "The staging port is 8080", "/w/a")], [])
    assert _cli(home, cwd, "evolution", "import", str(legacy))["claims"] == 1
    with Evolution(home) as evo:
        evo.sync()
        [source] = [s for s in evo.store.sources() if s.origin == "/w/a"]
        assert source.classification == "sensitive"
