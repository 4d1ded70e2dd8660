"""Pure evolution core: kinds, IDs, the priority table, records, the fold, the output
contract and the conservative-write decision (EVOLUTION items 1-5, 50-51)."""

from __future__ import annotations

import json

import pytest

from waymarks.core.evolution.contract import ContractBreak, ProposedClaim, parse_reply
from waymarks.core.evolution.decide import Target, decide
from waymarks.core.evolution.fold import MemoryEvoView, SourceRow, fold, suppression_key
from waymarks.core.evolution.model import (
    AUTHORITY_REASONS,
    SCHEMA_VERSION,
    ClaimRecord,
    Evidence,
    ForgetRecord,
    RefusalRecord,
    SettledRecord,
    SourceRecord,
    claim_id,
    decode_record,
    encode_record,
    priority,
)
from waymarks.core.evolution.request import build_request, offered

T0 = "2026-12-01T10:00:00.000Z"
T1 = "2026-12-01T11:00:00.000Z"
T2 = "2026-12-01T12:00:00.000Z"


@pytest.mark.parametrize(("basis", "kind", "expected"), [
    (None, "fact", 0), ("bogus", "preference", 0),
    ("summary", "fact", 1), ("summary", "preference", 1), ("summary", "project_state", 1),
    ("user_statement", "fact", 2), ("user_statement", "project_state", 2),
    ("user_statement", "preference", 3), ("user_statement", "decision", 3),
    ("tool_observation", "project_state", 3), ("tool_observation", "fact", 0),
    ("manual_correction", "fact", 4), ("manual_correction", "preference", 4),
])
def test_source_priority_table(basis: str | None, kind: str, expected: int) -> None:
    assert priority(basis, kind) == expected


def test_claim_ids_hash_origin_kind_and_content() -> None:
    a = claim_id("/work/a", "fact", "The port is 8080")
    assert len(a) == 24 and int(a, 16) >= 0
    assert a != claim_id("/work/b", "fact", "The port is 8080")  # two origins, two IDs
    assert a != claim_id("/work/a", "decision", "The port is 8080")
    # colon paths cannot collide by moving the separator
    assert claim_id("a:b", "fact", "c") != claim_id("a", "fact", "b:c")
    assert a == claim_id("/work/a", "fact", "The port is 8080")


def _source(origin: str = "/w/a", basis: str = "user_statement", at: str = T1,
            sid: str = "s1", text: str = "we use postgres for the billing service") -> SourceRow:
    return SourceRow(sid, origin, "statement", basis, text, "normal", at, "sess", 1)


def _claim(content: str, *, origin: str = "/w/a", kind: str = "fact", at: str = T0,
           basis: str = "user_statement", state: str = "provisional") -> ClaimRecord:
    return ClaimRecord(SCHEMA_VERSION, claim_id(origin, kind, content), origin, kind,  # type: ignore[arg-type]
                       content, Evidence(basis, "model", "s0", at), state)  # type: ignore[arg-type]


def test_records_round_trip_and_unknown_ones_are_kept_out() -> None:
    record = _claim("we use postgres")
    data = encode_record(record)
    assert data["op"] == "claim" and data["schemaVersion"] == 1 and "searchTerms" not in data
    assert decode_record(data) == record
    assert decode_record({**data, "schemaVersion": 2}) is None
    assert decode_record({**data, "op": "teleport"}) is None
    assert decode_record({**data, "kind": "opinion"}) is None
    assert decode_record("not a dict") is None


