"""A provider that echoes a route's own API key: the key must never reach learned memory
(EVOLUTION item 56's credential refusal, for the one credential no pattern knows). Real
step (evolution ledger and projection), real evolution.db, a real loopback provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore

NOW = 1_800_000_000_000
ORIGIN = "/work/project"
KEY = "Zq8vT3nLpR6wXk2YbM9cHd4FgJ7sAe5Uu1Ni0Oo"  # no credential pattern's shape


def _stored(home: Path) -> bytes:
    """Every byte Waymarks keeps under ``home`` (ledgers, projection, WAL, queue)."""
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def _run(home: Path, reply: dict[str, object], *, then: dict[str, object] | None = None,
         sent: list[str] | None = None, key: str = KEY) -> tuple[str, str | None, list[str]]:
    """One attempt at a captured statement; the provider answers ``reply`` (then ``then``
    from its second call on); ``sent`` receives the prompt of every call made."""
    later = openai_ok(json.dumps(reply if then is None else then))
    with FakeProvider([openai_ok(json.dumps(reply))], default=later) as fake, \
            Evolution(home) as step:
        source = step.capture(ORIGIN, "statement", "Remember: deploys go through Kamal",
                              session="s", key="a")
        assert source is not None
        route = RouteConfig("gateway", "openai", "m1", fake.origin + "/v1", "WM_KEY2")
        queue = EvolutionQueue(JobStore.open(home), step, EvolutionConfig(primary=route),
                               ProviderPolicy.from_config({}),
                               lambda r: client_for(r.api, r.endpoint, r.key_env),
                               now_ms=lambda: NOW, jitter=lambda: 0.5)
        try:
            attempt = queue.run_once(source.source_id)
        finally:
            queue.close()
        assert fake.requests[0]["headers"]["authorization"] == f"Bearer {key}"
        if sent is not None:
            sent.extend(r["body"]["messages"][-1]["content"] for r in fake.requests)
        terms = [t for c in step.claims(["provisional"]) for t in c.search_terms]
        return attempt.outcome, attempt.reason, terms


def test_a_claim_holding_the_routes_key_is_refused(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WM_KEY2", KEY)
    home = tmp_path / "home"
    outcome, reason, _ = _run(home, {"claims": [{
        "kind": "fact", "content": f"Deploys with Kamal use the gateway key {KEY}",
        "searchTerms": ["deploy", "kamal"]}]})
    assert (outcome, reason) == ("paused", "write_rejected")  # a still_redacted stop
    stored = _stored(home)
    assert KEY.encode() not in stored and b"still_redacted" in stored


@pytest.mark.parametrize("placeholder", ["lm-studio", "not-needed", "token-abc123"])
def test_a_local_servers_placeholder_key_is_no_credential(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, placeholder: str) -> None:
    """A local server takes any key, and the placeholders its documentation gives are
    words a claim says: a reply naming one was refused as a credential (a stop: the
    source paused, the reply's other claims lost, on every retry)."""
    monkeypatch.setenv("WM_KEY2", placeholder)
    home = tmp_path / "home"
    outcome, reason, terms = _run(home, {"claims": [
        {"kind": "fact", "content": f"Local models are served with {placeholder} as the key",
         "searchTerms": ["local models", placeholder]},
        {"kind": "fact", "content": "CI uses Python 3.12", "searchTerms": ["ci"]}]},
        key=placeholder)
    assert (outcome, reason) == ("settled", "applied")
    assert terms == ["local models", placeholder, "ci"]


def test_a_search_term_holding_the_routes_key_is_dropped(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WM_KEY2", KEY)
    home = tmp_path / "home"
    outcome, reason, terms = _run(home, {"claims": [{
        "kind": "fact", "content": "Deploys go through Kamal",
        "searchTerms": ["deploy", f"key={KEY}"]}]})
    assert (outcome, reason, terms) == ("settled", "applied", ["deploy"])
    assert KEY.encode() not in _stored(home)


@pytest.mark.parametrize("named", [f"key={KEY}", "ghp_" + "Ab3" * 12])
def test_a_replaces_holding_the_routes_key_is_a_contract_break_never_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str) -> None:
    """A review: a ``replaces`` holding the key (or a token) was recorded verbatim as a
    ``refused`` record's target in the append-only ledger and the projection, once per
    retry. It is no record's ID: the reply breaks the contract (``bad_replaces``), the one
    corrective call names the rule, and its good reply is applied."""
    monkeypatch.setenv("WM_KEY2", KEY)
    home = tmp_path / "home"
    claim = {"kind": "fact", "content": "The release branch is trunk-stable"}
    prompts: list[str] = []
    outcome, reason, _ = _run(home, {"claims": [{**claim, "replaces": named}]},
                              then={"claims": [claim]}, sent=prompts)
    assert (outcome, reason) == ("settled", "applied")
    assert len(prompts) == 2 and "rule: bad_replaces" in prompts[1]
    stored = _stored(home)
    assert named.encode() not in stored and KEY.encode() not in stored
    assert b"trunk-stable" in stored


def test_a_model_that_keeps_naming_the_key_fails_the_attempt_storing_nothing_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WM_KEY2", KEY)
    home = tmp_path / "home"
    outcome, reason, _ = _run(home, {"claims": [{
        "kind": "fact", "content": "The release branch is trunk-stable",
        "replaces": f"key={KEY}"}]})
    assert (outcome, reason) == ("failed", "invalid_output")
    stored = _stored(home)
    assert KEY.encode() not in stored and b"refused" not in stored


def test_a_statement_holding_the_routes_key_is_neither_stored_nor_sent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person who pasted the route's own key (a shape no credential rule knows) into a
    statement: it was kept as the source's text in the append-only evolution ledger and
    sent in every request, to backups of other providers too (and a reply that echoed it
    was refused whole, so the source paused). Captured where the variable is set, it is
    redacted before it is stored; captured where it is not (a hook started without it),
    it is redacted from the request by the queue that holds the key."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[evolution]\nlearn = true\nprovider = "gateway"\napi = "openai"\n'
        'endpoint = "http://127.0.0.1:9/v1"\nmodel = "m1"\nkeyEnv = "WM_KEY2"\n')
    text = f"Remember: the staging gateway accepts {KEY} from CI"
    monkeypatch.setenv("WM_KEY2", KEY)
    with Evolution(home) as step:
        assert step.capture(ORIGIN, "statement", text, session="s", key="a") is not None
    assert KEY.encode() not in _stored(home)
    monkeypatch.delenv("WM_KEY2")
    with Evolution(home) as step:
        late = step.capture(ORIGIN, "statement", text, session="s", key="b")
        assert late is not None
    monkeypatch.setenv("WM_KEY2", KEY)
    with FakeProvider([openai_ok('{"claims": []}')]) as fake, Evolution(home) as step:
        route = RouteConfig("gateway", "openai", "m1", fake.origin + "/v1", "WM_KEY2")
        queue = EvolutionQueue(JobStore.open(home), step, EvolutionConfig(primary=route),
                               ProviderPolicy.from_config({}),
                               lambda r: client_for(r.api, r.endpoint, r.key_env),
                               now_ms=lambda: NOW, jitter=lambda: 0.5)
        try:
            assert queue.run_once(late.source_id).outcome == "settled"
        finally:
            queue.close()
        sent = fake.requests[0]["body"]["messages"][-1]["content"]
    assert KEY not in sent and "staging gateway accepts" in sent


