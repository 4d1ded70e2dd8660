"""Importing pi-memory-evolution's JSONL ledgers (EVOLUTION item 80) through the real CLI:
once, originals untouched, invalid actions halt with nothing written, forgotten content
stays forgotten, missing origins become ``legacy``, credentials are redacted, an empty or
missing ledger does not use the import up, and the import survives a deleted database.
The fixtures follow the formats' public description (shapes only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks
from waymarks.core.evolution.model import SCHEMA_VERSION, ClaimRecord, Evidence, claim_id
from waymarks.service.evolution import Evolution

TOKEN = "ghp_" + "q" * 36
T = "2026-05-01T10:00:00.000Z"


def _cli(home: Path, cwd: Path, *args: str, expect: int = 0) -> dict[str, Any]:
    done = waymarks("--home", str(home), "--json", *args, cwd=cwd)
    assert done.returncode == expect, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def _without_age(listing: dict[str, Any]) -> dict[str, Any]:
    """An ``evolution list`` without each claim's age: in hundredths of a day, it may tick
    between two listings of the same claims (CI saw it once)."""
    return {**listing, "claims": [{k: v for k, v in claim.items() if k != "aging"}
                                  for claim in listing["claims"]]}


def _write(directory: Path, memories: list[dict[str, Any]],
           actions: list[dict[str, Any]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "memories.jsonl").write_text(
        "".join(json.dumps(m) + "\n" for m in memories), encoding="utf-8")
    (directory / "memory-actions.jsonl").write_text(
        "".join(json.dumps(a) + "\n" for a in actions), encoding="utf-8")


def _memory(mid: str, kind: str, content: str, scope: str | None = None) -> dict[str, Any]:
    row = {"version": 1, "id": mid, "kind": kind, "content": content,
           "sourceEntryId": f"e-{mid}", "createdAt": T}
    if scope is not None:
        row["scope"] = scope
    return row


def _action(mid: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"version": 1, "memoryId": mid, "type": kind, "createdAt":
            "2026-05-02T10:00:00.000Z", **extra}


MEMORIES = [
    _memory("m1", "fact", "The staging port is 8080", "/w/a"),
    _memory("m2", "preference", "Prefers tabs over spaces"),
    _memory("m3", "compaction_summary",
            "## Decisions\n- Releases are cut from main on Fridays\n", "/w/b"),
    _memory("m4", "fact", f"The deploy token is {TOKEN}", "/w/a"),
]
ACTIONS = [_action("m2", "forget"), _action("m1", "correct", content="The staging port is 8443"),
           _action("m3", "confirm"), _action("m1", "pin")]


def test_import_once_with_forgets_corrections_and_legacy_origin(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _write(legacy, MEMORIES, ACTIONS)
    before = {p.name: p.read_bytes() for p in legacy.iterdir()}
    done = _cli(home, cwd, "evolution", "import", str(legacy))
    # m4's text is left holding a placeholder once its token is redacted: no claim
    assert done["outcome"] == "done" and done["claims"] == 3 and done["skipped"] == 1
    assert {p.name: p.read_bytes() for p in legacy.iterdir()} == before  # untouched
    claims = {c["content"]: c for c in _cli(home, cwd, "evolution", "list")["claims"]}
    assert claims["Prefers tabs over spaces"]["state"] == "forgotten"
    assert claims["Prefers tabs over spaces"]["origin"] == "legacy"
    assert claims["The staging port is 8080"]["state"] == "superseded"
    fixed = claims["The staging port is 8443"]
    assert fixed["state"] == "provisional" and fixed["evidence"]["basis"] == "manual_correction"
    assert fixed["pinned"] is True  # the legacy pin follows the correction
    friday = claims["Releases are cut from main on Fridays"]
    assert friday["origin"] == "/w/b" and friday["feedback"]["accuracy"]["verdict"] == "accurate"
    assert TOKEN not in (home / "evolution" / "ledger.jsonl").read_text()
    assert _cli(home, cwd, "evolution", "import", str(legacy), expect=2)["code"] == "duplicate"
    # forgotten content never comes back in its origin, from any source or kind
    with Evolution(home) as evo, evo.ledger.locked():
        text = "Prefers tabs over spaces"
        evo._append([ClaimRecord(SCHEMA_VERSION, claim_id("legacy", "fact", text), "legacy",
                                 "fact", text, Evidence("user_statement", "model", "s9", T))])
    assert not [c for c in _cli(home, cwd, "evolution", "list")["claims"]
                if c["content"] == "Prefers tabs over spaces" and c["state"] == "provisional"]
    listed = _cli(home, cwd, "evolution", "list")
    (home / "waymarks.db").unlink()
    assert _without_age(_cli(home, cwd, "evolution", "list")) == _without_age(listed)


def test_an_invalid_action_halts_with_nothing_written(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _write(legacy, MEMORIES, [*ACTIONS, _action("nope", "forget")])
    refused = _cli(home, cwd, "evolution", "import", str(legacy), expect=2)
    assert refused["code"] == "bad_input" and "memory-actions.jsonl:5" in refused["message"]
    assert "8080" not in json.dumps(refused)
    assert not (home / "evolution" / "ledger.jsonl").exists()
    (legacy / "memories.jsonl").write_text('{"version": 1, "id": "x"\n', encoding="utf-8")
    assert _cli(home, cwd, "evolution", "import", str(legacy), expect=2)["code"] == "bad_input"


def test_missing_ledgers_do_not_use_up_the_import(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    legacy.mkdir()
    assert _cli(home, cwd, "evolution", "import", str(legacy), expect=2)["code"] == "not_found"
    _write(legacy, MEMORIES[:1], [])
    assert _cli(home, cwd, "evolution", "import", str(legacy))["claims"] == 1


@pytest.mark.parametrize("fifo", ["memories.jsonl", "memory-actions.jsonl"])
def test_a_fifo_in_a_legacy_ledgers_place_is_refused_not_waited_on(tmp_path: Path,
                                                                  fifo: str) -> None:
    """``evolution import DIR`` read the legacy ledgers with ``read_bytes``: a FIFO named
    as one hung it for ever. It is refused, naming the file, and nothing is written."""
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _write(legacy, MEMORIES, ACTIONS)
    (legacy / fifo).unlink()
    os.mkfifo(legacy / fifo)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", "evolution", "import", str(legacy)], cwd=cwd,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(root / "src"), str(root)])})
    assert done.returncode == 2, done.stdout + done.stderr
    refused = json.loads(done.stdout)
    assert refused["code"] == "bad_input"
    assert f"{legacy / fifo}: cannot be read (it is a FIFO" in refused["message"]
    assert not (home / "evolution" / "ledger.jsonl").exists()


def test_a_legacy_claim_left_holding_a_placeholder_is_not_imported(tmp_path: Path) -> None:
    """A legacy fact holding a credential became the claim "CI deploys with the token
    [REDACTED:github-token] on main", listed provisional and planned: a claim holding one of
    Waymarks' own placeholders says nothing learned (a model's is refused, a summary's
    bullet is not kept), and the import kept it. It is skipped, the others imported."""
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    now = "2026-12-01T10:00:00.000Z"  # recent: the claim would be planned
    rows = [{**_memory("t1", "fact", f"CI deploys with the token {TOKEN} on main", str(cwd)),
             "createdAt": now},
            {**_memory("t2", "fact", "CI deploys run from the main branch", str(cwd)),
             "createdAt": now}]
    # a correction holding one still applies (refused, it would stop the whole import)
    _write(legacy, rows, [_action("t2", "correct", content=f"CI uses {TOKEN} from main")])
    done = _cli(home, cwd, "evolution", "import", str(legacy))
    assert done["outcome"] == "done" and done["claims"] == 1 and done["skipped"] == 1, done
    listed = _cli(home, cwd, "evolution", "list", "all")
    assert "CI deploys run from the main branch" in [c["content"] for c in listed["claims"]]
    assert not [c for c in listed["claims"] if "deploys with the token" in c["content"]]
    plan = waymarks("--home", str(home), "plan", "--provider", "ollama", "--prompt",
                    "CI deploys token main", cwd=cwd)
    assert plan.returncode == 0 and "with the token [REDACTED" not in plan.stdout
    assert TOKEN not in plan.stdout
