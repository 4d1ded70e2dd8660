"""A new or resumed session in Pi (the REAL Pi from npm, a fake provider).

Pi 0.73 starts a session it switches to (``/new``, ``/resume``, RPC ``new_session`` and
``switch_session``) twice: two ``session_start`` events. The second stopped the bridge the
first was starting, and the first's failed start told the person "memory is off for this
session (the Waymarks bridge stopped)" while the second served the session: a false
warning, and, said once, it also silenced the warning of a real failure later on. A start
that a later one replaced is nobody's failure."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"


def command(pi: PiRpc, sent: dict[str, Any], timeout: float = 90) -> dict[str, Any]:
    ident = f"c{time.monotonic_ns()}"
    pi.send({"id": ident, **sent})
    return pi._until(timeout, lambda e: e.get("type") == "response" and e.get("id") == ident)[-1]


def pinned(body: dict[str, Any]) -> bool:
    return any(m["role"] == "user" and PIN_BEGIN in str(m["content"]) for m in body["messages"])


@pytest.mark.parametrize("variant", ["pi16", "pi073"])
def test_switching_sessions_says_nothing_when_memory_is_on(tmp_path: Path,
                                                            variant: str) -> None:
    with FakeOpenAI() as fake:
        pi = PiRpc(PiHome(tmp_path, install(variant), fake.base_url))
        try:
            pi.prompt("hello")
            pi.prompt("/context pin -- Answer in French.")
            first = command(pi, {"type": "get_state"})["data"]["sessionFile"]
            assert command(pi, {"type": "new_session"})["success"]
            pi.prompt("hello again")
            assert not pinned(fake.bodies[-1])  # the other session's pin
            assert command(pi, {"type": "switch_session", "sessionPath": first})["success"]
            pi.prompt("back")
            assert pinned(fake.bodies[-1])
            pi.prompt("/context pin -- Use tabs.")
        finally:
            pi.close()
        assert pi.notices[0].startswith("Pinned pin")
        assert pi.notices[-1].startswith("Pinned pin")
        assert not [n for n in pi.notices if "memory is off" in n], pi.notices
