"""A follow-up keeps its subject across a compaction (the REAL Pi from npm, a fake provider).

Issue 20 item 2 in Pi: after "Let's look at SQLite today", "and the port?" is about the
SQLite database, and only its claim is injected. The extension read the person's earlier
turns from the messages Pi sends, and a compaction (automatic in a long session) replaces
them with its summary: the follow-up lost its subject, and the PostgreSQL claim went in
beside the SQLite one. Claude Code's hook reads the turns from the session ledger, before a
compaction too; the extension now reads them from the active branch as well
(EVOLUTION.md item 15: the active branch, retained tails included)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow

SQLITE = "The SQLite database listens on port 5433."
POSTGRES = "The PostgreSQL database listens on port 5432."


def command(pi: PiRpc, sent: dict[str, Any], timeout: float = 90) -> dict[str, Any]:
    ident = f"c{time.monotonic_ns()}"
    pi.send({"id": ident, **sent})
    return pi._until(timeout, lambda e: e.get("type") == "response" and e.get("id") == ident)[-1]


def injected(body: dict[str, Any]) -> str:
    return "\n".join(json.dumps(m) for m in body["messages"]
                     if m["role"] == "user" and "[WAYMARKS" in json.dumps(m))


@pytest.mark.parametrize("variant", ["pi16", "pi073"])
def test_a_follow_up_after_a_compaction_keeps_its_subject(tmp_path: Path,
                                                          variant: str) -> None:
    with FakeOpenAI() as fake:
        home = PiHome(tmp_path, install(variant), fake.base_url)
        (home.agent / "settings.json").write_text(json.dumps({"compaction": {
            "keepRecentTokens": 1}}))  # the SQLite turn is summarized
        pi = PiRpc(home)
        try:
            pi.prompt("hello")
            for claim in (SQLITE, POSTGRES):
                pi.prompt(f"/context memory add -- {claim}")
            assert [n.split()[0] for n in pi.notices] == ["Recorded", "Recorded"]
            pi.prompt("Let's look at SQLite today")
            assert command(pi, {"type": "compact"})["success"]
            pi.prompt("and the port?")
        finally:
            pi.close()
        last = fake.bodies[-1]
        assert "and the port?" in json.dumps(last["messages"][-1])
        assert "Let's look at SQLite today" not in json.dumps(last["messages"])  # summarized
        sent = injected(last)
        assert SQLITE in sent
        assert POSTGRES not in sent
