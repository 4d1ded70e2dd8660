"""Item 81's last gaps, through the real CLI: a person who knew a memory by its
pi-memory-evolution ID can still name it (``show`` shows the claim it became, with the
old ID; an edit by the old ID changes nothing and names the new ID), after the database
is deleted too (the mapping is in the canonical import record); and a requeued job keeps
its old failure count with the cause ``cause_unknown``, stored per job and shown by
``evolution status``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.test_legacy_import import _action, _cli, _memory, _without_age, _write
from tests.evolution.test_legacy_reopen import T, _extend
from tests.evolution.test_legacy_sqlite import ROWS, _database, _state
from waymarks.core.evolution.model import claim_id
from waymarks.service.evolution import ledger_path
from waymarks.store.jobs import JobStore


def _source(sid: str, content: str) -> dict[str, Any]:
    return {"id": sid, "scope": "/w/a", "kind": "user", "content": content, "createdAt": T}


@pytest.mark.slow
def test_a_legacy_id_names_the_claim_it_became(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    jobs = [("s1", _source("s1", "Remember: we release on Fridays"), "pending", 0),
            ("s2", _source("s2", "I prefer squash merges"), "failed", 2),
            ("s6", _source("s6", "Remember: lint before commit"), "running", 0)]
    _extend(_database(legacy, "6", ROWS), {"state": "not_found"}, [], jobs)
    before = _state(legacy)
    done = _cli(home, cwd, "evolution", "import", str(legacy))
    assert done["jobsDue"] == 3 and done["jobsRequeued"] == 2
    port = claim_id("/w/a", "fact", "The staging port is 8080")
    shown = _cli(home, cwd, "evolution", "show", "m1")
    assert shown["id"] == port and shown["content"] == "The staging port is 8080"
    assert shown["lookedUp"] == {"legacyId": "m1", "importedAs": [port],
                                 "currentIds": [port]}
    assert _cli(home, cwd, "evolution", "show", port)["legacyIds"] == ["m1"]
    listed = _cli(home, cwd, "evolution", "list")
    # an edit by the old ID is refused, changes nothing, and names the new ID
    refused = _cli(home, cwd, "evolution", "forget", "m1", expect=2)
    assert refused["code"] == "not_found" and port in refused["message"]
    assert refused["currentIds"] == [port] and "8080" not in json.dumps(refused)
    feedback = _cli(home, cwd, "evolution", "feedback", "m1", "useful", expect=2)
    assert feedback["currentIds"] == [port]
    assert _without_age(_cli(home, cwd, "evolution", "list")) == _without_age(listed)
    # after a correction the old ID leads to what the claim is now
    corrected = _cli(home, cwd, "evolution", "correct", port, "The staging port is 8443")
    new = claim_id("/w/a", "fact", "The staging port is 8443")
    assert corrected["outcome"] == "done"
    shown = _cli(home, cwd, "evolution", "show", "m1")
    assert shown["id"] == new and shown["lookedUp"]["importedAs"] == [port]
    assert shown["lookedUp"]["currentIds"] == [new]
    assert _cli(home, cwd, "evolution", "forget", "m1", expect=2)["currentIds"] == [new]
    # an ID no import recorded is still just unknown
    unknown = _cli(home, cwd, "evolution", "show", "m77", expect=2)
    assert unknown["code"] == "not_found" and "currentIds" not in unknown
    # the mapping is canonical: the database deleted, the same answers
    for path in home.glob("waymarks.db*"):
        path.unlink()
    assert _cli(home, cwd, "evolution", "show", "m1")["id"] == new
    assert _state(legacy) == before
    # the requeued jobs keep their failures, cause unknown, per job (operational state)
    store = JobStore.open(home)
    try:
        by_text = {j.source_id: j for j in store.jobs_in(("retrying",), 10)}
    finally:
        store.close()
    assert sorted((j.failures, j.last_error) for j in by_text.values()) == [
        (1, "cause_unknown"), (2, "cause_unknown")]
    status = _cli(home, cwd, "evolution", "status")
    assert sorted((f["failures"], f["lastError"]) for f in status["failed"]) == [
        (1, "cause_unknown"), (2, "cause_unknown")]
    assert all(f["nextDueAt"] is not None for f in status["failed"])


@pytest.mark.slow
def test_a_legacy_summary_id_names_every_claim_it_became(tmp_path: Path) -> None:
    """A compaction summary became several claims: ``show`` by its old ID cannot pick
    one, and names them all; the JSONL ledgers' IDs are recorded as the database's are."""
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    summary = "## Decisions\n- Releases are cut from main on Fridays\n- Hotfixes skip QA\n"
    _write(legacy, [_memory("m1", "fact", "The staging port is 8080", "/w/a"),
                    _memory("m3", "compaction_summary", summary, "/w/b")],
           [_action("m1", "correct", content="The staging port is 8443")])
    assert _cli(home, cwd, "evolution", "import", str(legacy))["outcome"] == "done"
    corrected = claim_id("/w/a", "fact", "The staging port is 8443")
    assert _cli(home, cwd, "evolution", "show", "m1")["id"] == corrected
    children = sorted(claim_id("/w/b", "fact", text) for text in (
        "Releases are cut from main on Fridays", "Hotfixes skip QA"))
    refused = _cli(home, cwd, "evolution", "show", "m3", expect=2)
    assert refused["code"] == "not_found"
    assert all(child in refused["message"] for child in children)
    assert sorted(_cli(home, cwd, "evolution", "forget", "m3", expect=2)["currentIds"]) \
        == children


@pytest.mark.slow
def test_an_import_before_the_mapping_existed_reports_the_id_unknown(tmp_path: Path) -> None:
    """An import batch written before legacy IDs were recorded has none: the old ID is
    reported unknown (never guessed), and everything else works."""
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _database(legacy, "6", ROWS[:1])
    assert _cli(home, cwd, "evolution", "import", str(legacy))["outcome"] == "done"
    path = ledger_path(home)
    text = path.read_text()
    assert "legacyIds" in text
    lines = []
    for line in text.splitlines():
        entry = json.loads(line)
        if entry.get("type") == "custom" and "legacyIds" in json.dumps(entry):
            entry["data"].pop("legacyIds")  # as an older Waymarks wrote it
        lines.append(json.dumps(entry))
    path.write_text("\n".join(lines) + "\n")
    for path in home.glob("waymarks.db*"):
        path.unlink()
    assert _cli(home, cwd, "evolution", "show", "m1", expect=2)["code"] == "not_found"
    port = claim_id("/w/a", "fact", "The staging port is 8080")
    assert _cli(home, cwd, "evolution", "show", port)["id"] == port


class _CountingDecoder:
    """The ledger's one line decoder (as the passes over a ledger's entries call it),
    counting the lines it decodes."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.lines = 0

    def __call__(self, line: bytes) -> Any:
        self.lines += 1
        return self.inner(line)


