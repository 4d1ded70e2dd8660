"""A reply that learned nothing is not reported ``applied`` (a review): one restating a claim
the person forgot, or whose only claim is kept aside as ``weaker``, settles ``refused_only``
and ``waymarks evolve`` says it wrote no claim; processed versus changed counts a source
from the claims it created as provisional, so forgetting a quarantined variant later does
not make its source "changed". The real ``waymarks`` entry point in real processes, a real
step (ledger and projection), a real loopback provider."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.test_multiprocess import child_env
from waymarks.service.evolution import Evolution

KEY = "sk-test-refused-only-0123456789abcdef"


def _cli(home: Path, cwd: Path, *args: str, text: bool = False) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
         *([] if text else ["--json"]), *args], cwd=cwd, env={**child_env(), "EVO_KEY": KEY},
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout if text else json.loads(done.stdout)


def _capture(home: Path, origin: str, text: str, key: str) -> str:
    with Evolution(home) as evo:
        source = evo.capture(origin, "statement", text, session="s", key=key)
        assert source is not None
        return source.source_id


def _reply(**claim: str) -> tuple[Any, ...]:
    return openai_ok(json.dumps({"claims": [{"kind": "fact", **claim}]}))


def _claim_of(home: Path, source_id: str) -> str:
    with Evolution(home) as evo:
        [claim] = [c for c in evo.claims() if c.source_id == source_id]
        return claim.id


@pytest.mark.slow  # nine real CLI processes
def test_a_reply_that_learned_nothing_settles_refused_only_and_changes_no_count(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    origin = str(project.resolve())
    port = "The staging port is 5433"
    target = "The deploy target is Fly.io"
    with FakeProvider([_reply(content=port), _reply(content=target),
                       _reply(content=port)]) as fake:
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
            f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\nkeyEnv = "EVO_KEY"\n',
            encoding="utf-8")
        said = _capture(home, origin, f"Remember: {port}", "a")
        first = _cli(home, project, "evolve", said)
        assert (first["reason"], first["written"]) == ("applied", 1)
        deploys = _capture(home, origin, f"Remember: {target}", "b")
        assert _cli(home, project, "evolve", deploys)["reason"] == "applied"
        _cli(home, project, "evolution", "forget", _claim_of(home, said))

        # the model says the forgotten claim again: refused alone, nothing learned
        again = _capture(home, origin, f"Remember, once more: {port}", "c")
        restated = _cli(home, project, "evolve", again)
        assert (restated["outcome"], restated["reason"], restated["written"]) == (
            "settled", "refused_only", 0)

        # a replacement of a claim the person marked accurate, from a statement: weaker
        # evidence, kept aside as conflicted; the text output says no claim was written
        _cli(home, project, "feedback", _claim_of(home, deploys), "accurate")
        render = _capture(home, origin, "Remember: the deploy target is Render now", "d")
        fake.script.append(_reply(content="The deploy target is Render",
                                  replaces=_claim_of(home, deploys)))
        said_text = _cli(home, project, "evolve", render, text=True)
    assert "(refused_only, 0 claim(s) written)" in said_text
    assert len(fake.requests) == 4

    with Evolution(home) as evo:
        settled = {s.source_id: s.settled for s in evo.store.sources()}
        [variant] = evo.claims(["conflicted"])
    assert settled == {said: "applied", deploys: "applied", again: "refused_only",
                       render: "refused_only"}
    counts = {"processed": 4, "changed": 2, "unchanged": 2,
              "byKind": {"statement": {"processed": 4, "changed": 2}}, "untrusted": 0}
    assert _cli(home, project, "evolution", "learning")["outcomes"] == counts
    # forgetting the variant kept aside does not make its source one that changed memory
    _cli(home, project, "evolution", "forget", variant.id)
    assert _cli(home, project, "evolution", "learning")["outcomes"] == counts
