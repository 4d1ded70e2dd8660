"""Defects a review of learned claims' aging, privacy and feedback reproduced with the real
CLI and real files; each test failed before its fix."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.evolution.test_legacy_import import _memory, _write
from tests.evolution.test_lifecycle_review import (
    _apply,
    _learned_block,
    _remote_sees_only_normal,
)
from waymarks.core.evolution.legacy import convert
from waymarks.core.evolution.model import ClaimRecord, CorrectRecord, SourceRecord
from waymarks.service.evolution import Evolution

SECRET = "vault-internal-77"


def _manifest(cli: Callable[..., dict], prompt: str) -> list[dict]:
    cli("learn", "on")  # (off, a plan injects no learned claim: see ``_learned_block``)
    plan = cli("plan", "--", prompt)
    return [i for i in plan["manifest"]["entries"] if i.get("kind") == "learned"]


def test_a_legacy_correction_keeps_its_marked_level(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path) -> None:
    """A legacy correction marked ``[ds4:sensitive]`` was sanitized (its markers removed)
    and its level thrown away: the corrected claim took the old claim's ``normal`` and went
    to a provider that may see only ``normal``."""
    _remote_sees_only_normal(home)
    legacy = tmp_path / "legacy"
    _write(legacy, [_memory("m1", "fact", "The vault for staging lives at the usual path",
                            str(project))],
           [{"version": 1, "memoryId": "m1", "type": "correct",
             "createdAt": "2026-12-02T00:00:00Z",
             "content": f"[ds4:sensitive]The staging vault lives at {SECRET} ops path"
                        "[/ds4:sensitive]"}])
    assert cli("evolution", "import", str(legacy))["claims"] == 1
    listed = {c["content"]: c for c in cli("evolution", "list")["claims"]}
    fixed = listed[f"The staging vault lives at {SECRET} ops path"]
    assert fixed["state"] == "provisional"
    prompt = "where does the staging vault live?"
    assert SECRET not in _learned_block(cli, prompt)
    assert fixed["id"] not in [i["id"] for i in _manifest(cli, prompt)
                               if i["decision"] == "included"]
    with Evolution(home) as evo:
        evo.sync()
        row = evo.store.view.claim(fixed["id"])
        assert row is not None and evo.store.source_levels()[row.source_id] == "sensitive"


def test_legacy_corrections_take_the_origins_default_and_keep_a_summarys_level() -> None:
    """Unmarked correction text was sanitized at ``normal`` whatever the origin's
    ``defaultClassification``; a corrected summary's claims named a source with no level
    at all (``legacy-action:N``)."""
    memories = "".join(json.dumps(m) + "\n" for m in [
        _memory("m1", "fact", "The staging port is 8080", "/w/a"),
        _memory("m2", "compaction_summary", "## Decisions\n- Releases are cut on Fridays\n"
                "- Tags are signed\n", "/w/c")])
    fix = {"version": 1, "type": "correct", "createdAt": "2026-12-02T00:00:00Z"}
    actions = "".join(json.dumps(a) + "\n" for a in [
        {**fix, "memoryId": "m1", "content": "The staging port is 8443"},
        {**fix, "memoryId": "m2", "content": "## Decisions\n- Releases are cut on Mondays\n"
                                            "- [ds4:internal]Hotfixes skip the freeze"
                                            "[/ds4:internal]\n"}])
    conversion = convert(memories, actions,
                         lambda origin: "sensitive" if origin == "/w/a" else "normal")
    sources = {r.source_id: r for r in conversion.records if isinstance(r, SourceRecord)}
    [correct] = [r for r in conversion.records if isinstance(r, CorrectRecord)]
    assert sources[correct.source_id].classification == "sensitive"
    added = [r for r in conversion.records if isinstance(r, ClaimRecord)
             and r.evidence.basis == "manual_correction"]
    assert {sources[r.evidence.source_id].classification for r in added} == {"internal"}


def test_claims_the_provider_may_not_receive_do_not_crowd_out_one_it_may(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """Injection took the best 3 learned claims before the privacy check: three the
    provider may not receive left out a fourth it may (not even named in the manifest)."""
    _remote_sees_only_normal(home)
    origin = tmp_path / "a"
    secret = [f"The redis cache server set up uses {x} on the redis cache host"
              for x in ("port 6380", "a 4 GB maxmemory", "TLS with the ops key")]
    for n, text in enumerate(secret):
        said = f"[ds4:sensitive]{text}[/ds4:sensitive]"
        assert _apply(home, origin, said, [{"kind": "fact", "content": text,
                                            "searchTerms": ["redis", "cache", "server",
                                                            "set", "up", f"s{n}"]}]) == "applied"
    plain = "The redis cache server is restarted nightly by cron"
    assert _apply(home, origin, "Remember: redis is restarted nightly", [
        {"kind": "fact", "content": plain, "searchTerms": ["cron"]}]) == "applied"
    recalled = cli("recall", "--", "how is the redis cache server set up?")
    assert plain in json.dumps(recalled)
    prompt = "how is the redis cache server set up?"
    m = _manifest(cli, prompt)
    shown = _learned_block(cli, prompt)
    assert plain in shown and not any(s in shown for s in secret), json.dumps(m)
    decisions = sorted(i["decision"] for i in _manifest(cli, prompt))
    assert decisions == ["included"], decisions


def test_the_planner_includes_at_most_three_learned_claims_of_all_it_is_offered() -> None:
    """Offered every eligible claim (no longer cut to 3 before the privacy check), the
    planner stops once 3 are in: the claims it is offered after them are not listed."""
    from waymarks.core.egress import Egress
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.planner.learned import LearnedBlock
    from waymarks.planner.select import build_plan

    blocks = [LearnedBlock(f"c{n}", "fact", f"The redis cache server {n} runs on port 63{n}",
                           "/w", "user_statement/model", "s1", "2026-12-01", 1.0 - n / 10)
              for n in range(5)]
    egress = Egress.to(ProviderPolicy.from_config({"localProviders": ["ollama"]}), "ollama")
    plan = build_plan("how is the redis cache server set up?", [], [], egress=egress,
                      learned=blocks)
    assert [(e.id, e.decision) for e in plan.manifest if e.kind == "learned"] == [
        ("c0", "included"), ("c1", "included"), ("c2", "included")]


FUTURE = "2999-06-01T00:00:00Z"


def test_a_legacy_claim_dated_in_the_future_takes_the_import_time_and_feedback(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path) -> None:
    """The import took a future ``createdAt`` as it was: ``incorrect`` then changed nothing
    (``older_than_evidence``, exit 0) and the claim was still injected."""
    legacy = tmp_path / "legacy"
    claim = "The redis cache server is restarted nightly by cron"
    _write(legacy, [{**_memory("m1", "fact", claim, str(project)), "createdAt": FUTURE}],
           [{"version": 1, "memoryId": "m1", "type": "pin", "createdAt": FUTURE}])
    imported = cli("evolution", "import", str(legacy))
    assert imported["claims"] == 1
    [row] = cli("evolution", "list")["claims"]
    with Evolution(home) as evo:
        evo.sync()
        batch = evo.store.event(imported["event"])
        assert batch is not None and batch.op == "imported"
        stored = evo.store.view.claim(row["id"])
        assert stored is not None and stored.updated_at != FUTURE
        assert stored.updated_at <= batch.at  # no imported date after the import
    prompt = "when is the redis cache server restarted?"
    assert claim in _learned_block(cli, prompt)
    done = cli("feedback", row["id"], "incorrect")
    assert done["changed"] is True, done
    assert claim not in _learned_block(cli, prompt)


def test_a_persons_accuracy_verdict_outranks_a_future_evidence_date(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    """A claim whose evidence is dated in the future (a home imported before the import
    clamped dates, a clock ahead): ``incorrect`` changed nothing and said so with exit 0,
    as ``unhelpful`` did. Now the person's accuracy verdict applies; a usefulness verdict,
    which the fold still weighs against the evidence date, is refused (exit 2) with the
    cause, and nothing is recorded."""
    from waymarks.core.evolution.model import SCHEMA_VERSION, Evidence, claim_id

    text = "The redis cache server is restarted nightly by cron"
    cid = claim_id(str(project), "fact", text)
    with Evolution(home) as evo, evo.ledger.locked():
        evo._append([ClaimRecord(SCHEMA_VERSION, cid, str(project), "fact", text,
                                 Evidence("user_statement", "model", "s9", FUTURE))])
    ledger = (home / "evolution" / "ledger.jsonl").read_bytes()
    refused = cli("feedback", cid, "unhelpful", expect=2)
    assert refused["code"] == "not_applied" and FUTURE in refused["message"], refused
    assert (home / "evolution" / "ledger.jsonl").read_bytes() == ledger
    assert cli("feedback", cid, "incorrect")["changed"] is True
    [row] = cli("evolution", "list")["claims"]
    assert row["state"] == "conflicted"


def test_the_sqlite_converter_dates_nothing_after_the_import() -> None:
    """The database's reader took future dates as they were, like the JSONL reader."""
    from waymarks.core.evolution.legacy_sqlite import convert_rows

    now = "2026-12-05T00:00:00.000Z"
    data = {"id": "m1", "kind": "fact", "content": "The staging port is 8080",
            "scope": "/w/a", "createdAt": FUTURE, "updatedAt": FUTURE, "layer": "durable",
            "status": "provisional", "feedback": {"accuracy": "accurate"}}
    job = {"kind": "user", "content": "Remember: the deploy window is Tuesday",
           "scope": "/w/a", "createdAt": FUTURE}
    conversion = convert_rows("6", [("m1", "/w/a", "h", json.dumps(data))],
                              [("j1", json.dumps(job), "pending", 0, "")],
                              [("e1", json.dumps({"at": FUTURE, "actor": "user"}))],
                              now=now)
    dates = [getattr(r, "at", None) or getattr(r, "captured_at", None)
             or r.evidence.at for r in conversion.records]  # type: ignore[attr-defined]
    assert len(dates) == 5 and set(dates) == {now}, dates  # source, settled, claim,
    # feedback, the queued job's source
    assert [e.at for e in conversion.history] == [now]