def test_a_work_turn_holding_the_routes_key_is_not_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same key in a work turn (the person's request that started it, a command's
    argument, its output): the statement was redacted, but the turn's progress source kept
    the key in the append-only evolution ledger, in clear, twice."""
    from waymarks.core.evolution.model import SCHEMA_VERSION, ClaimRecord, Evidence, claim_id
    from waymarks.core.evolution.observations import (
        AssistantText,
        ToolCall,
        ToolResult,
        UserText,
    )
    from waymarks.service.evolution_observe import capture_work

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[evolution]\nlearn = true\nprovider = "gateway"\napi = "openai"\n'
        'endpoint = "http://127.0.0.1:9/v1"\nmodel = "m1"\nkeyEnv = "WM_KEY2"\n')
    monkeypatch.setenv("WM_KEY2", KEY)
    state = "The login fix for staging is not committed yet"
    items = [UserText(f"Commit the login fix for staging; the gateway login word is {KEY}"),
             ToolCall("c1", "Bash", {"command": f"git commit -am 'login fix {KEY}'"}),
             ToolResult("c1", f"[main 1a2b3c4] login fix for staging, key {KEY}", False),
             AssistantText(f"Committed the login fix ({KEY}).")]
    with Evolution(home) as evo:
        with evo.ledger.locked():
            evo._append([ClaimRecord(SCHEMA_VERSION, claim_id(ORIGIN, "project_state", state),
                                     ORIGIN, "project_state", state,
                                     Evidence("user_statement", "model", "s9",
                                              "2026-12-01T10:00:00Z"))])
        done = capture_work(evo, ORIGIN, "s", "t1", items, cwd=ORIGIN, host="claude-code")
    assert done["decision"] == "captured", done
    ledger = (home / "evolution" / "ledger.jsonl").read_text(encoding="utf-8")
    assert "the gateway login word is [REDACTED:route-key]" in ledger
    assert KEY.encode() not in _stored(home)