def test_fold_is_first_wins_supersedes_and_suppresses() -> None:
    view = MemoryEvoView()
    src = SourceRecord(SCHEMA_VERSION, "s1", "/w/a", "statement", "user_statement", "x",
                       "normal", T0)
    assert fold(view, src, 1).applied
    assert fold(view, src, 2).reason == "duplicate"
    old = _claim("billing uses mysql")
    assert fold(view, old, 3).applied
    new = ClaimRecord(SCHEMA_VERSION, claim_id("/w/a", "fact", "billing uses postgres"),
                      "/w/a", "fact", "billing uses postgres",
                      Evidence("user_statement", "model", "s1", T1), replaces=old.id)
    assert fold(view, new, 4).applied
    assert view.claims[old.id].state == "superseded"
    assert view.claims[old.id].superseded_by == new.id
    # a replacement naming a claim of another origin does not take effect
    other = _claim("billing uses sqlite", origin="/w/b")
    fold(view, other, 5)
    sneaky = ClaimRecord(SCHEMA_VERSION, claim_id("/w/a", "fact", "billing uses oracle"),
                         "/w/a", "fact", "billing uses oracle",
                         Evidence("user_statement", "model", "s1", T1), replaces=other.id)
    assert fold(view, sneaky, 6).reason == "replacement_ignored"
    assert view.claims[other.id].state == "provisional"
    assert fold(view, SettledRecord(SCHEMA_VERSION, "s1", "applied", T1), 7).applied
    assert fold(view, SettledRecord(SCHEMA_VERSION, "s1", "unknown", T2), 8).reason == \
        "already_settled"
    assert view.sources["s1"].settled == "applied"
    assert fold(view, ForgetRecord(SCHEMA_VERSION, new.id, T2), 9).applied
    assert view.claims[new.id].state == "forgotten"
    assert suppression_key("/w/a", "billing uses postgres") in view.suppressions
    again = ClaimRecord(SCHEMA_VERSION, claim_id("/w/a", "decision", "billing uses postgres"),
                        "/w/a", "decision", "billing uses postgres",
                        Evidence("user_statement", "model", "s9", T2))
    assert fold(view, again, 10).reason == "forgotten"


# -- output contract ----------------------------------------------------------------------

def _reply(*claims: dict[str, object]) -> str:
    return json.dumps({"claims": list(claims)})


def test_contract_accepts_the_documented_shape_and_one_fence() -> None:
    text = _reply({"kind": "preference", "content": "Prefers tabs over spaces",
                   "searchTerms": ["indentation", "tabs"]})
    assert parse_reply(text) == [ProposedClaim("preference", "Prefers tabs over spaces", None,
                                               ("indentation", "tabs"))]
    assert parse_reply(f"```json\n{text}\n```") == parse_reply(text)
    assert parse_reply(f"```\n{text}\n```") == parse_reply(text)
    assert parse_reply(_reply()) == []
    assert isinstance(parse_reply(f"```json\n```json\n{text}\n```\n```"), ContractBreak)


@pytest.mark.parametrize(("reply", "rule"), [
    ("not json", "not_json"),
    ("[]", "not_an_object"),
    (json.dumps({"claims": [], "note": "x"}), "unknown_field"),
    (json.dumps({"claims": [], "confidence": 0.9}), "host_only_field"),
    (_reply({"kind": "fact", "content": "port is 8080", "evidence": {"basis": "manual"}}),
     "host_only_field"),
    (_reply({"kind": "fact", "content": "port is 8080", "verification": "done"}),
     "host_only_field"),
    (_reply({"kind": "fact", "content": "port is 8080", "feedback": "useful"}),
     "host_only_field"),
    (_reply({"kind": "opinion", "content": "port is 8080"}), "bad_kind"),
    (_reply({"kind": "fact", "content": "abc"}), "content_length"),
    (_reply({"kind": "fact", "content": "x" * 801}), "content_length"),
    (_reply({"kind": "fact", "content": "port is 8080", "searchTerms": ["x"]}),
     "bad_search_terms"),
    (_reply({"kind": "fact", "content": "port is 8080", "searchTerms": ["ab"] * 9}),
     "bad_search_terms"),
    (_reply({"kind": "fact", "content": "port is 8080", "replaces": 7}), "bad_replaces"),
    (_reply(*[{"kind": "fact", "content": f"claim number {i}"} for i in range(17)]),
     "too_many_claims"),
    ("{" + " " * 64_001 + "}", "reply_too_large"),
])
def test_contract_rejects_the_whole_batch(reply: str, rule: str) -> None:
    assert parse_reply(reply) == ContractBreak(rule)


@pytest.mark.parametrize("replaces", [
    "key=Internal-Gw-Secret-7781", "ghp_" + "a" * 36, "a" * 23, "a" * 25, "g" * 24,
    "the deploy target record", "0" * 8 + "-0000-4000-8000-" + "0" * 11])
def test_replaces_must_have_the_shape_of_a_record_id(replaces: str) -> None:
    """A review: any non-empty text was taken as ``replaces`` and then recorded verbatim as
    a refusal's target in the append-only ledger (a route's key the model echoed)."""
    reply = _reply({"kind": "fact", "content": "port is 8080", "replaces": replaces})
    assert parse_reply(reply) == ContractBreak("bad_replaces")


