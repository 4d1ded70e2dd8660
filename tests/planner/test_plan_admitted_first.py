"""A planning and privacy review: sources that offer only their best few cut them before
privacy, so items the destination may not receive took the places of items it may, and
the plan held none (each test failed before its fix)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.inprocess import waymarks
from waymarks.service.app import Waymarks
from waymarks.service.planning import plan_request


def _cli(home: Path, project: Path, *args: str) -> str:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    return done.stdout


def _excluded_local_only(home: Path, project: Path, kind: str) -> int:
    manifest = json.loads(_cli(home, project, "--json", "manifest"))
    entries = manifest.get("manifest", manifest)["entries"]
    return sum(1 for e in entries if e["kind"] == kind and e["decision"] == "excluded"
               and e["classification"] == "local-only")


def test_local_only_docs_passages_do_not_push_out_one_the_provider_may_receive(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    _cli(home, project, "trust", str(project))
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    for n in range(1, 5):
        (docs / f"client-{n}.md").write_text(
            f"# Kafka retention {n}\n\n[ds4:local-only]Client {n}: kafka retention is 30 "
            "days.[/ds4:local-only]\n")
    (docs / "kafka.md").write_text(
        "# Kafka retention\n\nKafka retention is seven days for the events topic.\n")
    plan = _cli(home, project, "plan", "--prompt", "kafka retention")
    assert "Kafka retention is seven days for the events topic." in plan
    assert "30 days" not in plan
    assert _excluded_local_only(home, project, "snippet") == 4  # listed as left out


def _pi_session(path: Path, cwd: Path) -> None:
    """Three early turns marked local-only about the Kafka retention, one that is not, a
    compaction keeping from the fifth, a later turn."""
    ts = "2026-01-01T00:00:0{}.000Z"

    def message(entry_id: str, parent: str | None, role: str, text: str, n: int) -> dict:
        return {"type": "message", "id": entry_id, "parentId": parent,
                "timestamp": ts.format(n),
                "message": {"role": role, "content": [{"type": "text", "text": text}]}}

    secret = ("[ds4:local-only]Kafka retention for client {0}: the Kafka retention is "
              "thirty days.[/ds4:local-only]")
    lines = [
        {"type": "session", "version": 3, "id": "pi-session-1", "timestamp": ts.format(0),
         "cwd": str(cwd)},
        message("a1", None, "user", "We decided the Kafka retention is seven days.", 1),
        message("a2", "a1", "user", secret.format("one"), 2),
        message("a3", "a2", "user", secret.format("two"), 3),
        message("a4", "a3", "user", secret.format("three"), 4),
        message("a5", "a4", "user", "Now let us look at the frontend build.", 5),
        {"type": "compaction", "id": "c1", "parentId": "a5", "timestamp": ts.format(6),
         "summary": "Talked about Kafka and the build.", "firstKeptEntryId": "a5",
         "tokensBefore": 1000},
        message("a6", "c1", "user", "The bundle is too big.", 7),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_local_only_compacted_turns_do_not_push_out_one_the_provider_may_receive(
        make_app: Callable[..., Waymarks], tmp_path: Path, project: Path, home: Path) -> None:
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n')
    path = tmp_path / "pi.jsonl"
    _pi_session(path, project)
    app = make_app(session=str(path))
    plan = plan_request(app, "what is the Kafka retention?", provider="openai")
    history = [m.content for m in plan.messages if m.kind == "history"]
    assert history and "seven days" in history[0] and "thirty" not in history[0]
    excluded = {e.id for e in plan.manifest if e.kind == "history"
                and e.decision == "excluded"}
    assert excluded == {"a2", "a3", "a4"}
    # the three it may not receive rank first: a local model gets them, and only them
    local = plan_request(app, "what is the Kafka retention?", provider="ollama")
    assert {e.id for e in local.manifest if e.kind == "history"} == {"a2", "a3", "a4"}


def test_local_only_recent_claims_do_not_push_out_one_the_provider_may_receive(
        tmp_path: Path) -> None:
    """With nothing matched, the three most recent claims were cut before privacy: three
    local-only claims newer than a normal one left the plan with no continuity at all."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _cli(home, project, "memory", "add", "--", "The staging cluster is called bluebird.")
    for text in ("My therapist appointment is on Tuesdays.",
                 "My salary review happens in March.", "My landlord is raising the rent."):
        _cli(home, project, "memory", "add", "--classification", "local-only", "--", text)
    listed = json.loads(_cli(home, project, "--json", "memory", "list"))["items"]
    assert len(listed) == 4
    plan = _cli(home, project, "plan", "--prompt", "hello")
    assert "The staging cluster is called bluebird." in plan
    assert not any(word in plan for word in ("therapist", "salary", "landlord"))
    assert _excluded_local_only(home, project, "memory") == 3
