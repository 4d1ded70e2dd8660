"""Seed 000: "Context Manifests contain IDs, scope, classification, key, …". A memory's
key was never in its manifest entry (team entries had theirs). A key a person gave is
now, as the model was shown it; a key derived from the claim is not (its words: a
manifest holds no words, issue 14)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks


def _run(home: Path, project: Path, *args: str) -> str:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert done.returncode == 0, (done.stdout, done.stderr)
    return done.stdout


def _memory_keys(home: Path, project: Path) -> dict[str, str | None]:
    manifest = json.loads(_run(home, project, "--json", "manifest"))
    entries = manifest.get("manifest", manifest).get("entries", [])
    return {e["id"]: e.get("key") for e in entries if e["kind"] == "memory"}


def test_a_memorys_manifest_entry_names_the_key_the_model_was_shown(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text(
        '[privacy]\nlocalProviders = ["ollama"]\n'
        '[privacy.remoteProviders]\npg = ["normal", "sensitive"]\n')
    _run(home, project, "memory", "add", "--key", "deploy-target", "--",
         "Deploys go to staging first.")
    _run(home, project, "memory", "add", "--", "[ds4:internal]Falcon merger target"
         "[/ds4:internal] warehouse is [ds4:sensitive]snowflake[/ds4:sensitive]")
    listed = json.loads(_run(home, project, "--json", "memory", "list"))
    ids = {item["key"]: item["id"] for item in listed["items"]}
    plan = _run(home, project, "plan", "--provider", "ollama", "--prompt",
                "where do deploys go, and which warehouse?")
    assert 'Key: "deploy-target"' in plan
    keys = _memory_keys(home, project)
    assert keys[ids["deploy-target"]] == "deploy-target"
    derived = next(k for k in ids if k != "deploy-target")
    assert derived in plan  # shown to a local model, yet its words stay out of manifests
    assert keys[ids[derived]] is None
    _run(home, project, "plan", "--provider", "pg", "--prompt",
         "where do deploys go, and which warehouse?")
    keys = _memory_keys(home, project)
    assert keys[ids["deploy-target"]] == "deploy-target"
    assert keys[ids[derived]] is None


def test_an_item_the_provider_may_not_receive_is_named_without_its_key(tmp_path: Path) -> None:
    """A claim left out for its level was never shown, so neither is its key: the
    manifest named a person's key of a local-only claim (``zeta-9-host``) in every plan
    for a remote model, as it named a team item's until ca3e29fb."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n')
    _run(home, project, "memory", "add", "--key", "zeta-9-host", "--classification",
         "local-only", "--", "The staging box is zeta-9.")
    _run(home, project, "memory", "add", "--key", "merger-codename", "--classification",
         "sensitive", "--", "The merger codename is Bluebird.")
    listed = json.loads(_run(home, project, "--json", "memory", "list"))
    ids = {item["key"]: item["id"] for item in listed["items"]}
    prompt = ["--prompt", "staging box and the merger codename"]
    plan = json.loads(_run(home, project, "--json", "plan", "--provider", "openai", *prompt))
    assert "zeta-9" not in json.dumps(plan) and "merger-codename" not in json.dumps(plan)
    keys = _memory_keys(home, project)
    assert keys[ids["zeta-9-host"]] is None and keys[ids["merger-codename"]] is None
    excluded = json.loads(_run(home, project, "--json", "excluded"))
    assert "zeta-9" not in json.dumps(excluded)
    _run(home, project, "plan", "--provider", "ollama", *prompt)  # shown: named
    keys = _memory_keys(home, project)
    assert keys[ids["zeta-9-host"]] == "zeta-9-host"
    assert keys[ids["merger-codename"]] == "merger-codename"