def test_replaces_takes_a_claim_id_in_either_case_and_an_item_uuid() -> None:
    uuid = "0a1b2c3d-0000-4000-8000-00000000002a"
    for given, kept in ((" " + "7933447A" * 3 + " ", "7933447a" * 3), (uuid, uuid)):
        reply = _reply({"kind": "fact", "content": "port is 8080", "replaces": given})
        assert parse_reply(reply) == [ProposedClaim("fact", "port is 8080", kept, ())]


def test_one_malformed_item_rejects_the_batch() -> None:
    good = {"kind": "fact", "content": "the port is 8080"}
    assert parse_reply(_reply(good, {"kind": "fact"})) == ContractBreak("bad_content")


def test_content_length_counts_utf16_units() -> None:
    assert parse_reply(_reply({"kind": "fact", "content": "😀😀"})) != \
        ContractBreak("content_length")  # 4 units
    assert parse_reply(_reply({"kind": "fact", "content": "😀" * 401})) == \
        ContractBreak("content_length")


def test_claims_are_stored_as_one_plain_line() -> None:
    """A model's claim never carries a terminal escape, a line break or an invisible
    character into the ledger: controls become spaces, format characters go, and a claim
    that was nothing else is too short."""
    assert parse_reply(_reply({"kind": "fact", "content": "The \x1b[31mport is\n8080\u202e"})
                       ) == [ProposedClaim("fact", "The [31mport is 8080", None, ())]
    assert parse_reply(_reply({"kind": "fact", "content": "\x1b\x1b\u200b\u202e\x07"})
                       ) == ContractBreak("content_length")
    assert parse_reply(_reply({"kind": "fact", "content": "the port is 8080",
                               "searchTerms": ["\u202ex\x07"]})
                       ) == ContractBreak("bad_search_terms")
    assert parse_reply(_reply({"kind": "fact", "content": "the port is 8080",
                               "searchTerms": ["po\u200brt", "a\tb"]})
                       ) == [ProposedClaim("fact", "the port is 8080", None, ("port", "a b"))]


# -- conservative writes ------------------------------------------------------------------

class _Lookup:
    def __init__(self, targets: dict[str, Target], existing: set[str] | None = None,
                 suppressed: set[str] | None = None) -> None:
        self.targets, self.existing = targets, existing or set()
        self.suppressions = suppressed or set()

    def target(self, record_id: str) -> Target | None:
        return self.targets.get(record_id)

    def exists(self, claim_id: str) -> bool:
        return claim_id in self.existing

    def forgotten(self, origin: str, content: str) -> bool:
        return suppression_key(origin, content) in self.suppressions

    def disputed(self, origin: str, content: str) -> bool:
        return False


def _evolved(origin: str = "/w/a", kind: str = "fact", at: str = T0,
             basis: str = "user_statement", state: str = "provisional") -> Target:
    return Target("evolved", origin, kind, state, at, basis)


@pytest.mark.parametrize(("target", "in_offer", "reason"), [
    (Target("pin", "/w/a", "pin", "active", T0), False, "pinned"),
    (Target("memory", "/w/a", "memory", "active", T0), False, "person_confirmed"),
    (_evolved(origin="/w/b"), False, "cross_origin"),
    (_evolved(at=T2), False, "newer"),
    (_evolved(), False, "not_mentioned"),
    (None, False, "not_mentioned"),
    (_evolved(state="superseded"), True, "not_active"),
    (_evolved(kind="decision"), True, "kind_change"),
])
def test_refused_replacements_change_nothing_and_are_recorded(
        target: Target | None, in_offer: bool, reason: str) -> None:
    proposal = ProposedClaim("fact", "billing uses postgres now", "t" * 24)
    lookup = _Lookup({"t" * 24: target} if target else {})
    decision = decide(_source(), [proposal], frozenset({"t" * 24} if in_offer else ()),
                      lookup, T2)
    assert reason in AUTHORITY_REASONS
    assert decision.code == reason and decision.written == 0 and decision.refused == 1
    assert decision.settles is False  # a paused job is not settled
    [record] = decision.records
    # a record the store knows is named; an ID of no record is not stored: the refusal
    # names the claim refused (the model's text is never a target)
    named = "t" * 24 if target else claim_id("/w/a", "fact", proposal.content)
    assert record.reason == reason and record.target == named  # type: ignore[union-attr]


