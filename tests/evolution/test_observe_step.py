"""The model step for a work (progress) source on real files (EVOLUTION items 43-46):
capture with nomination, the request and its prompt, the narrow write authority (only
project_state replacing a nominated ID), no target means no source and no call, one source
per work turn beside a separate statement source, and the decision snapshot without
bodies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CountingIds, StepClock
from waymarks.core.evolution.model import claim_id
from waymarks.core.evolution.observations import (
    AssistantText,
    ToolCall,
    ToolResult,
    TurnItem,
    UserText,
)
from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution, ledger_path
from waymarks.service.evolution_observe import capture_work, last_capture, last_capture_path

ORIGIN = "/w/shop"
AT = "2030-01-01T00:00:00.000Z"
PENDING = "The shop checkout fix is not committed yet"


def _reply(*claims: dict[str, object]) -> ModelReply:
    return ModelReply(json.dumps({"claims": list(claims)}), "fake", "fake-model")


@pytest.fixture
def evo(home: Path) -> Evolution:
    e = Evolution(home, clock=StepClock(), ids=CountingIds(7))
    e.host_trust = (ORIGIN, True)  # its work turns are a trusted project's (not a dir here)
    yield e  # type: ignore[misc]
    e.close()


def _learn_state(evo: Evolution, content: str = PENDING) -> str:
    """A project_state claim learned from a statement, as the queue would."""
    captured = evo.capture(ORIGIN, "statement", f"Remember: {content}", session="s0",
                           key=content)
    assert captured is not None
    outcome = evo.apply(captured.source_id, _reply({"kind": "project_state",
                                                    "content": content}), AT)
    assert outcome.code == "applied"
    return claim_id(ORIGIN, "project_state", content)


def _work(push_ok: bool = False, request: str = "commit the checkout fix and push it"
          ) -> list[TurnItem]:
    return [UserText(request),
            ToolCall("c1", "bash", {"command": "cd /w/shop && git commit -am 'fix checkout'"}),
            ToolResult("c1", "[main 4f2e1d0] fix checkout", False),
            ToolCall("c2", "bash", {"command": "git -C /w/shop push origin main"}),
            ToolResult("c2", "remote: permission denied\nerror: failed to push some refs",
                       not push_ok),
            AssistantText("Committed and pushed.")]


def test_work_source_is_nominated_requested_and_updated(evo: Evolution, home: Path) -> None:
    target = _learn_state(evo)
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    assert decision["decision"] == "captured"
    assert [t["id"] for t in decision["targets"]] == [target]
    assert "pending" in decision["targets"][0]["reasons"]
    sid = decision["sourceId"]
    source = evo.store.view.source(sid)
    assert source is not None and (source.kind, source.basis) == ("progress",
                                                                  "tool_observation")
    request = evo.request_for(sid)
    assert request is not None
    assert "A commit is not a push" in request.system
    assert "report is not proof" in request.system
    assert "unfinished clauses stay" in request.system
    payload = json.loads(request.prompt.split("\n", 1)[1])
    assert [r["id"] for r in payload["records"]] == [target]
    kinds = [o["kind"] for o in payload["source"]["evidence"]["observations"]]
    assert kinds == ["commit", "push"]
    assert "targets" not in payload["source"]["evidence"]
    updated = "The shop checkout fix is committed locally but not pushed (push failed)"
    outcome = evo.apply(sid, _reply({"kind": "project_state", "content": updated,
                                     "replaces": target}), AT)
    assert (outcome.code, outcome.written) == ("applied", 1)
    new = evo.claim(claim_id(ORIGIN, "project_state", updated))
    assert new is not None and new.state == "provisional"
    assert (new.basis, new.method, new.source_id) == ("tool_observation", "model", sid)
    old = evo.claim(target)
    assert old is not None and old.state == "superseded"
    # the same turn captured again is the same source
    again = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    assert again["decision"] == "duplicate"


@pytest.mark.parametrize(("claim", "reason"), [
    ({"kind": "fact", "content": "The shop uses Stripe for payments"}, "progress_only"),
    ({"kind": "preference", "content": "The person likes small commits"}, "progress_only"),
    ({"kind": "project_state", "content": "The shop has a new release branch"},
     "not_nominated"),
])
def test_anything_but_a_nominated_update_is_refused(evo: Evolution, claim: dict[str, object],
                                                    reason: str) -> None:
    _learn_state(evo)
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    sid = decision["sourceId"]
    before = len(evo.claims())
    outcome = evo.apply(sid, _reply(claim), AT)
    assert outcome.code == reason and outcome.written == 0
    assert len(evo.claims()) == before  # nothing written: an authority stop
    source = evo.store.view.source(sid)
    assert source is not None and source.settled is None  # paused, not settled


def test_a_non_nominated_state_cannot_be_replaced(evo: Evolution) -> None:
    target = _learn_state(evo)
    other = _learn_state(evo, "The docs site redesign is in review")
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    assert [t["id"] for t in decision["targets"]] == [target]
    outcome = evo.apply(decision["sourceId"], _reply(
        {"kind": "project_state", "content": "The docs site redesign shipped",
         "replaces": other}), AT)
    assert outcome.code == "not_nominated"
    still = evo.claim(other)
    assert still is not None and still.state == "provisional"


def test_no_target_means_no_source_and_no_call(evo: Evolution, home: Path) -> None:
    _learn_state(evo, "The docs site redesign is in review")
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    assert decision["decision"] == "no_target" and decision["sourceId"] is None
    assert all(s.kind != "progress" for s in evo.store.sources())
    assert evo.unsettled(10) == []


def test_a_cross_origin_state_is_never_nominated(evo: Evolution) -> None:
    _learn_state(evo)
    decision = capture_work(evo, "/w/other", "s1", "turn-1", _work(), cwd="/w/other",
                            host="test")
    assert decision["decision"] == "no_target"


def test_a_target_changed_since_capture_leaves_no_call(evo: Evolution) -> None:
    target = _learn_state(evo)
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    assert evo.forget(target)
    assert evo.request_for(decision["sourceId"]) is None
    source = evo.store.view.source(decision["sourceId"])
    assert source is not None and source.settled == "no_target"


def test_a_mixed_turn_gives_two_sources_with_their_own_authority(evo: Evolution) -> None:
    _learn_state(evo)
    said = evo.capture(ORIGIN, "statement", "Remember: we always squash commits",
                       session="s1", key="u1")
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    assert said is not None and said.new and decision["decision"] == "captured"
    kinds = [evo.store.view.source(r.source_id).kind  # type: ignore[union-attr]
             for r in evo.unsettled(10)]
    assert kinds == ["statement", "progress"]  # the queue runs them one after the other
    # the statement source may learn a preference; the work source may not
    assert evo.apply(said.source_id, _reply({"kind": "preference", "content":
                                             "The team always squashes commits"}), AT
                     ).code == "applied"
    assert evo.apply(decision["sourceId"], _reply(
        {"kind": "preference", "content": "The team never squashes"}), AT).code == \
        "progress_only"


def test_the_decision_snapshot_has_counts_and_no_bodies(evo: Evolution, home: Path) -> None:
    _learn_state(evo)
    items = _work()
    items.insert(1, ToolCall("m", "memory_recall", {"query": "checkout"}))
    items.insert(2, ToolResult("m", "The shop checkout fix is not committed yet", False))
    capture_work(evo, ORIGIN, "s1", "turn-1", items, cwd=ORIGIN, host="test")
    snapshot = last_capture(home)
    assert snapshot is not None
    assert snapshot["scan"]["linked"] == 2 and snapshot["scan"]["ignored"] == {
        "memory_tool": 1}
    assert snapshot["scan"]["completion"] == "completed"
    raw = last_capture_path(home).read_text()
    for body in ("checkout fix", "commit the checkout", "permission denied", "Committed and"):
        assert body not in raw
    assert oct(last_capture_path(home).stat().st_mode & 0o777) == "0o600"


def test_the_ledger_holds_the_redacted_document(evo: Evolution, home: Path) -> None:
    _learn_state(evo)
    token = "ghp_" + "z" * 36
    items = _work(request=f"commit the checkout fix, token {token}")
    capture_work(evo, ORIGIN, "s1", "turn-1", items, cwd=ORIGIN, host="test")
    assert token not in ledger_path(home).read_text()


def test_an_unchanged_pending_state_gets_a_fresher_evidence_date(evo: Evolution,
                                                                  home: Path) -> None:
    """EVOLUTION item 47: the work turn's evidence was weighed and the state still holds."""
    target = _learn_state(evo)
    before = evo.claim(target)
    assert before is not None
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    sid = decision["sourceId"]
    source = evo.store.view.source(sid)
    assert source is not None
    outcome = evo.apply(sid, _reply({"kind": "project_state", "content": PENDING,
                                     "replaces": target, "searchTerms": ["alias only"]}), AT)
    assert (outcome.code, outcome.written) == ("applied", 1)
    after = evo.claim(target)
    assert after is not None and after.state == "provisional"
    assert after.updated_at == source.captured_at > before.updated_at
    assert after.source_id == sid
    assert (after.basis, after.method) == (before.basis, before.method)  # authority stays
    assert after.search_terms == before.search_terms  # aliases are not what refreshes
    assert after.content == before.content  # nothing is guessed complete
    # the refresh is an event like any other: incremental == rebuilt after deleting the db
    evo.close()
    (home / "waymarks.db").unlink()
    with Evolution(home) as again:
        rebuilt = again.claim(target)
    assert rebuilt == after


