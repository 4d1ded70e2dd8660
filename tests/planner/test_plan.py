"""Planning through the real service: order, budgets, fallback, privacy, manifest, logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from waymarks.cli.main import main
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, ServiceError
from waymarks.service.planning import last_manifest, plan_request

SECRET_PIN = "Zebracorn pin: always deploy on Tuesdays"
SECRET_CLAIM = "Quokkaflux claim: the database port is 5433"


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


def kinds(plan) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.kind for m in plan.messages]


def test_pins_then_memory_then_request(app: Waymarks) -> None:
    app.pin(SECRET_PIN)
    app.remember(SECRET_CLAIM)
    app.remember("Redis caches sessions for thirty minutes")
    plan = plan_request(app, "which port does the database use?")
    assert kinds(plan) == ["pins", "memory", "request"]
    assert json.dumps(SECRET_PIN)[1:-1] in plan.messages[0].content
    assert "Quokkaflux" in plan.messages[1].content
    assert "Redis" not in plan.messages[1].content  # unrelated memory is excluded
    assert plan.messages[-1].content == "which port does the database use?"
    assert [m.priority for m in plan.messages] == [950, 90, 1000]


def test_recent_continuity_when_nothing_matches(app: Waymarks) -> None:
    for n in range(5):
        app.remember(f"Service number {n} runs nightly batch jobs")
    plan = plan_request(app, "hello there")
    memory = [e for e in plan.manifest if e.kind == "memory" and e.decision == "included"]
    assert len(memory) == 3
    assert all("recent continuity" in e.reason for e in memory)


def test_pin_budget_overflow_falls_back_without_splitting(app: Waymarks, home: Path) -> None:
    write_config(home, "[context]\nmaxPinnedTokens = 50\n")
    for n in range(5):
        app.pin(f"Pinned instruction number {n}: " + "keep things tidy " * 5)
    plan = plan_request(app, "anything")
    assert plan.messages == () and plan.fallback and "pin budget" in plan.fallback
    assert all(e.decision == "excluded" for e in plan.manifest)


def test_model_limit_is_enforced(app: Waymarks) -> None:
    app.pin("Short pin")
    plan = plan_request(app, "x " * 400, model_limit=50)
    assert plan.fallback and "model limit" in plan.fallback
    ok = plan_request(app, "short request", model_limit=10_000, fixed_tokens=100)
    assert ok.fallback is None and ok.total_tokens <= 10_000


def test_local_only_never_reaches_a_remote_provider(app: Waymarks, home: Path) -> None:
    write_config(home, '[privacy]\nlocalProviders = ["ollama"]\n')
    app.pin("Local secret pin", classification="local-only")
    app.pin("Marked pin [ds4:sensitive]internal hostname db-7[/ds4:sensitive]")
    app.pin("Ordinary pin")
    remote = plan_request(app, "anything", provider="openai")
    assert "Local secret pin" not in remote.messages[0].content
    assert "db-7" not in remote.messages[0].content
    excluded = {e.classification for e in remote.manifest if e.decision == "excluded"}
    assert {"local-only", "sensitive"} <= excluded
    local = plan_request(app, "anything", provider="ollama")
    assert "Local secret pin" in local.messages[0].content


def test_config_that_allows_local_only_remotely_is_rejected(app: Waymarks, home: Path) -> None:
    write_config(home, '[privacy.remoteProviders]\nopenai = "local-only"\n')
    with pytest.raises(ServiceError) as refused:  # a write reads the policy first
        app.pin("x")
    with pytest.raises(ServiceError) as info:
        plan_request(app, "anything", provider="openai")
    assert info.value.code == refused.value.code == "bad_config"


def test_untrusted_project_config_is_ignored(app: Waymarks, project: Path, home: Path) -> None:
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "config.toml").write_text("[memory]\nmaxResults = 1\n")
    from waymarks.service.planning import settings_for

    assert settings_for(app).budgets.max_results == 12
    app.trust(str(project))
    assert settings_for(app).budgets.max_results == 1


def test_manifest_and_logs_never_hold_content(app: Waymarks, home: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert isinstance(app.pin(SECRET_PIN), Committed)
    assert isinstance(app.remember(SECRET_CLAIM), Committed)
    app.remember("Zorblatt secret claim", classification="local-only")
    plan_request(app, "Quokkaflux database port Zebracorn?", provider="openai")
    manifest = last_manifest(app)
    assert manifest is not None and manifest["entries"]
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    for args in (["manifest"], ["included"], ["excluded"], ["tokens"], ["status"],
                 ["health"], ["privacy"], ["config", "show"]):
        assert main(["--json", *args]) == 0
    printed = capsys.readouterr().out
    logs = "".join(p.read_text() for p in (home / "logs").glob("*.jsonl"))
    for distinctive in ("Zebracorn", "Quokkaflux", "Zorblatt"):
        assert distinctive not in json.dumps(manifest)
        assert distinctive not in logs
        assert distinctive not in printed
    assert '"event": "plan"' in logs


def test_cli_plan_and_sanitize(app: Waymarks, home: Path, project: Path,
                               monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    app.pin("Use tabs")
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["--json", "plan", "--prompt", "format this file", "--provider", "openai"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [m["kind"] for m in data["messages"]] == ["pins", "request"]
    import io

    payload = {"model": "m", "messages": [
        {"role": "user", "content": "token: sk-abcdefghijklmnopqrstuvwxyz123456"},
        {"role": "user", "content": "[ds4:local-only]home address[/ds4:local-only] hi"}]}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(payload)))
    assert main(["--json", "privacy", "sanitize", "--provider", "openai"]) == 0
    out = capsys.readouterr().out
    assert "sk-abcdefghijklmnopqrstuvwxyz123456" not in out and "home address" not in out
    assert json.loads(out)["model"] == "m"


def test_retrieved_turns_and_snippets_have_their_place_and_privacy(app: Waymarks) -> None:
    from waymarks.planner.render import TextBlock
    from waymarks.planner.select import TextInput

    def text(kind: str, item_id: str, body: str, level: str) -> TextInput:
        return TextInput(TextBlock(kind, item_id, body, "STYLE.md",  # type: ignore[arg-type]
                                   classification=level), "fixed reason")

    class Fixed:
        def __init__(self, *items: TextInput) -> None:
            self.items = items

        def candidates(self, app: Waymarks, prompt: str,
                       egress: object = None) -> tuple[TextInput, ...]:
            return self.items

    app.pin("Use tabs")
    plan = plan_request(
        app, "format the file", provider="openai",
        retrieved=Fixed(text("turn", "t1", "earlier: we chose tabs", "normal")),
        snippets=Fixed(text("doc", "doc1", "STYLE.md says tabs", "normal"),
                       text("doc", "doc2", "internal host list", "internal")))
    assert [m.kind for m in plan.messages] == ["pins", "history", "snippets", "request"]
    assert [m.priority for m in plan.messages] == [950, 85, 80, 1000]
    assert "internal host list" not in plan.messages[2].content
    assert {e.id for e in plan.manifest if e.decision == "excluded"} == {"doc2"}


def pi_session(path: Path, cwd: Path) -> None:
    """A Pi session: two early turns, a compaction keeping from the third, a later turn."""
    ts = "2026-01-01T00:00:0{}.000Z"

    def message(entry_id: str, parent: str | None, role: str, text: str, n: int) -> dict:
        return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ts.format(n),
                "message": {"role": role, "content": [{"type": "text", "text": text}]}}

    lines = [
        {"type": "session", "version": 3, "id": "pi-session-1", "timestamp": ts.format(0),
         "cwd": str(cwd)},
        message("a1", None, "user", "We decided the Kafka retention is seven days.", 1),
        message("a2", "a1", "assistant", "Noted: Kafka keeps events for seven days.", 2),
        message("a3", "a2", "user", "Now let us look at the frontend build.", 3),
        {"type": "compaction", "id": "c1", "parentId": "a3", "timestamp": ts.format(4),
         "summary": "Talked about Kafka and the build.", "firstKeptEntryId": "a3",
         "tokensBefore": 1000},
        message("a4", "c1", "user", "The bundle is too big.", 5),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_turns_removed_by_compaction_come_back_when_asked_about(
        make_app, tmp_path: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "pi.jsonl"
    pi_session(path, project)
    app = make_app(session=str(path))
    plan = plan_request(app, "how long is the Kafka retention?")
    assert [m.kind for m in plan.messages] == ["history", "request"]
    history = plan.messages[0].content
    assert "seven days" in history and "a1" in history
    assert "frontend build" not in history  # a3 is still in the live context
    unrelated = plan_request(app, "rename the CSS variables")
    assert [m.kind for m in unrelated.messages] == ["request"]


def test_a_learned_claim_never_takes_the_room_of_the_persons_own_memory() -> None:
    """Under a tight model limit a learned claim (provisional, written by a model) took the
    room first and the person's own personal memory was left out, named as if its own
    budget had run out. The person's memory is chosen first; what the limit leaves out is
    said to be the limit."""
    from waymarks.core.egress import Egress
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.core.tokens import estimate_tokens
    from waymarks.planner.learned import LearnedBlock, render_learned
    from waymarks.planner.render import TextBlock, render_text
    from waymarks.planner.select import TextInput, build_plan

    egress = Egress.to(ProviderPolicy.from_config({}), "ollama")
    personal = TextInput(TextBlock("personal", "tabs", "Use tabs in Python files; never "
                                   "spaces.", "tabs"), "personal index entry")
    learned = LearnedBlock("c1", "preference", "The person prefers spaces in Python files",
                           "/work/p", "user_statement/model", "s1", "2026-01-01", 0.9)
    request = "What indentation do I use for python files?"
    need = estimate_tokens(request) + estimate_tokens(render_text(personal.block, egress))
    claim = estimate_tokens(render_learned(learned, egress))
    assert claim > 1 and need > estimate_tokens(request)
    # room for the person's line or the learned claim, never both
    plan = build_plan(request, [], [], egress=egress, personal=[personal], learned=[learned],
                      model_limit=need + claim - 1)
    assert [m.kind for m in plan.messages] == ["personal", "request"]
    [left_out] = [e for e in plan.manifest if e.decision == "excluded"]
    assert (left_out.id, left_out.kind, left_out.reason) == ("c1", "learned",
                                                             "model limit reached")
    roomy = build_plan(request, [], [], egress=egress, personal=[personal], learned=[learned])
    assert [(m.kind, m.priority) for m in roomy.messages] == [
        ("personal", 88), ("learned", 79), ("request", 1000)]
    tight = build_plan(request, [], [], egress=egress, personal=[personal], learned=[],
                       model_limit=need - 1)
    [left_out] = [e for e in tight.manifest if e.decision == "excluded"]
    assert (left_out.kind, left_out.reason) == ("personal", "model limit reached")


def test_a_learned_claim_never_takes_the_room_of_an_accepted_decision_record() -> None:
    """Seen with `waymarks plan --model-limit 600`: an Accepted ADR saying "The queue broker
    is Kafka" was left out (`model limit reached`) while a provisional learned "The queue
    broker is RabbitMQ" went in, above it: learned claims were chosen before the project's
    engineering docs, which people wrote and accepted (explicit outranks evolved)."""
    from waymarks.core.egress import Egress
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.core.tokens import estimate_tokens
    from waymarks.planner.learned import LearnedBlock, render_learned
    from waymarks.planner.render import TextBlock, render_text
    from waymarks.planner.select import TextInput, build_plan

    egress = Egress.to(ProviderPolicy.from_config({}), "ollama")
    adr = TextInput(TextBlock("doc", "docs/engineering/decisions/ADR-0001.md",
                              "The queue broker is Kafka. We do not use RabbitMQ.",
                              "docs/engineering/decisions/ADR-0001.md", "Accepted"),
                    "docs matched")
    learned = LearnedBlock("c1", "fact", "The queue broker is RabbitMQ", "/work/p",
                           "user_statement/model", "s1", "2026-01-01", 0.9)
    request = "What queue broker do we use?"
    need = estimate_tokens(request) + estimate_tokens(render_text(adr.block, egress))
    claim = estimate_tokens(render_learned(learned, egress))
    plan = build_plan(request, [], [], egress=egress, snippets=[adr], learned=[learned],
                      model_limit=need + claim - 1)
    assert [m.kind for m in plan.messages] == ["snippets", "request"]
    [left_out] = [e for e in plan.manifest if e.decision == "excluded"]
    assert (left_out.id, left_out.kind, left_out.reason) == ("c1", "learned",
                                                             "model limit reached")
    roomy = build_plan(request, [], [], egress=egress, snippets=[adr], learned=[learned])
    kinds = [m.kind for m in roomy.messages]
    assert kinds.index("snippets") < kinds.index("learned")  # after it, and below it
    priority = {m.kind: m.priority for m in roomy.messages}
    assert priority["learned"] < priority["snippets"]


def test_a_plan_reads_the_requests_words_once(app: Waymarks,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner orders memories by the request's words, and the lookup of claims whose
    explicit key the request names read them again (a plan's request tokenised twice),
    when no claim held a key it names, which is every plan of a store without `--key`.
    The lookup reads them only for the claims it found; a named key still leads."""
    from waymarks.planner import memory_order

    app.remember("The deploy job runs at midnight")
    app.remember("Releases go through GitHub Actions.", key="release-pipeline")
    read: list[str] = []
    original = memory_order.request_terms

    def counting(request: str) -> frozenset[str]:
        read.append(request)
        return original(request)

    monkeypatch.setattr(memory_order, "request_terms", counting)
    plan = plan_request(app, "when does the deploy job run?")
    assert "midnight" in str(plan.messages)
    assert read == ["when does the deploy job run?"]
    read.clear()
    plan = plan_request(app, "what is the release-pipeline?")
    assert "GitHub Actions" in str(plan.messages)
    assert read and set(read) == {"what is the release-pipeline?"}