def test_explain_selects_what_injection_includes_and_says_why_the_rest_is_not(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """``evolution explain QUERY`` said "4 candidates, 4 eligible, selected: none" while
    every row said ``selected``: it ranked without a destination, so nothing was selected,
    and injection takes at most 3 of the claims the provider may receive."""
    _remote_sees_only_normal(home)
    origin = tmp_path / "a"
    terms = ["redis", "cache", "server", "set", "up"]
    for x in ("port 6380", "a 4 GB maxmemory", "two replicas", "AOF persistence"):
        text = f"The redis cache server set up uses {x}"
        assert _apply(home, origin, f"Remember: {text}", [
            {"kind": "fact", "content": text, "searchTerms": terms}]) == "applied"
    secret = "The redis cache server set up uses TLS with the ops key"
    assert _apply(home, origin, f"[ds4:sensitive]{secret}[/ds4:sensitive]", [
        {"kind": "fact", "content": secret, "searchTerms": terms}]) == "applied"
    prompt = "how is the redis cache server set up?"
    report = cli("evolution", "explain", *prompt.split())
    verdicts = {row["id"]: row["verdict"] for row in report["scored"]}
    assert len(report["selected"]) == 3, report
    assert sorted(i for i, v in verdicts.items() if v == "selected") == sorted(
        report["selected"])
    assert sorted(verdicts.values()) == [
        "not allowed for this provider", "not selected (injection takes the best 3)",
        "selected", "selected", "selected"], verdicts
    included = [i["id"] for i in _manifest(cli, prompt) if i["decision"] == "included"]
    assert sorted(included) == sorted(report["selected"])
    assert "TLS" not in json.dumps(report)
    last = cli("evolution", "explain")  # the plan's own recall, kept by this process
    assert sorted(last["selected"]) == sorted(included)
    assert sorted(row["verdict"] for row in last["scored"]) == [
        "not selected (injection takes the best 3)", "selected", "selected", "selected"]