def test_allowed_replacement_and_host_assigned_evidence() -> None:
    proposal = ProposedClaim("fact", "billing uses postgres now", "t" * 24, ("db",))
    decision = decide(_source(), [proposal], frozenset({"t" * 24}),
                      _Lookup({"t" * 24: _evolved()}), T2)
    assert decision.code == "applied" and decision.written == 1
    [record] = decision.records
    assert isinstance(record, ClaimRecord)
    assert record.state == "provisional" and record.replaces == "t" * 24
    assert record.evidence == Evidence("user_statement", "model", "s1", T1)
    assert record.search_terms == ("db",)


def test_weaker_replacement_is_quarantined() -> None:
    proposal = ProposedClaim("preference", "prefers spaces to tabs", "t" * 24)
    target = _evolved(kind="preference")  # a user statement of a preference: priority 3
    decision = decide(_source(basis="summary"), [proposal], frozenset({"t" * 24}),
                      _Lookup({"t" * 24: target}), T2)
    # nothing learned: the reply settles, but not as "applied"
    assert decision.code == "refused_only" and decision.written == 0
    assert decision.refused == 1 and decision.settles
    refusal, quarantined = decision.records
    assert refusal.reason == "weaker"  # type: ignore[union-attr]
    assert isinstance(quarantined, ClaimRecord)
    assert quarantined.state == "conflicted" and quarantined.replaces is None
    assert quarantined.conflicts_with == "t" * 24


def test_a_reply_whose_only_claim_was_forgotten_settles_refused_only() -> None:
    gone = ProposedClaim("fact", "forgotten content here")
    lookup = _Lookup({}, suppressed={suppression_key("/w/a", gone.content)})
    decision = decide(_source(), [gone], frozenset(), lookup, T2)
    assert (decision.code, decision.written, decision.refused, decision.settles) == (
        "refused_only", 0, 1, True)
    kept = ProposedClaim("fact", "billing uses postgres")
    decision = decide(_source(), [gone, kept], frozenset(), lookup, T2)
    assert (decision.code, decision.written) == ("applied", 1)
    assert decide(_source(), [], frozenset(), lookup, T2).code == "no_change"


def test_duplicates_secrets_and_forgotten_content_are_not_written() -> None:
    known = ProposedClaim("fact", "billing uses postgres")
    dup_target = [ProposedClaim("fact", f"billing uses db {i}", "t" * 24) for i in (1, 2)]
    secret = ProposedClaim("fact", "the key is AKIAIOSFODNN7EXAMPLE")
    gone = ProposedClaim("fact", "forgotten content here")
    lookup = _Lookup({"t" * 24: _evolved()}, {claim_id("/w/a", "fact", known.content)},
                     {suppression_key("/w/a", gone.content)})
    decision = decide(_source(), [known, *dup_target, secret, gone], frozenset({"t" * 24}),
                      lookup, T2)
    # an authority stop changes nothing: the acceptable first claim is not written either,
    # only the refusals are recorded, and the source is not settled (its job pauses)
    reasons = [getattr(r, "reason", None) for r in decision.records]
    assert reasons == ["duplicate_target", "still_redacted", "forgotten"]
    assert all(isinstance(r, RefusalRecord) for r in decision.records)
    assert decision.written == 0 and decision.code == "duplicate_target"
    assert decision.settles is False


# -- the request --------------------------------------------------------------------------

def test_request_is_sanitized_bounded_and_offers_only_mentioned_same_origin_claims() -> None:
    from waymarks.core.evolution.fold import ClaimRow

    def row(content: str, *, origin: str = "/w/a", at: str = T0, i: int = 0) -> ClaimRow:
        return ClaimRow(claim_id(origin, "fact", content), origin, "fact", content,
                        "provisional", "user_statement", "model", "s0", at, i)

    text = ("billing service database is postgres; token ghp_" + "a" * 36 + " and "
            "[ds4:local-only]secret plan[/ds4:local-only] " + "x" * 40_000)
    source = _source(text=text)
    claims = [row(f"unrelated claim about gardening {i}", i=i) for i in range(40)]
    claims += [row("the billing service database is mysql", at="2026-01-01T00:00:00.000Z"),
               row("billing service database", origin="/w/b"),
               row("billing service database is sqlite", at=T2)]
    chosen = offered(source, claims)
    assert [c.content for c in chosen] == ["the billing service database is mysql"]
    request = build_request(source, [(c, "normal") for c in chosen])
    assert request is not None and request.classification == "normal"
    assert "ghp_" + "a" * 36 not in request.prompt and "[REDACTED:" in request.prompt
    assert "secret plan" not in request.prompt
    assert len(request.prompt.encode()) < 34_000
    payload = json.loads(request.prompt.split("\n", 1)[1])
    assert payload["records"][0]["id"] == chosen[0].id
    assert build_request(SourceRow("s2", "/w/a", "statement", "user_statement", "x" * 9,
                                   "local-only", T1, "sess", 2), []) is None