def test_show_reads_the_evolution_ledger_once(
        home: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``show`` (a claim, a legacy ID looked up, a summary's legacy ID naming its claims)
    decodes each line of the evolution ledger at most once: the import records that answer
    the lookup, the claim's legacy IDs and its imported history come from one pass, not
    one pass per question (a second pass would decode every line again)."""
    from waymarks.ledger import entries
    from waymarks.service.evolution_inspect import show, show_or_match

    legacy = tmp_path / "legacy"
    summary = "## Decisions\n- Releases are cut from main on Fridays\n- Hotfixes skip QA\n"
    _write(legacy, [_memory("m1", "fact", "The staging port is 8080", "/w/a"),
                    _memory("m2", "preference", "Prefers tabs over spaces"),
                    _memory("m3", "compaction_summary", summary, "/w/b")], [])
    assert cli("evolution", "import", str(legacy))["outcome"] == "done"
    port = claim_id("/w/a", "fact", "The staging port is 8080")
    assert show(home, port) is not None  # the projection is up to date from here on
    lines = ledger_path(home).read_bytes().count(b"\n")
    assert lines >= 2  # a header and the import batch: a second pass would show
    counter = _CountingDecoder(entries.decode_entry)
    monkeypatch.setattr(entries, "decode_entry", counter)

    def decoded(given: str) -> tuple[Any, Any, int]:
        counter.lines = 0
        shown, match = show_or_match(home, given)
        return shown, match, counter.lines

    shown, match, count = decoded(port)
    assert shown is not None and shown["legacyIds"] == ["m1"] and match is None
    assert 0 < count <= lines
    shown, match, count = decoded("m1")
    assert shown is not None and shown["id"] == port and match is None
    assert shown["lookedUp"]["importedAs"] == [port]
    assert 0 < count <= lines
    shown, match, count = decoded("m3")
    assert shown is None and match is not None and len(match["currentIds"]) == 2
    assert 0 < count <= lines
