"""The reviewed defects of the write-time contradiction check (issue 20 item 4), each
through the service on real SQLite: claims that were refused though they state two facts,
and contradictions that were accepted. Their pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected


def _committed(outcome: object) -> str:
    assert isinstance(outcome, Committed), outcome
    return outcome.id


def _statuses(app: Waymarks) -> dict[str, str]:
    return dict(app.projection.db.execute("SELECT id, status FROM items").fetchall())


@pytest.mark.parametrize(("first", "second"), [
    ("Issue 42 is closed.", "Issue 43 is closed."),
    ("Python 3.11 is supported.", "Python 3.12 is supported."),
    ("Node 1 is at 10.0.0.1.", "Node 2 is at 10.0.0.2."),
    ("Unrelated fact number 1 is about widgets 1.",
     "Unrelated fact number 2 is about widgets 2."),
])
def test_a_number_naming_the_subject_is_no_value(app: Waymarks, first: str,
                                                 second: str) -> None:
    """``<name> <number> is …`` at the start of a clause names the thing: issue 42 and
    issue 43 are two facts, not one issue with two numbers."""
    ids = [_committed(app.remember(first)), _committed(app.remember(second))]
    assert {_statuses(app)[i] for i in ids} == {"active"}
    # what does state another value of the numbered thing is still refused
    refused = app.remember(first.replace("closed", "open").replace("10.0.0.1", "10.0.0.9")
                           .replace("supported", "unsupported")
                           .replace("widgets 1", "widgets 7"))
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts[0] == ids[0]


@pytest.mark.parametrize(("first", "second"), [
    ("The API timeout is 30 seconds.", "The API timeout is 30 minutes."),
    ("The cache size is 512 MB.", "The cache size is 512 GB."),
    ("The rate limit is 100 requests per minute.", "The rate limit is 100 requests per second."),
    ("The request timeout is 30 minutes.", "请求超时是 30 秒。"),
])
def test_values_differing_in_their_unit_contradict(app: Waymarks, first: str,
                                                   second: str) -> None:
    """A unit word is part of the value: both were ``30``, a shared value (no conflict),
    and the second claim was given a key of its own; both were recalled."""
    earlier = _committed(app.remember(first))
    refused = app.remember(second)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (earlier,)
    assert list(_statuses(app).values()) == ["active"]  # nothing appended


@pytest.mark.parametrize(("first", "second"), [
    ("The API timeout is 30s.", "The API timeout is 30 seconds."),
    ("The lock timeout is 2 minutes.", "The lock timeout is 120 seconds."),
])
def test_one_duration_in_two_units_is_one_value(app: Waymarks, first: str,
                                                second: str) -> None:
    ids = [_committed(app.remember(first)), _committed(app.remember(second))]
    assert {_statuses(app)[i] for i in ids} == {"active"}


@pytest.mark.parametrize(("first", "second", "rival"), [
    ("The payment service is enabled.", "The payment service listens on 8443.",
     "The payment service is disabled."),
    ("The feature flag new-checkout is enabled.",
     "The feature flag new-checkout rollout is 50%.",
     "The feature flag new-checkout rollout is 25%."),
    ("The test suite takes 12 minutes.", "The test suite has 1500 tests.",
     "The test suite takes 20 minutes."),
    ("The nightly job runs at 02:00.", "The nightly job takes 40 minutes.",
     "The nightly job runs at 03:00."),
])
def test_a_state_and_a_value_are_two_attributes(app: Waymarks, first: str, second: str,
                                                rival: str) -> None:
    """Values are compared with values of their kind (a state with a state, a number
    with a number, a duration with a duration): "enabled" and "port 8443" are two facts
    about the payment service; another value of the same kind still contradicts."""
    ids = [_committed(app.remember(first)), _committed(app.remember(second))]
    assert {_statuses(app)[i] for i in ids} == {"active"}
    refused = app.remember(rival)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert len(refused.conflicts) == 1 and refused.conflicts[0] in ids


@pytest.mark.parametrize(("first", "second", "scope"), [
    ("The database port is 5432.", "The database port is not 5432.", "project"),
    ("数据库端口是 5433。", "数据库端口不是 5433。", "session"),
    ("数据库端口是 5433。", "数据库端口没有 5433。", "session"),
])
def test_a_denied_value_contradicts_its_assertion(app: Waymarks, project: Path, first: str,
                                                  second: str, scope: str) -> None:
    """A shared value is agreement only when neither claim denies it: across scopes
    (the replay key rule binds one partition only) and in Chinese (no derived key) the
    signature alone decides, and it took "not 5432" for agreeing with "5432"."""
    app.trust(str(project))
    earlier = _committed(app.remember(first, scope=scope))
    refused = app.remember(second)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (earlier,)
    assert list(_statuses(app).values()) == ["active"]


def test_two_denials_of_one_value_agree(app: Waymarks) -> None:
    ids = [_committed(app.remember("The cache port is not 5433.")),
           _committed(app.remember("缓存端口不是 5433。"))]
    assert {_statuses(app)[i] for i in ids} == {"active"}


def test_a_supersede_between_two_rivals_is_no_circle(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    """Session A's claim and session B's project claim contradict (B could not see A's).
    Superseding either from A was refused naming the other and suggesting to supersede
    it, which was refused naming the first: the refusal now says to invalidate the rival,
    and that way through works."""
    first, second = two_sessions()
    mine = _committed(first.remember("The database port is 5433."))
    theirs = _committed(second.remember("The database port is 5434.", scope="project"))
    for target, rival in ((mine, theirs), (theirs, mine)):
        refused = first.supersede_memory(target, "The database port is 5435.")
        assert isinstance(refused, Rejected) and refused.code == "conflict", refused
        assert refused.conflicts == (rival,)
        assert f"waymarks memory invalidate {rival}" in refused.message
        assert f"supersede {rival}" not in refused.message
    _committed(first.set_memory_status(theirs, "invalid", "measured: it is 5435"))
    replacement = _committed(first.supersede_memory(mine, "The database port is 5435."))
    statuses = _statuses(first)
    assert (statuses[mine], statuses[replacement]) == ("superseded", "active")


def test_a_refusal_names_the_claim_it_contradicts_not_a_keyed_neighbour(app: Waymarks) -> None:
    """"… disabled in qa" shares the derived key of "… enabled in staging" (the replay
    rule binds them) and contradicts "… enabled in qa" (kept apart by a key of its own):
    the refusal named staging first and suggested superseding it, which was refused in
    turn. It names the qa claim alone now, and its supersede goes through."""
    _committed(app.remember("Debug logging is enabled in staging."))
    qa = _committed(app.remember("Debug logging is enabled in qa."))
    refused = app.remember("Debug logging is disabled in qa.")
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (qa,)
    assert f"supersede {qa}" in refused.message
    replacement = _committed(app.supersede_memory(qa, "Debug logging is disabled in qa."))
    assert _statuses(app)[replacement] == "active"


def test_a_chinese_run_is_split_into_known_words_before_single_characters(
        app: Waymarks) -> None:
    """"用户服务端口" was split longest word first, 服务端 + 口 (the server, and a stray
    character), so it was not the 端口 (port) of "用户服务的端口"."""
    earlier = _committed(app.remember("用户服务端口是 8001。"))
    refused = app.remember("用户服务的端口是 8002。")
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (earlier,)
    _committed(app.remember("用户服务的主机是 db.internal。"))  # its host: another attribute


@pytest.mark.parametrize("key", ["db_port", "db.port", "db port.", "DB-Port"])
def test_keys_differing_in_punctuation_do_not_keep_a_contradiction_apart(
        app: Waymarks, key: str) -> None:
    """Two explicit keys that differ say the writer meant two facts; ``db_port`` and ``DB
    port`` differ only in how they are spelled, and let a contradicting claim in. They
    are compared loosely now; the stored key is as folded before (ledgers replay as
    they did), and a key naming another fact still keeps its claim apart."""
    earlier = _committed(app.remember("The database port is 5432.", key="DB port"))
    refused = app.remember("The database port is 5433.", key=key)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (earlier,)
    apart = _committed(app.remember("The database port is 5433.", key="replica db port"))
    keys = dict(app.projection.db.execute("SELECT id, key FROM items").fetchall())
    assert keys == {earlier: "db-port", apart: "replica-db-port"}


# -- a re-read of the rules above: what they let through, and what they refused -----------


@pytest.mark.parametrize(("first", "second"), [
    ("The API server listens on 8080.", "The API server listens on 8080, not 8000."),
    ("The API server listens on 8080.",
     "The API server listens on 8080; never expose it publicly."),
    ("数据库端口是 5432。", "数据库端口是 5432，不能改。"),
    ("The port is not 5432.", "The port is 5433."),
])
def test_a_negation_elsewhere_in_an_agreeing_claim_is_no_conflict(
        app: Waymarks, first: str, second: str) -> None:
    """A negation anywhere in the claim made it deny every value it stated: a claim
    restating the stored value with a negated aside was refused against the claim it
    agrees with. Only the value right after a negation is denied."""
    ids = [_committed(app.remember(first)), _committed(app.remember(second))]
    assert {_statuses(app)[i] for i in ids} == {"active"}


@pytest.mark.parametrize(("first", "second"), [
    ("The HTTP client timeout is 30.", "The HTTP client timeout is 60 seconds."),
    ("The upload limit is 10 MB.", "The upload limit is 20."),
    ("The CPU alert threshold is 80%.", "The CPU alert threshold is 90."),
    ("The cluster has 3 nodes.", "The cluster has 5 nodes."),
    ("Python 3.11 is the minimum supported version.",
     "Python 3.12 is the minimum supported version."),
])
def test_a_plain_number_is_compared_with_a_measure_and_a_definite_copula_states_a_value(
        app: Waymarks, first: str, second: str) -> None:
    """Values of two kinds were never compared, so a unit-less number beside a duration,
    a size or a percentage of the same thing was accepted (both recalled); and "Python
    3.11 is the …" took the version for the subject's name."""
    earlier = _committed(app.remember(first))
    refused = app.remember(second)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (earlier,)


@pytest.mark.parametrize(("first", "second"), [
    ("The API timeout is 30 seconds.", "The API timeout is 30."),
    ("The build uses 4 workers.", "The build worker count is 4."),
    ("The database port is 5432.", "The database port is 5432 internally."),
    ("The cache size is 512 MB.", "The cache size is 512."),
    ("超时是 30 秒。", "超时是 30。"),
    ("The lock timeout is 2 minutes.", "The lock timeout is 120."),
    ("The database port is 5433.", "The database port is not 5432 but 5433."),
])
def test_a_bare_number_that_is_the_measures_amount_agrees(app: Waymarks, first: str,
                                                           second: str) -> None:
    """A second re-read: comparing a bare number with any measure refused "30" beside "30
    seconds", and any word after a number made a count ("5432 internally")."""
    ids = [_committed(app.remember(first)), _committed(app.remember(second))]
    assert {_statuses(app)[i] for i in ids} == {"active"}


@pytest.mark.parametrize(("first", "second"), [
    ("The web port is 8080, not 8000 or 9000.", "The web port is 9000."),
    ("The database port is 5432.", "The database port must never be set to 5432."),
    ("The database port is 5432.", "The database does not currently listen on port 5432."),
])
def test_a_negation_earlier_in_the_clause_denies_each_value_after_it(
        app: Waymarks, first: str, second: str) -> None:
    """Only a negation at most two words before a value denied it: "not 8000 or 9000"
    asserted 9000, and "must never be set to 5432" agreed with "is 5432"."""
    earlier = _committed(app.remember(first))
    refused = app.remember(second)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (earlier,)
