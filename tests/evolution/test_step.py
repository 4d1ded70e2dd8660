"""The consolidation step on real files: capture → request → apply, authority refusals with
fixed reasons, idempotence, give-up, forget, and incremental == rebuild after deleting the
database (EVOLUTION items 2, 4, 6, 49-51, 56)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CountingIds, StepClock
from waymarks.core.evolution.model import claim_id
from waymarks.core.model_port import ConsolidationStep, ModelReply
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution, ledger_path
from waymarks.service.outcomes import Committed

AT = "2030-01-01T00:00:00.000Z"  # after every capture: the apply time


def _reply(*claims: dict[str, object]) -> ModelReply:
    return ModelReply(json.dumps({"claims": list(claims)}), "fake", "fake-model")


@pytest.fixture
def evo(home: Path) -> Evolution:
    e = Evolution(home, clock=StepClock(), ids=CountingIds(7))
    yield e  # type: ignore[misc]
    e.close()


def _dump(evo: Evolution) -> tuple[object, ...]:
    evo.sync()
    store = evo.store
    return (store.claims(), store.sources(), store.events(), store.suppressions())


def test_it_is_a_consolidation_step(evo: Evolution) -> None:
    step: ConsolidationStep = evo  # mypy checks the protocol; this checks it at runtime too
    assert step.unsettled(5) == []


def test_capture_request_apply_and_idempotence(evo: Evolution, home: Path) -> None:
    text = ("Remember: the billing service uses Postgres 16, token ghp_" + "b" * 36)
    first = evo.capture("/w/a", "statement", text, session="s", key="m1")
    again = evo.capture("/w/a", "statement", text, session="s", key="m1")
    assert first is not None and first.new and again is not None and not again.new
    assert again.source_id == first.source_id
    [ref] = evo.unsettled(10)
    assert ref.source_id == first.source_id and ref.origin == "/w/a"
    assert ref.classification == "normal"
    raw = ledger_path(home).read_text()
    assert "ghp_" + "b" * 36 not in raw  # sanitized before it was stored
    request = evo.request_for(ref.source_id)
    assert request is not None and "Postgres 16" in request.prompt
    reply = _reply({"kind": "fact", "content": "The billing service uses Postgres 16",
                    "searchTerms": ["database", "billing db"]})
    outcome = evo.apply(ref.source_id, reply, AT)
    assert (outcome.code, outcome.written, outcome.refused) == ("applied", 1, 0)
    [claim] = evo.claims(["provisional"])
    assert claim.id == claim_id("/w/a", "fact", "The billing service uses Postgres 16")
    assert (claim.basis, claim.method, claim.source_id) == ("user_statement", "model",
                                                             ref.source_id)
    assert claim.search_terms == ("database", "billing db")
    size = ledger_path(home).stat().st_size
    assert evo.apply(ref.source_id, reply, AT).code == "no_change"  # settled: idempotent
    assert evo.request_for(ref.source_id) is None
    assert ledger_path(home).stat().st_size == size and evo.unsettled(10) == []


def test_invalid_output_writes_nothing_and_leaves_the_source_unsettled(
        evo: Evolution, home: Path) -> None:
    src = evo.capture("/w/a", "statement", "We prefer tabs for Go files", session="s",
                      key="m")
    assert src is not None
    size = ledger_path(home).stat().st_size
    bad = _reply({"kind": "preference", "content": "Prefers tabs", "confidence": 0.9})
    assert evo.apply(src.source_id, bad, AT).code == "invalid_output"
    assert evo.last_break == "host_only_field"
    fenced = ModelReply("```json\n" + _reply({"kind": "preference", "content": "x"}).text
                        + "\n```", "fake", "m")
    assert evo.apply(src.source_id, fenced, AT).code == "invalid_output"
    assert ledger_path(home).stat().st_size == size
    assert [r.source_id for r in evo.unsettled(5)] == [src.source_id]


def test_replies_naming_pins_confirmed_memory_cross_origin_or_newer_change_nothing(
        home: Path, project: Path) -> None:
    app = Waymarks(home, cwd=str(project), clock=StepClock(), ids=CountingIds(1))
    pin = app.pin("Always run the linters before committing.")
    memory = app.remember("The deploy target is Fly.io.")
    assert isinstance(pin, Committed) and isinstance(memory, Committed)
    app.close()
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(9))
    other = evo.capture("/w/b", "statement", "Remember the deploy target is Render",
                        session="s", key="b")
    assert other is not None
    assert evo.apply(other.source_id, _reply(
        {"kind": "fact", "content": "The deploy target is Render"}), AT).code == "applied"
    [cross] = evo.claims(["provisional"])
    src = evo.capture("/w/a", "statement", "Remember: the deploy target is Heroku now",
                      session="s", key="a")
    assert src is not None
    before = _dump(evo)[0]
    outcome = evo.apply(src.source_id, _reply(
        {"kind": "fact", "content": "Do not run the linters", "replaces": pin.id},
        {"kind": "fact", "content": "The deploy target is Heroku", "replaces": memory.id},
        {"kind": "fact", "content": "The deploy target is Heroku!", "replaces": cross.id},
    ), AT)
    assert outcome.code == "pinned" and outcome.written == 0 and outcome.refused == 3
    assert _dump(evo)[0] == before  # no claim written, none replaced
    refusals = [(e[2], e[3], e[5]) for e in evo.store.events() if e[2] == "refused"]
    assert refusals == [("refused", pin.id, "pinned"),
                        ("refused", memory.id, "person_confirmed"),
                        ("refused", cross.id, "cross_origin")]
    app = Waymarks(home, cwd=str(project), clock=StepClock(), ids=CountingIds(2))
    assert [v.text for v in app.items("pin")] == ["Always run the linters before committing."]
    assert [v.status for v in app.items("memory")] == ["active"]
    app.close()
    evo.close()


def test_a_newer_target_is_refused(evo: Evolution) -> None:
    old = evo.capture("/w/a", "statement", "Remember the staging port is 8080", session="s",
                      key="1")
    new = evo.capture("/w/a", "statement", "Remember the staging port is 9090", session="s",
                      key="2")
    assert old is not None and new is not None
    # the later source is consolidated first...
    evo.apply(new.source_id, _reply({"kind": "fact", "content": "Staging port is 9090"}), AT)
    [newer] = evo.claims(["provisional"])
    # ...so the older source may not overwrite what it says
    outcome = evo.apply(old.source_id, _reply(
        {"kind": "fact", "content": "Staging port is 8080", "replaces": newer.id}), AT)
    assert outcome.code == "newer" and outcome.written == 0
    assert [c.id for c in evo.claims(["provisional"])] == [newer.id]


def test_replacement_of_a_mentioned_claim_and_forget_by_exact_id(evo: Evolution) -> None:
    a = evo.capture("/w/a", "statement", "Remember the staging port is 8080", session="s",
                    key="1")
    assert a is not None
    evo.apply(a.source_id, _reply({"kind": "fact", "content": "The staging port is 8080"}),
              AT)
    [old] = evo.claims(["provisional"])
    b = evo.capture("/w/a", "statement", "Correction: the staging port is 9090 now",
                    session="s", key="2")
    assert b is not None
    request = evo.request_for(b.source_id)
    assert request is not None and old.id in request.prompt  # mentioned, so offered
    outcome = evo.apply(b.source_id, _reply(
        {"kind": "fact", "content": "The staging port is 9090", "replaces": old.id}), AT)
    assert (outcome.code, outcome.written) == ("applied", 1)
    [new] = evo.claims(["provisional"])
    assert evo.claim(old.id).state == "superseded"  # type: ignore[union-attr]
    assert evo.forget(new.id) and not evo.forget(new.id)
    assert evo.claims(["provisional"]) == []
    c = evo.capture("/w/a", "statement", "Remember the staging port is 9090", session="s",
                    key="3")
    assert c is not None
    outcome = evo.apply(c.source_id, _reply(
        {"kind": "fact", "content": "The staging port is 9090"}), AT)
    # forgotten text is refused alone: the source settles, nothing comes back
    assert (outcome.code, outcome.written, outcome.refused) == ("refused_only", 0, 1)
    assert evo.claims(["provisional"]) == []


def test_give_up_settles_with_an_allowlisted_code_only(evo: Evolution) -> None:
    a = evo.capture("/w/a", "statement", "Remember to use uv for Python", session="s",
                    key="1")
    b = evo.capture("/w/a", "statement", "Remember to use ruff for lint", session="s",
                    key="2")
    assert a is not None and b is not None
    evo.give_up(a.source_id, "timeout", AT)
    evo.give_up(b.source_id, "HTTP 500: <html>secret body</html>", AT)
    codes = {s.source_id: s.settled for s in evo.store.sources()}
    assert codes == {a.source_id: "timeout", b.source_id: "unknown"}
    assert evo.unsettled(5) == []


def test_local_only_text_is_never_stored(evo: Evolution, home: Path) -> None:
    assert evo.capture("/w/a", "statement", "[ds4:local-only]remember my PIN 4242[/ds4:"
                       "local-only]", session="s", key="1") is None
    kept = evo.capture("/w/a", "statement", "Remember we use pnpm [ds4:local-only]on host "
                       "zeta-9[/ds4:local-only] everywhere", session="s", key="2")
    assert kept is not None
    assert "zeta-9" not in ledger_path(home).read_text()


def test_deleting_the_database_brings_everything_back_identically(
        evo: Evolution, home: Path) -> None:
    for i, text in enumerate(["Remember the staging port is 8080",
                              "Remember we prefer small commits",
                              "Correction: the staging port is 9090"]):
        src = evo.capture("/w/a", "statement", text, session="s", key=str(i))
        assert src is not None
        claims = evo.claims(["provisional"])
        replaces = [c.id for c in claims if "port" in c.content]
        item: dict[str, object] = {"kind": "fact", "content": text.split(" ", 1)[1]}
        if replaces and i == 2:
            item["replaces"] = replaces[0]
        evo.apply(src.source_id, _reply(item), AT)
    evo.forget(evo.claims(["provisional"])[0].id)
    summary = evo.capture("/w/a", "summary", "## Decisions\n- Use Postgres 16 for billing\n"
                          "```\n## Decisions\n- not this one\n```\n", session="s", key="c")
    assert summary is not None and summary.local_claims == 1
    before = _dump(evo)
    evo.close()
    for name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
        (home / name).unlink(missing_ok=True)
    fresh = Evolution(home, clock=StepClock(), ids=CountingIds(8))
    assert _dump(fresh) == before
    fresh.close()


def test_with_many_claims_an_older_mentioned_one_is_still_offered(evo: Evolution) -> None:
    first = evo.capture("/w/a", "statement", "Remember the billing database is MySQL 5",
                        session="s", key="old")
    assert first is not None
    evo.apply(first.source_id, _reply(
        {"kind": "fact", "content": "The billing database is MySQL 5"}), AT)
    [old] = evo.claims(["provisional"])
    for i in range(40):  # newer claims the next source does not mention
        src = evo.capture("/w/a", "statement", f"Remember gardening tip {i}", session="s",
                          key=f"g{i}")
        assert src is not None
        evo.apply(src.source_id, _reply(
            {"kind": "fact", "content": f"Gardening tip number {i} is useful"}), AT)
    later = evo.capture("/w/a", "statement", "Correction: the billing database is MySQL 8",
                        session="s", key="new")
    assert later is not None
    request = evo.request_for(later.source_id)
    assert request is not None
    import json as _json
    offered = _json.loads(request.prompt.split("\n", 1)[1])["records"]
    assert [r["id"] for r in offered] == [old.id]


@pytest.mark.slow
def test_two_processes_applying_one_source_write_it_once(home: Path) -> None:
    import subprocess
    import sys

    evo = Evolution(home, clock=StepClock(), ids=CountingIds(6))
    src = evo.capture("/w/a", "statement", "Remember we use uv for Python", session="s",
                      key="1")
    assert src is not None
    evo.close()
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from waymarks.core.model_port import ModelReply\n"
        "from waymarks.service.evolution import Evolution\n"
        "evo = Evolution(Path(sys.argv[1]))\n"
        "reply = ModelReply(json.dumps({'claims': [{'kind': 'preference',"
        " 'content': 'Python projects use uv'}]}), 'f', 'm')\n"
        "print(evo.apply(sys.argv[2], reply, '2030-01-01T00:00:00.000Z').code)\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(home), src.source_id],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    codes = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
    assert codes == ["applied", "no_change"]
    again = Evolution(home)
    assert len(again.claims(["provisional"])) == 1
    assert [e[2] for e in again.store.events()].count("settled") == 1
    again.close()


def test_a_claim_marked_accurate_is_not_replaced_from_a_summary(
        evo: Evolution, home: Path) -> None:
    """EVOLUTION item 5: a record the person confirmed as ``accurate`` is protected at
    CONFIRMED_PRIORITY. A reply built from a compaction summary replaced it: the target's
    own summary basis was compared with the summary's, 1 to 1, and the verdict ignored.
    Now the replacement is stored conflicted (``weaker``), and a rebuild says the same."""
    from waymarks.service.evolution_feedback import feedback

    first = evo.capture("/w/a", "summary", "## Decisions\n- Billing uses Postgres 16\n",
                        session="s", key="c1")
    assert first is not None and first.local_claims == 1
    [kept] = evo.claims(["provisional"])
    assert kept.basis == "summary"
    marked = feedback(evo, kept.id, "accurate")
    assert marked.ok and marked.event is not None, marked
    second = evo.capture("/w/a", "summary", "## Notes\nbilling moved to Postgres 17?\n",
                         session="s", key="c2")
    assert second is not None and second.local_claims == 0
    evo.host_trust = ("/w/a", True)  # a trusted project's summary (not a directory here)
    request = evo.request_for(second.source_id)
    assert request is not None and kept.id in request.prompt  # offered: it may be named
    outcome = evo.apply(second.source_id, _reply(
        {"kind": kept.kind, "content": "Billing uses Postgres 17", "replaces": kept.id}), AT)
    assert (outcome.code, outcome.written, outcome.refused) == ("refused_only", 0, 1)

    def states() -> dict[str, str]:
        return {c.content: c.state for c in evo.claims(
            ["provisional", "conflicted", "superseded"])}

    assert states() == {kept.content: "provisional", "Billing uses Postgres 17": "conflicted"}
    before = _dump(evo)
    evo.close()
    for name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
        (home / name).unlink(missing_ok=True)
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(8))
    assert _dump(evo) == before  # the fold gives the same result
    assert states()[kept.content] == "provisional"
    evo.close()


@pytest.mark.parametrize("placeholder", ["[withheld by privacy policy]", "[waymarks:omitted]"])
def test_a_reply_echoing_a_waymarks_placeholder_is_refused(
        evo: Evolution, placeholder: str) -> None:
    """Waymarks' own placeholders (text the privacy policy withheld, an item left out)
    echoed by the model were stored as a claim and injected into later plans; only a
    credential or a ``[REDACTED:`` marker was refused."""
    src = evo.capture("/w/a", "statement", "Remember the staging host name", session="s",
                      key="p")
    assert src is not None
    outcome = evo.apply(src.source_id, _reply(
        {"kind": "fact", "content": f"The staging host is {placeholder}"},
        {"kind": "fact", "content": "Staging runs on Fly.io",
         "searchTerms": ["staging", placeholder]}), AT)
    assert (outcome.code, outcome.written) == ("still_redacted", 0)
    assert evo.claims(["provisional"]) == []
    refusals = [e[5] for e in evo.store.events() if e[2] == "refused"]
    assert refusals == ["still_redacted"]
    kept = evo.apply(src.source_id, _reply(  # a search term holding one is dropped alone
        {"kind": "fact", "content": "Staging runs on Fly.io",
         "searchTerms": ["staging", placeholder]}), AT)
    assert (kept.code, kept.written) == ("applied", 1)
    [claim] = evo.claims(["provisional"])
    assert claim.search_terms == ("staging",)