def test_a_plan_in_a_store_without_given_keys_looks_no_key_up(
        app: Waymarks, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plan slugged its request's words into ~50 runs and probed the key index with
    each, for the claims whose explicit key (`--key`) it names, in a store that holds
    none: the key index holds every claim's key, given or derived from its words. One
    probe of the items whose key was given (migration 24) now tells there is none, and
    the answer is kept while the database does not change (04e23b23): the next plan
    probes nothing; a key given later, by another process, is found by the next plan."""
    from waymarks.service import planning

    app.trust(str(project))
    app.remember("The deploy job runs at midnight", scope="project")
    app.remember("Releases go through GitHub Actions.", scope="project")
    slugged: list[str] = []
    original = planning.named_keys

    def counting(prompt: str) -> list[str]:
        slugged.append(prompt)
        return original(prompt)

    monkeypatch.setattr(planning, "named_keys", counting)

    def traced() -> list[str]:
        statements: list[str] = []
        app.projection.db.set_trace_callback(statements.append)
        try:
            plan_request(app, "what is the release-pipeline?")
        finally:
            app.projection.db.set_trace_callback(None)
        return statements

    statements = traced()  # the first plan since the writes
    assert slugged == []
    assert not [s for s in statements if "key IN" in s]
    [probe] = [s for s in statements if "X'226b6579223a'" in s]
    found = " ".join(str(row[-1]) for row in app.projection.db.execute(
        f"EXPLAIN QUERY PLAN {probe}"))
    assert "items_given_key" in found, found
    statements = traced()  # nothing changed since: the answer is kept
    assert slugged == [] and not [s for s in statements if "X'226b6579223a'" in s]
    with Waymarks(home, cwd=str(project)) as other:  # another process gives a key
        other.remember("Releases are signed by the release bot.", scope="project",
                       key="release-pipeline")
    plan = plan_request(app, "what is the release-pipeline?")
    assert slugged == ["what is the release-pipeline?"]
    assert "release bot" in str(plan.messages)


def test_a_plan_matches_no_id_it_matched_before_against_the_made_id_shape(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plan matched each manifest entry's ID (the same fifty pins' IDs, prompt after
    prompt) against the shape of an ID Waymarks makes, to name it as it is in the manifest
    and the log: a regex match per entry, every plan. The answer is kept per ID; it is the
    pattern's (now string methods: no expression compiled), for a value longer than any ID
    too."""
    import re

    from waymarks.core import egress

    for n in range(5):
        app.pin(f"Pinned rule {n}: keep the billing changes small")
    app.remember("The billing service listens on port 8080")
    plan_request(app, "what port does the billing service use?")
    pattern = re.compile(r"[0-9a-f]{1,64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                         r"[0-9a-f]{12}")  # the shape as it was written before
    shape = egress._made_shape
    matched: list[str] = []

    def counting(value: str) -> bool:
        matched.append(value)
        return shape(value)

    monkeypatch.setattr(egress, "_made_shape", counting)
    plan = plan_request(app, "what port does the billing service use?")
    assert [e.kind for e in plan.manifest].count("pin") == 5
    assert matched == []
    uuid = "0173ccec-1111-4222-8333-444455556666"
    for value in (uuid, uuid.upper(), "f" * 64, "f" * 65, "", "abc", "abc-def", uuid + " ",
                  "ＡＢＣ", "0" * 10_000, uuid.replace("-", ""), uuid.replace("-", "0", 1),
                  uuid[:8] + "--" + uuid[10:], "-" * 36, uuid[:-1] + "-", "ab\n", "١٢٣"):
        assert egress.made_id(value) is (pattern.fullmatch(value) is not None), value
        assert egress.made_id(value) is (pattern.fullmatch(value) is not None), value