def test_articles_and_copulas_shared_with_a_source_are_no_mention() -> None:
    """A claim was offered (and so confirmed, its aging reset) when it shared only "the"
    and "is" with a source: every short "The X is Y" claim of the directory was "mentioned"
    by "the billing database is MySQL 8", and with 32 of them the cap left out the billing
    claim that source corrects, so both versions stayed in effect."""
    from waymarks.core.evolution.fold import ClaimRow

    def row(content: str, second: int) -> ClaimRow:
        return ClaimRow(claim_id("/w/a", "fact", content), "/w/a", "fact", content,
                        "provisional", "user_statement", "model", "s0",
                        f"2026-01-01T00:00:{second:02d}.000Z", second)

    billing = row("The billing database is MySQL 5", 0)
    tools = [row(f"The {name} is {value}", 1 + i) for i, (name, value) in enumerate(
        (n, v) for n in ("cache", "broker", "registry", "linter", "formatter", "bundler",
                         "router", "scheduler") for v in ("Redis", "Kafka", "Quay", "Ruff"))]
    source = _source(text="Correction: the billing database is MySQL 8")
    assert offered(source, [billing, *tools]) == [billing]


def test_a_folded_level_is_admitted_only_when_every_level_below_it_is() -> None:
    from waymarks.core.egress import Egress
    from waymarks.core.privacy import ProviderPolicy

    gappy = Egress.to(ProviderPolicy.from_config(
        {"remoteProviders": {"openai": ["normal", "sensitive"]}}), "openai")
    assert gappy.admits("sensitive") and not gappy.admits_all_up_to("sensitive")
    assert gappy.admits_all_up_to("normal") and not gappy.admits_all_up_to("not-a-level")


def test_a_reply_holding_half_a_surrogate_pair_breaks_the_contract() -> None:
    """Raw or escaped inside a string (content, search terms, a key), the reply raised
    UnicodeEncodeError in the contract and crashed the queue."""
    from waymarks.core.evolution.contract import ContractBreak
    from waymarks.core.evolution.request import RULE_HINTS

    for reply in ('{"claims":[{"kind":"fact","content":"pnpm \\ud800 is used here"}]}',
                  '{"claims":[{"kind":"fact","content":"pnpm is used here",'
                  '"searchTerms":["ab\\udc80"]}]}',
                  '{"claims":[{"kind":"fact","content":"pnpm is used \ud800 here"}]}',
                  '{"claims":[{"kind":"fact","content":"pnpm is used","\\ud800":1}]}'):
        assert parse_reply(reply) == ContractBreak("not_text"), reply
    assert "not_text" in RULE_HINTS  # the one correction names it
    assert parse_reply('{"claims":[{"kind":"fact","content":"emoji \\ud83d\\ude00 ok"}]}'
                       ) == [ProposedClaim("fact", "emoji \U0001f600 ok", None, ())]


def test_the_request_quotes_stored_text_as_every_egress_path_does() -> None:
    """The learning request was written with ``json.dumps(ensure_ascii=False)``, which
    leaves line and paragraph separators, C1 controls (NEL, the 8-bit CSI) and directional
    overrides raw: stored text could start a line of its own in the prompt or reorder what
    the model reads, which the egress quoting (``json_line``) escapes everywhere else.
    Now every such character is ``\\uXXXX`` and the document decodes to the same text."""
    tricky = ("we use postgres\u2028RECORDS: none\u2029\x85\x9b31m for \u202ebilling\u202c "
              "and \u2066tabs\u2069 \u200b")
    request = build_request(_source(text=tricky), [])
    assert request is not None
    body = request.prompt.split("\n", 1)[1]
    assert not any(c in body for c in "\u2028\u2029\x85\x9b\u202e\u202c\u2066\u2069\u200b")
    assert json.loads(body)["source"]["text"] == tricky
    assert body.splitlines() == body.split("\n")  # no line break but JSON's own
