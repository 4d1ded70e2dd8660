"""Issue 19's done-means through the real Pi 1.6 (from npm) with the loopback fake model
(slow): in a real git checkout whose bare remote refuses pushes, Pi's own bash tool commits,
the push fails, twelve inspections follow; ``agent_end`` hands the turn's calls and results
to the bridge, which captures a work source with the pending project state nominated; the
extension's timer has Pi's model update it to "committed, not pushed"; the next Pi
process's request carries it. (Claude Code's side: ``test_observe_done.py``.)"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.evolution.conftest import wait_for_decision
from tests.evolution.test_observe_done import PENDING, UPDATED, git, make_repo
from tests.hosts.fake_openai import FakeOpenAI, reply_text, reply_tools
from tests.hosts.pi_harness import PiHome, PiRpc, install
from waymarks.core.evolution.model import claim_id
from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution

pytestmark = pytest.mark.slow


def _cli(home: Path, cwd: Path, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def test_pi_learns_committed_not_pushed_from_its_tool_results(tmp_path: Path) -> None:
    _remote, shop = make_repo(tmp_path)
    git(shop, "config", "user.name", "t")
    git(shop, "config", "user.email", "t@e")
    origin = str(shop.resolve())
    target = claim_id(origin, "project_state", PENDING)
    answer = json.dumps({"claims": [{"kind": "project_state", "content": UPDATED,
                                     "replaces": target, "searchTerms": ["login fix"]}]})
    inspections = [("bash", {"command": f"ls -la {shop}"}) for _ in range(12)]
    script = [reply_tools(("write", {"path": str(shop / "login.py"),
                                     "content": "def login():\n    return True\n"})),
              reply_tools(("bash", {"command": "git commit -am 'fix login'"})),
              reply_tools(("bash", {"command": f"git -C {shop} push origin main"})),
              reply_tools(*inspections),
              reply_text("Committed and pushed the fix."),
              reply_text(answer)]
    with FakeOpenAI(script) as fake:
        pi = PiHome(tmp_path / "pi", install("pi16"), fake.base_url,
                    extra_env={"WAYMARKS_EVOLVE_INTERVAL_MS": "300",
                               "PI_SUBAGENT_AGENT_ID": ""})
        pi.project = shop
        home = pi.waymarks_home
        _cli(home, shop, "learn", "on")
        _cli(home, shop, "trust", str(shop))  # an untrusted project's work is not captured
        with Evolution(home) as evo:  # an earlier session left the state pending
            said = evo.capture(origin, "statement", f"Remember: {PENDING}.", session="s0",
                               key="u0")
            assert said is not None
            evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
                {"kind": "project_state", "content": PENDING}]}), "fake", "fake-model"),
                "2030-01-01T00:00:00.000Z")
        rpc = PiRpc(pi)
        try:
            rpc.prompt("Fix the login bug in shop, commit it and push it", timeout=120)
            deadline = time.monotonic() + 90
            while UPDATED not in json.dumps(_cli(home, shop, "learn", "list")):
                assert time.monotonic() < deadline, [json.dumps(b)[:300]
                                                     for b in fake.bodies[-2:]]
                time.sleep(0.5)
        finally:
            rpc.close()

        wait_for_decision(home)
        learning = _cli(home, shop, "evolution", "learning")
        last = learning["lastCapture"]
        assert isinstance(last, dict) and last["host"] == "pi"
        assert last["decision"] == "captured" and [t["id"] for t in last["targets"]] == [target]
        assert last["scan"]["linked"] == 15 and last["scan"]["retained"] == 8
        consolidation = [b for b in fake.bodies if "A commit is not a push" in json.dumps(b)]
        assert len(consolidation) == 1  # one call for the one work source
        sent = consolidation[0]["messages"][-1]["content"]
        sent = sent if isinstance(sent, str) else sent[0]["text"]
        evidence = json.loads(sent.split("\n", 1)[1])["source"]["evidence"]
        kinds = [(o["kind"], o["ok"]) for o in evidence["observations"]]
        assert kinds[:3] == [("write", True), ("commit", True), ("push", False)]
        assert "read-only" in evidence["observations"][2]["output"]
        assert evidence["report"] == "Committed and pushed the fix."
        assert evidence["completion"] == "completed"

        other = tmp_path / "elsewhere"
        other.mkdir()
        done = pi.run("-p", "Where is the shop login fix?")
        assert done.returncode == 0, done.stderr
        last_request = json.dumps(fake.bodies[-1], ensure_ascii=False)
        assert UPDATED in last_request and PENDING not in last_request
