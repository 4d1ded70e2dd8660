"""Evolved (learned) claims are global, explicit items keep their visibility (issue 20 item 5).

Seed 004: directory placement must not decide which learned memories a conversation can
use. A claim learned in one project is a candidate in any other directory, labelled with
the origin it was learned in; a project item of that same project (explicit memory, DS4
visibility) stays out of another project's recall. Through the real entry point, in
separate processes, each in its own working directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution

AT = "2030-01-01T00:00:00.000Z"


def waymarks(home: Path, cwd: Path, *args: str) -> Any:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, capture_output=True, timeout=300,
                          check=False, env={**os.environ, "WAYMARKS_SEMANTIC": "off"})
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def learn(home: Path, origin: Path, text: str, content: str, terms: list[str]) -> str:
    with Evolution(home) as evo:
        src = evo.capture(str(origin), "statement", text, session=f"s-{origin.name}",
                          key=text)
        assert src is not None
        reply = json.dumps({"claims": [{"kind": "decision", "content": content,
                                        "searchTerms": terms}]})
        assert evo.apply(src.source_id, ModelReply(reply, "f", "m"), AT).code == "applied"
        return next(c.id for c in evo.claims(["provisional"]) if c.content == content)


@pytest.mark.slow
def test_claims_learned_anywhere_are_candidates_here_and_project_items_stay_home(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    alpha, beta, gamma = (tmp_path / name for name in ("alpha", "beta", "gamma"))
    for place in (alpha, beta, gamma):
        place.mkdir()
    waymarks(home, alpha, "trust", ".")
    added = waymarks(home, alpha, "memory", "add", "--scope", "project", "--",
                     "Deployments of alpha go through the blue-green deploy tool Kamal.")
    assert added["outcome"] == "committed"
    deploy = learn(home, alpha, "Remember: we deploy with Kamal",
                   "Deployments use Kamal, not Capistrano", ["deploy tool", "kamal"])
    queue = learn(home, beta, "Remember: RabbitMQ is our queue",
                  "The message queue is RabbitMQ", ["message queue", "rabbitmq"])

    # from a third directory (another project, never trusted, a new session)
    out = waymarks(home, gamma, "recall", "which deploy tool do we use?")
    [row] = out["learned"]
    assert row["id"] == deploy and row["origin"] == str(alpha)
    assert row["status"] == "provisional"
    assert out["rows"] == []  # alpha's project memory is not visible here
    out = waymarks(home, gamma, "recall", "what is our message queue?")
    assert [r["id"] for r in out["learned"]] == [queue]
    assert out["learned"][0]["origin"] == str(beta)

    # in alpha itself, its project item is recalled beside the learned claim
    out = waymarks(home, alpha, "recall", "which deploy tool do we use?")
    assert [r["id"] for r in out["learned"]] == [deploy]
    assert len(out["rows"]) == 1 and "Kamal" in out["rows"][0]["excerpt"]


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_recall_explain_names_the_learned_claims_the_recall_selects(tmp_path: Path) -> None:
    """``recall --explain`` explained confirmed memory only: "0 candidates, selected:
    none" while the same recall answered with a learned claim. Now it explains the
    learned recall too, each claim as what it is (provisional, not "active")."""
    home, alpha, gamma = tmp_path / "home", tmp_path / "alpha", tmp_path / "gamma"
    alpha.mkdir()
    gamma.mkdir()
    deploy = learn(home, alpha, "Remember: we deploy with Kamal",
                   "Deployments use Kamal, not Capistrano", ["deploy tool", "kamal"])
    ask = "which deploy tool do we use?"
    assert [r["id"] for r in waymarks(home, gamma, "recall", ask)["learned"]] == [deploy]
    report = waymarks(home, gamma, "recall", "--explain", ask)
    assert report["selected"] == [] and report["learned"]["selected"] == [deploy]
    [scored] = report["learned"]["scored"]
    assert (scored["id"], scored["status"], scored["verdict"]) == (
        deploy, "provisional", "selected")
    text = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "recall", "--explain", ask], cwd=gamma, capture_output=True,
                          text=True, timeout=300, check=True,
                          env={**os.environ, "WAYMARKS_SEMANTIC": "off"}).stdout
    assert f"selected: {deploy}" in text and "provisional" in text
