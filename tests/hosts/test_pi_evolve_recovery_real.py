"""EVOLUTION item 85 in the real Pi 1.6 (from npm), on the extension's real 15 s timer,
with no user activity at all (Pi is started and never prompted): a failure an earlier
process persisted is recovered, and so is a malformed model reply, answered by the one
corrective call naming the broken rule. The calls are Pi's own (its model registry, its
active model, the loopback fake), the queue and the evolution ledger are the real ones."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text
from tests.hosts.pi_harness import PiHome, PiRpc, install
from waymarks.service.evolution import Evolution
from waymarks.store.jobs import JobStore

pytestmark = pytest.mark.slow  # two checks of the real 15 s timer

BROKEN = json.dumps({"claims": [{"kind": "preference", "content": "Prefers tabs in Go",
                                 "confidence": 0.99}]})
GOOD = json.dumps({"claims": [{"kind": "preference", "content": "Prefers tabs in Go"}]})


def _states(home: Path, sources: list[str]) -> dict[str, tuple[str, int]]:
    store = JobStore.open(home)
    try:
        jobs = {s: store.job(s) for s in sources}
    finally:
        store.close()
    return {s: (j.state, j.failures) for s, j in jobs.items() if j is not None}


def test_pi_recovers_a_persisted_failure_and_a_malformed_reply_unprompted(
        tmp_path: Path) -> None:
    with FakeOpenAI([reply_text(BROKEN), reply_text(GOOD), reply_text(GOOD)]) as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url,
                    extra_env={"PI_SUBAGENT_AGENT_ID": "",
                               "WAYMARKS_EVOLVE_INTERVAL_MS": ""})  # the real timer
        home, origin = pi.waymarks_home, str(pi.project.resolve())
        on = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                             "learn", "on"], cwd=pi.project, capture_output=True, text=True,
                            timeout=120)
        assert on.returncode == 0, on.stdout + on.stderr
        with Evolution(home) as evo:
            first = evo.capture(origin, "statement", "Remember: I prefer tabs for Go files",
                                session="s", key="a")
            second = evo.capture(origin, "statement", "Remember: the staging port is 5433",
                                 session="s", key="b")
            assert first is not None and second is not None
            refs = evo.unsettled(5)
        sources = [first.source_id, second.source_id]
        store = JobStore.open(home)  # an earlier process failed on the first source
        store.add_jobs(refs, 0)
        lease = store.lease(first.source_id, "earlier-process", 0, 150_000)
        assert lease is not None
        assert store.fail(lease, "overloaded", 1, output=False, pause=False,
                          retry_at=lambda n: 2)
        store.close()

        rpc = PiRpc(pi)  # started, never prompted
        try:
            deadline = time.monotonic() + 180  # a bound on waiting, not a timing assertion
            while _states(home, sources) != {sources[0]: ("settled", 1),
                                             sources[1]: ("settled", 0)}:
                assert rpc.process.poll() is None, "Pi exited"
                assert time.monotonic() < deadline, (_states(home, sources),
                                                     len(fake.bodies))
                time.sleep(0.25)
        finally:
            rpc.close()
        bodies = fake.bodies
    assert len(bodies) == 3, [json.dumps(b)[:200] for b in bodies]  # no chat turn at all
    prompts = [str(b["messages"][-1]["content"]) for b in bodies]
    assert "rule: host_only_field" in prompts[1] and "0.99" not in prompts[1]
    assert "rule:" not in prompts[2]
    with Evolution(home) as evo:
        assert evo.unsettled(5) == []
        assert [c.content for c in evo.claims(["provisional"])] == ["Prefers tabs in Go"]
