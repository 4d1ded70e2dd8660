"""The second review of the write-time contradiction check: contradictions accepted
beside a reason, a negation in another clause or a classification marker, values read
as fragments, and narrower facts refused. Each through the service on real SQLite; the
pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected


def _committed(outcome: object) -> str:
    assert isinstance(outcome, Committed), outcome
    return outcome.id


def _statuses(app: Waymarks) -> dict[str, str]:
    return dict(app.projection.db.execute("SELECT id, status FROM items").fetchall())


def _refused(app: Waymarks, first: str, second: str, scope: str = "session") -> None:
    earlier = _committed(app.remember(first, scope=scope))
    refused = app.remember(second)
    assert isinstance(refused, Rejected) and refused.code == "conflict", (second, refused)
    assert refused.conflicts == (earlier,)
    assert list(_statuses(app)) == [earlier]  # nothing appended


def _both_kept(app: Waymarks, first: str, second: str) -> None:
    ids = [_committed(app.remember(first)), _committed(app.remember(second))]
    assert {_statuses(app)[i] for i in ids} == {"active"}
    live = app.projection.db.execute("SELECT id, status, key FROM items ORDER BY id").fetchall()
    app.rebuild_index()  # and a rebuild replays them the same
    assert app.projection.db.execute(
        "SELECT id, status, key FROM items ORDER BY id").fetchall() == live


@pytest.mark.parametrize("scope", ["session", "project"])
def test_a_marked_claim_is_compared_without_its_markers(app: Waymarks, project: Path,
                                                        scope: str) -> None:
    """docs/conflicts.md's example with the second claim marked internal: the marker's words were
    subject terms ({ds4, internal, dev, database, port}), another subject, so it was
    recorded beside the port it contradicts."""
    app.trust(str(project))
    _refused(app, "The database port is 5435.",
             "[ds4:internal]The dev DB listens on 5436.[/ds4:internal]", scope)


@pytest.mark.parametrize(("first", "second"), [
    ("The new-checkout flag is enabled.",
     "The new-checkout flag is disabled, so don't rely on it."),
    ("Debug logging is enabled.", "Debug logging is disabled, please don't use it."),
    ("功能开关 new-checkout 已开启。", "功能开关 new-checkout 已关闭，不要用。"),
])
def test_a_negation_in_another_clause_does_not_flip_the_state(app: Waymarks, first: str,
                                                              second: str) -> None:
    """"don't" anywhere flipped the state: "disabled, so don't rely on it" read as on,
    agreeing with "enabled", and the second claim was given a key of its own."""
    _refused(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("MFA is required for admins.", "MFA is required for admins, it cannot be skipped."),
    ("缓存已开启。", "缓存已开启，不要关闭它。"),
])
def test_a_negation_before_a_state_word_of_its_clause_flips_only_that_word(
        app: Waymarks, first: str, second: str) -> None:
    _both_kept(app, first, second)
    # a negation right before the state word still flips it
    refused = app.remember(first.replace("is required", "is not required")
                           .replace("已开启", "未开启"))
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused


@pytest.mark.parametrize(("first", "second"), [
    ("The DB port is 5432.", "The DB port is 5433 after the March infra migration."),
    ("The worker count is 8.", "The worker count is 16 per Alice from platform team."),
    ("The API timeout is 30 seconds.",
     "The API timeout is 60 seconds since the gateway upgrade last week."),
    ("The base image is python:3.12-slim.", "The base image is python:3.11-slim."),
    ("The base image is python:3.12-slim.", "The base image is node:3.12-slim."),
    ("The maintenance window is 02:00-04:00 UTC.", "The maintenance window is 02:00-06:00 UTC."),
    ("The SDK version is 2.0.0-rc1.", "The SDK version is 2.0.0-rc2."),
    ("The code freeze date is 12/20.", "The code freeze date is 12/22."),
    ("The supported Python range is 3.10-3.12.", "The supported Python range is 3.11-3.13."),
    ("The API URL is https://api.example.com/v1.", "The API URL is https://api.example.com/v2."),
    ("The nightly cron is 0 3 * * *.", "The nightly cron is 0 4 * * *."),
    ("The code freeze starts on 2026-12-20.", "The code freeze starts on 2026-12-22."),
])
def test_a_correction_sharing_the_derived_key_is_not_kept_apart(app: Waymarks, first: str,
                                                                second: str) -> None:
    """key_apart gave the second claim a key of its own whenever the signatures did not
    contradict, also when they could not tell: a reason clause added more subject terms
    than a paraphrase may, or the value matched a fragment shared by both
    (``python:3.12-slim`` read as 3). Both stayed active and were recalled."""
    _refused(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("Debug logging is enabled in staging.", "Debug logging is disabled in production."),
    ("Redis port is 6379 and Postgres port is 5432.", "The Redis port is 6379."),
    ("The base image is python:3.12-slim.", "The base image is python:3.12-slim for builds."),
    ("The DB is at db.internal:5432.", "The DB is at db.internal:5432 behind pgbouncer."),
    ("The API listens on localhost:8080.", "The API port is 8080."),
])
def test_two_facts_or_a_restatement_are_still_kept_apart(app: Waymarks, first: str,
                                                         second: str) -> None:
    _both_kept(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The API listens on port 8080.", "The API metrics port is 9090."),
    ("The web server port is 8080.", "The web server admin port is 8081."),
    ("Redis port is 6379.", "Redis sentinel port is 26379."),
    ("The cache TTL is 300 seconds.", "The user cache TTL is 60 seconds."),
    ("The log retention is 30 days.", "The audit log retention is 365 days."),
    ("The worker count is 8.", "The worker count for the email queue is 2."),
    ("Node version is 20.", "The node exporter version is 1.7."),
    ("数据库端口是 5432。", "分析数据库端口是 8123。"),
])
def test_a_narrower_attribute_is_another_fact(app: Waymarks, first: str,
                                              second: str) -> None:
    """A word more in the subject phrase ("metrics", "sentinel", "audit") names a narrower
    thing: refused as the same fact, the suggested supersede would have deleted a true
    one."""
    _both_kept(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The database port is 5435.", "The dev DB listens on 5436."),
    ("The database port is 5435.", "The production database port is 5436."),
    ("The request timeout is 15 s.", "Request timeout defaults to 10 s."),
    ("The payments service has 6 replicas.", "Payments runs 4 replicas."),
    ("数据库端口是 5435。", "开发数据库端口是 5436。"),
])
def test_an_environment_or_generic_word_qualifies_the_same_fact(
        app: Waymarks, first: str, second: str) -> None:
    _refused(app, first, second)


@pytest.mark.parametrize("first", ["The dev DB listens on 5436.",
                                   "The dev database port is 5436."])
def test_an_explicit_key_keeps_a_new_claim_apart_from_one_without(
        app: Waymarks, first: str) -> None:
    """The writer's ``--key`` says two facts: it was honoured only when the stored claim
    had an explicit key too, so a claim the signature took for the same fact could not be
    recorded at all. The replay rule compares keys, so a rebuild keeps both active."""
    earlier = _committed(app.remember(first))
    refused = app.remember("The database port is 5437.")
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    later = _committed(app.remember("The database port is 5437.", key="ci-db-port"))
    live = app.projection.db.execute("SELECT id, status, key FROM items ORDER BY id").fetchall()
    assert {row[0]: row[1] for row in live} == {earlier: "active", later: "active"}
    app.rebuild_index()
    assert app.projection.db.execute(
        "SELECT id, status, key FROM items ORDER BY id").fetchall() == live
    # the same key, loosely, is the same fact still
    again = app.remember("The database port is 5438.", key="CI db_port")
    assert isinstance(again, Rejected) and again.code == "conflict", again


@pytest.mark.parametrize(("first", "second"), [
    ("默认分支是 main。", "默认分支是 master。"),
    ("日志级别是 info。", "日志级别是 debug。"),
    ("部署区域是 us-east-1。", "部署区域是 eu-west-1。"),
    ("部署区域是 us-east-1。", "The deploy region is us-west-2."),
    ("默认分支是 main。", "默认分支不是 main。"),
    ("The deploy region is us-east-1.", "The deployment region is us-west-2."),
    ("log_level = debug", "log level = info"),
])
def test_a_word_or_hyphenated_name_after_a_copula_is_a_value(app: Waymarks, first: str,
                                                             second: str) -> None:
    """docs/conflicts.md promises another value "in English or Chinese": a Chinese claim has no
    derived key, and its signature had no value in a word or in ``us-east-1`` (the number
    was glued to the name), so each pair was recorded."""
    _refused(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The checkout-v2 flag is enabled.", "The checkout-v3 flag is disabled."),
    ("默认分支是 main。", "默认分支是 main，不要直接推送。"),
    ("部署区域是 us-east-1。", "The deploy region is us-east-1."),
])
def test_a_name_before_its_copula_or_the_same_word_value_is_no_conflict(
        app: Waymarks, first: str, second: str) -> None:
    _both_kept(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("缓存已开启。", "缓存已关闭，不要依赖它。"),
    ("The payments API is enabled.",
     "The payments API is disabled until the audit, nobody can call it."),
])
def test_a_clause_of_advice_is_no_part_of_the_subject(app: Waymarks, first: str,
                                                      second: str) -> None:
    """"不要依赖它" added three subject terms to a one-term subject, so the contradiction
    (no derived key in Chinese) went unseen."""
    _refused(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The cache is enabled in prod.", "The cache is enabled in prod; nobody should disable it."),
    ("Debug logging is enabled by default.",
     "Debug logging is enabled by default, you don't need to enable it."),
])
def test_a_state_word_in_a_clause_of_advice_states_nothing(app: Waymarks, first: str,
                                                           second: str) -> None:
    """Its "disable" made the claim state both on and off, so it had no signature and the
    shared derived key refused it."""
    _both_kept(app, first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The cache size is 1 GB.", "The cache size is 1024 MB."),
    ("缓存大小是 1 GB。", "缓存大小是 1024 MB。"),
    ("The API timeout is 30 seconds.", "The API timeout is thirty seconds."),
    ("The API timeout is 30 seconds.", "The API timeout is half a minute."),
    ("The retry count is 3.", "The retry count is three."),
])
def test_one_value_in_other_units_or_words_is_no_conflict(app: Waymarks, first: str,
                                                          second: str) -> None:
    _both_kept(app, first, second)
    refused = app.remember(second.replace("1024", "2048").replace("thirty", "forty")
                           .replace("half a minute", "half an hour")
                           .replace("three", "five"))
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
