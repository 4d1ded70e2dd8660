"""Issue 23 item 2: memory competes for its budget in seed 000's order — a claim whose
key the request names first, then relevance, then scope authority (project before
session), then recency — through the real ``waymarks`` command (a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def waymarks(home: Path, project: Path):  # type: ignore[no-untyped-def]
    env = {**os.environ, "WAYMARKS_HOME": str(home)}

    def run(*args: str) -> Any:
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", *args],
                              cwd=project, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    return run


def max_results(home: Path, n: int) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f"[memory]\nmaxResults = {n}\n")


def plan_entries(waymarks, prompt: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    manifest = waymarks("plan", "--prompt", prompt)["manifest"]
    return [(e["id"], e["decision"]) for e in manifest["entries"] if e["kind"] == "memory"]


@pytest.mark.slow
def test_a_claim_whose_key_the_request_names_outranks_newer_unkeyed_ones(
        waymarks, home: Path) -> None:  # type: ignore[no-untyped-def]
    max_results(home, 1)
    keyed = waymarks("memory", "add", "--key", "release-pipeline", "--",
                     "Release pipeline: the blue cluster receives every deploy first")["id"]
    newer = waymarks("memory", "add", "--",
                     "The release pipeline deploys every merge to the staging cluster")["id"]
    # equally relevant to recall; the newer one would win on recency alone
    assert plan_entries(waymarks, "How does the release pipeline deploy?") == [
        (keyed, "included"), (newer, "excluded")]
    # the same two claims, a request that names no key: recency decides the tie
    assert plan_entries(waymarks, "How does the pipeline deploy?") == [
        (newer, "included"), (keyed, "excluded")]


@pytest.mark.slow
def test_on_equal_relevance_project_authority_then_recency(
        waymarks, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    max_results(home, 2)
    waymarks("trust", str(project))
    # three facts, not one told three ways ("run at two", "at three": a conflict now)
    shared = waymarks("memory", "add", "--scope", "project", "--",
                      "Nightly backups copy the orders table")["id"]
    older = waymarks("memory", "add", "--", "Nightly backups copy the users table")["id"]
    newest = waymarks("memory", "add", "--", "Nightly backups copy the events table")["id"]
    assert plan_entries(waymarks, "What do nightly backups copy?") == [
        (shared, "included"), (newest, "included"), (older, "excluded")]
    excluded = [e for e in waymarks("manifest")["entries"] if e["id"] == older]
    assert "maxResults" in excluded[0]["reason"]