def test_after_a_refresh_the_persons_next_statement_still_supersedes(evo: Evolution
                                                                     ) -> None:
    """Regression (review i19 #4): the refresh set the claim's basis to the work source's
    (tool_observation), so the person's next statement was quarantined as a conflict."""
    target = _learn_state(evo)
    before = evo.claim(target)
    assert before is not None
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    refreshed = evo.apply(decision["sourceId"], _reply({"kind": "project_state",
                                                        "content": PENDING,
                                                        "replaces": target}), AT)
    assert refreshed.code == "applied"
    after = evo.claim(target)
    assert after is not None and after.updated_at > before.updated_at
    assert (after.basis, after.method) == (before.basis, before.method)
    done = "The shop checkout fix is committed and pushed now"
    said = evo.capture(ORIGIN, "statement", f"Remember: {done}", session="s2", key="k2")
    assert said is not None
    outcome = evo.apply(said.source_id, _reply({"kind": "project_state", "content": done,
                                                "replaces": target}),
                        "2030-01-03T00:00:00.000Z")
    assert outcome.code == "applied"
    old, new = evo.claim(target), evo.claim(claim_id(ORIGIN, "project_state", done))
    assert old is not None and new is not None
    assert (old.state, new.state) == ("superseded", "provisional")


def test_a_turn_naming_the_state_directory_through_home_is_not_captured(
        evo: Evolution, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (review i19 #5): the service passes the ``~``-relative spelling of its
    state directory, so ``cat ~/<state>/...`` is excluded like the absolute path."""
    _learn_state(evo)
    monkeypatch.setenv("HOME", str(home.parent))
    work = [UserText("commit the checkout fix"),
            ToolCall("c1", "bash", {"command": f"cat ~/{home.name}/evolution/x.jsonl && "
                                               "cd /w/shop && git commit -am fix"}),
            ToolResult("c1", "[main 4f2e1d0] fix", False), AssistantText("Committed.")]
    decision = capture_work(evo, ORIGIN, "s1", "turn-h", work, cwd=ORIGIN, host="test")
    assert decision["decision"] == "no_observation"
    assert decision["scan"]["ignored"] == {"state_dir": 1}
    assert decision["sourceId"] is None


def test_a_statement_deriving_the_same_state_again_moves_no_date(evo: Evolution) -> None:
    target = _learn_state(evo)
    before = evo.claim(target)
    said = evo.capture(ORIGIN, "statement", f"Remember again: {PENDING}", session="s9",
                       key="again")
    assert said is not None
    evo.apply(said.source_id, _reply({"kind": "project_state", "content": PENDING,
                                      "searchTerms": ["new alias"]}), AT)
    after = evo.claim(target)
    assert after is not None and before is not None
    assert after.updated_at == before.updated_at and after.source_id == before.source_id


def test_a_settled_state_is_not_refreshed(evo: Evolution) -> None:
    done = "The shop checkout fix is committed and pushed"
    target = _learn_state(evo, done)
    decision = capture_work(evo, ORIGIN, "s1", "turn-1",
                            _work(request="commit the checkout fix and push it again"),
                            cwd=ORIGIN, host="test")
    assert [t["id"] for t in decision["targets"]] == [target]
    before = evo.claim(target)
    outcome = evo.apply(decision["sourceId"], _reply({"kind": "project_state",
                                                      "content": done, "replaces": target}), AT)
    assert outcome.code == "no_change"
    assert evo.claim(target) == before


# -- the person's privacy policy and the levels of removed markers -------------------------


def _default_level(home: Path, level: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[privacy]\ndefaultClassification = "{level}"\n')


def test_a_local_only_default_keeps_nothing_of_a_work_turn(evo: Evolution, home: Path) -> None:
    """A review: statements kept nothing under ``defaultClassification = "local-only"``, a
    work turn's tool output was captured as ``normal`` and sent to a remote route."""
    _learn_state(evo)
    _default_level(home, "local-only")
    before = ledger_path(home).read_bytes()
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    assert (decision["decision"], decision["sourceId"]) == ("local_only", None)
    assert ledger_path(home).read_bytes() == before
    assert last_capture(home)["decision"] == "local_only"


def test_a_stricter_default_is_the_work_sources_level(evo: Evolution, home: Path) -> None:
    _learn_state(evo)
    _default_level(home, "sensitive")
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", _work(), cwd=ORIGIN, host="test")
    source = evo.store.view.source(decision["sourceId"])
    assert source is not None and source.classification == "sensitive"


def test_a_claude_code_record_keeps_the_level_of_the_markers_it_removed(
        evo: Evolution) -> None:
    """A review: the PostToolUse record removed ``[ds4:sensitive]`` markers and kept no
    level, so the work source was ``normal`` and went to a route allowed only that."""
    from waymarks.hosts.work_turns import from_claude_code, observation_record

    _learn_state(evo)
    record = observation_record({
        "tool_name": "Bash", "tool_use_id": "toolu_1",
        "tool_input": {"command": "cd /w/shop && git commit -am 'fix checkout'"},
        "tool_response": {"stdout": "[main abc] fix checkout. [ds4:sensitive]Merger with "
                                    "ACME closes Friday[/ds4:sensitive]", "stderr": ""}})
    assert record is not None and record["level"] == "sensitive"
    assert "[ds4:" not in record["output"] and "Merger" in record["output"]
    items = from_claude_code([("user", "commit the checkout fix"), ("observation", record)],
                             "Committed.", False)
    decision = capture_work(evo, ORIGIN, "s1", "turn-1", items, cwd=ORIGIN, host="test")
    assert decision["decision"] == "captured"
    source = evo.store.view.source(decision["sourceId"])
    assert source is not None and source.classification == "sensitive"
    # an unmarked record names no level; one naming no known level counts as the strictest
    plain = observation_record({"tool_name": "Bash", "tool_use_id": "toolu_2",
                                "tool_input": {"command": "git status"},
                                "tool_response": {"stdout": "clean"}})
    assert plain is not None and "level" not in plain
    bogus = from_claude_code([("observation", {**record, "level": "public"})], None, True)
    assert [i.level for i in bogus if isinstance(i, ToolResult)] == ["local-only"]
