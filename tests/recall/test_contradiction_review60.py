"""Review 60: claims written through the service (real session files, real SQLite) that
the contradiction check read wrongly: a changed value's old one said after a comma, and
other shapes of the fixture set's known misses and false conflicts
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recall.test_contradiction_review57 import _both_written, _refused
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


@pytest.mark.parametrize(("changed", "restated", "old"), [
    ("The cache limit is 512 MB, down from 1 GB.", "The cache limit is 512 MB (down from 1 GB).",
     "The cache limit is 1 GB."),
    ("The worker count is 8, up from 4.", "The worker count is 8.", "The worker count is 4."),
    ("The timeout is 60 seconds; it was 30 seconds.", "The timeout is 60 seconds.",
     "The timeout is 30 seconds."),
    ("缓存上限是 512 MB，之前是 1 GB。", "缓存上限是 512 MB。", "缓存上限是 1 GB。"),
])
def test_the_old_value_said_after_a_comma_is_no_longer_held(
        app: Waymarks, changed: str, restated: str, old: str) -> None:
    """"…, down from 1 GB" stated 1 GB as a value of the claim (only "(down from 1 GB)"
    denied it): the old value was written beside the change as agreeing, and the same
    change with its aside in parentheses was refused as a conflict with it."""
    assert isinstance(app.remember(changed), Committed)
    _refused(app, old)
    assert isinstance(app.remember(restated), Committed)


@pytest.mark.parametrize(("first", "second"), [
    ("The solver supports 2d arrays.", "The solver supports 3D arrays."),
    ("The renderer draws 2D sprites.", "The renderer draws 3D models."),
])
def test_a_number_of_dimensions_before_a_plural_noun_names_its_kind(
        app: Waymarks, first: str, second: str) -> None:
    """"2d arrays" read as two days: "The solver supports 3d arrays." (three days) was
    refused as a conflict with "… 2d arrays.", two kinds of array both supported."""
    _both_written(app, first, second)
    assert isinstance(app.remember("Logs are kept for 7d."), Committed)
    _refused(app, "Logs are kept for 14 days.")


def test_days_glued_to_a_number_before_a_singular_noun_are_still_a_duration(
        app: Waymarks) -> None:
    """Only a plural noun makes "3d" a kind of thing: "a 3d TTL" is three days."""
    assert isinstance(app.remember("Sessions use a 3d TTL."), Committed)
    _refused(app, "Sessions use a 5d TTL.")


@pytest.mark.parametrize(("first", "second", "denying"), [
    ("The app crashes on Windows 11.", "The app crashes on Windows 10.",
     "The app no longer crashes on Windows 11."),
    ("The importer fails on Python 3.12.", "The importer fails on Python 3.11.4.",
     "The importer does not fail on Python 3.12."),
])
def test_a_failure_on_another_version_is_another_fact(
        app: Waymarks, first: str, second: str, denying: str) -> None:
    """A version after the verb of a failure says where it fails: "… crashes on Windows
    10." was refused as a conflict with "… crashes on Windows 11.", yet both may hold;
    denying the failure on the one stored is still a conflict with it."""
    _both_written(app, first, second)
    _refused(app, denying)


def test_a_version_a_thing_runs_on_is_still_one_value(app: Waymarks) -> None:
    """Without a failure, the version after the verb is the value, as before; and a
    number after a word that names no product (no capital) says how it fails."""
    assert isinstance(app.remember("The CI runner uses Ubuntu 22.04."), Committed)
    _refused(app, "The CI runner uses Ubuntu 24.04.")
    assert isinstance(app.remember("The test suite fails with exit code 2."), Committed)
    _refused(app, "The test suite fails with exit code 3.")


@pytest.mark.parametrize(("first", "second"), [
    ("The build fails with Error 2.", "The build fails with Error 1."),  # make's words
    ("The deploy fails with HTTP 403.", "The deploy fails with HTTP 401."),
    ("The request fails with Status 500.", "The request fails with Status 503."),
    ("The job fails with Exit 137.", "The job fails with Exit 143."),
    ("服务返回 HTTP 502 报错。", "服务返回 HTTP 504 报错。"),
])
def test_a_code_written_with_a_capital_still_says_how_it_fails(
        app: Waymarks, first: str, second: str) -> None:
    """A number after a capitalised word in a clause of failure was read as a product's
    version ("Windows 11"), so "… fails with Error 1." was written beside "… fails with
    Error 2." as another platform's failure: an error's, an exit's or a status's code
    says how it fails, as "exit code 2" does."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The rate limit is set to 1,500.", "The rate limit is set to 1500.",
     "The rate limit is set to 2,500."),
    ("The batch size is 1,200.", "The batch size is 1200.", "The batch size is 3,200."),
])
def test_two_numbers_written_with_a_comma_agree_only_whole(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"1,500" is read as the number and as a list (1 and 500): "2,500" shared "500"
    with it and was written beside it. Read either way the two are other values; a
    number written without the comma still agrees with it."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)
    assert isinstance(app.remember(restated), Committed)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("Node 20 builds the frontend.", "The frontend is built with Node 20.11.1.",
     "Node 18 builds the frontend."),
    ("Java 17 compiles the backend.", "The backend is compiled by Java 17.",
     "Java 21 compiles the backend."),
])
def test_a_whole_version_before_a_toolchain_verb_is_the_value(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"Node 20 builds …" named a "Node 20" (as "Server 1 runs …" names a server), so
    "Node 18 builds the frontend." was another subject and written beside it; what
    builds or compiles a thing is one toolchain, its number a version."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("active", "passive", "contradicting"), [
    ("Node 20 builds the frontend.", "The frontend is built with Node 20.",
     "The frontend is built with Node 18."),
    ("Go 1.22 builds the CLI.", "The CLI is built with Go 1.22.", "The CLI is built with Go 1.21."),
    ("Java 17 compiles the backend.", "The backend is compiled with Java 17.",
     "The backend is compiled with Java 21."),
])
def test_the_passive_of_a_toolchain_verb_is_its_active(
        app: Waymarks, active: str, passive: str, contradicting: str) -> None:
    """"built" and "compiled" were subject words of their own: "The frontend is built with
    Node 18." was another fact than "Node 20 builds the frontend." and written beside it."""
    assert isinstance(app.remember(active), Committed)
    _refused(app, contradicting)
    assert isinstance(app.remember(passive), Committed)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The API rate limit is 100 requests per minute.",
     "The API rate limit is 6000 requests per hour.",
     "The API rate limit is 100 requests per hour."),
    ("The webhook limit is 2 requests per second.", "The webhook limit is 120 per minute.",
     "The webhook limit is 2 requests per minute."),
])
def test_a_rate_is_one_value_in_any_time_unit(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"100 requests per minute" and "6000 requests per hour" were two values (each kept
    in its own unit), so the same rate restated was refused as a conflict."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)
    assert isinstance(app.remember(restated), Committed)


def test_a_chinese_failure_on_another_version_is_another_fact(app: Waymarks) -> None:
    """A Chinese verb of failure follows the place it names ("在 Python 3.12 上失败"): the
    failure on 3.11 was refused as a conflict with the failure on 3.12."""
    _both_written(app, "测试在 Python 3.12 上失败。", "测试在 Python 3.11 上失败。")
    assert isinstance(app.remember("测试使用 Python 3.12。"), Committed)
    _refused(app, "测试使用 Python 3.10。")


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The build uses Node 20.", "构建使用 Node 20.11.1。", "构建使用 Node 18。"),
    ("构建采用 Node 20。", "The build uses Node 20.11.1.", "The build uses Node 18."),
    ("The retry count is set to 3.", "重试次数设置 3。", "重试次数设置 5。"),
])
def test_a_chinese_verb_english_says_with_a_stop_word_is_no_subject_word(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"使用" ("uses") was two subject characters, so "构建使用 Node 18。" was another
    subject than "The build uses Node 20." and written beside it."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)
    assert isinstance(app.remember(restated), Committed)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The rate limit is 100 req/s.", "The rate limit is 6000 requests per minute.",
     "The rate limit is 200 req/s."),
    ("The rate limit is 100/min.", "The rate limit is 100 requests per minute.",
     "The rate limit is 120/min."),
    ("Disk throughput is 100 MB/s.", "Disk throughput is 6000 MB/min.",
     "Disk throughput is 200 MB/s."),
])
def test_a_rate_written_with_a_slash_is_a_rate(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"req/s" was read as a path, a value both claims stated, so "The rate limit is 200
    req/s." agreed with "… 100 req/s." and was written beside it."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)
    assert isinstance(app.remember(restated), Committed)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("接口限流是每分钟 100 次请求。", "接口限流是每小时 6000 次请求。",
     "接口限流是每分钟 200 次请求。"),
    ("接口限流是每秒 2 次。", "接口限流是每分钟 120 次。", "接口限流是每秒 3 次。"),
])
def test_a_rate_written_in_chinese_is_one_in_any_time_unit(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"每分钟 100 次" ("100 times a minute") was the plain number 100: "每小时 6000 次",
    the same rate, was refused as a conflict with it."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)
    assert isinstance(app.remember(restated), Committed)


def test_a_daily_time_or_measure_in_chinese_is_no_rate(app: Waymarks) -> None:
    """"每天 3:00" is a time and "每天 2 GB" a size: neither is read as a rate."""
    assert isinstance(app.remember("备份每天 3:00 运行。"), Committed)
    _refused(app, "备份每天 4:00 运行。")
    assert isinstance(app.remember("日志每天增长 2 GB。"), Committed)
    _refused(app, "日志每天增长 4 GB。")


def test_a_change_of_a_fact_stated_twice_is_advised_without_a_circle(app: Waymarks) -> None:
    """Two claims restating one fact ("The database port is 5432." and "The DB listens on
    5432.") are both active; its change was refused naming both, with "supersede the
    first"; that supersede was refused with "supersede the second", and that one with
    "supersede the first" again. The advice now ends: invalidate the others, then
    supersede the one named first."""
    from waymarks.service.outcomes import Rejected

    first = app.remember("The database port is 5432.")
    second = app.remember("The DB listens on 5432.")
    assert isinstance(first, Committed) and isinstance(second, Committed)
    added = app.remember("The database port is 5433.")
    assert isinstance(added, Rejected) and added.conflicts == (first.id, second.id)
    assert f"invalidate {second.id}" in added.message
    superseding = app.supersede_memory(first.id, "The database port is 5433.")
    assert isinstance(superseding, Rejected) and superseding.conflicts == (second.id,)
    assert f"supersede {second.id}" not in superseding.message
    assert f"invalidate {second.id}" in superseding.message
    assert f"supersede {first.id}" in superseding.message
    assert isinstance(app.set_memory_status(second.id, "invalid", "restated"), Committed)
    assert isinstance(app.supersede_memory(first.id, "The database port is 5433."), Committed)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    # the run logs, the settings page, the user manual: narrower things than the logs,
    # the page, the notes
    ("运行日志保留 7 天。", "日志保留 30 天。", "运行日志保留 14 天。"),
    ("设置页面的端口是 8080。", "页面的端口是 9090。", "设置页面的端口是 8081。"),
    ("使用说明的版本是 2.0。", "说明的版本是 3.0。", "使用说明的版本是 2.1。"),
])
def test_a_chinese_verb_starting_a_compound_noun_is_part_of_its_subject(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """With 运行, 设置, 使用 and 采用 read as function words wherever they stood, a noun
    they start (运行日志, run logs; 设置页面, the settings page; 使用说明, the manual) lost
    that word, and "日志保留 30 天。" was refused beside "运行日志保留 7 天。": at a run's
    start, before more of the noun, the word is the noun's."""
    _both_written(app, first, second)
    _refused(app, contradicting)


def test_a_change_of_a_fact_stated_in_the_session_and_the_project_keeps_it_for_the_project(
        app: Waymarks, project: Path) -> None:
    """A fact restated in this session before the project held it: the refusal of its
    change said to invalidate the project's claim and supersede the session's, which,
    followed, left the project no claim of the fact once the session ended (the new one
    took the session's scope). The project's claim is the one to supersede, the session's
    restatement the one to invalidate, whichever was written first; a supersede of the
    session's is advised the same way."""
    from waymarks.service.outcomes import Rejected

    app.trust(str(project))
    mine = app.remember("The DB listens on 5432.")
    theirs = app.remember("The database port is 5432.", scope="project")
    assert isinstance(mine, Committed) and isinstance(theirs, Committed)
    added = app.remember("The database port is 5433.")
    assert isinstance(added, Rejected) and set(added.conflicts) == {mine.id, theirs.id}
    assert f"invalidate {mine.id}" in added.message
    assert f"invalidate {theirs.id}" not in added.message
    assert f"supersede {theirs.id}" in added.message
    superseding = app.supersede_memory(mine.id, "The database port is 5433.")
    assert isinstance(superseding, Rejected)
    assert f"invalidate {theirs.id}" not in superseding.message
    assert f"invalidate {mine.id}" in superseding.message
    assert f"supersede {theirs.id}" in superseding.message
    assert isinstance(app.set_memory_status(mine.id, "invalid", "restated"), Committed)
    changed = app.supersede_memory(theirs.id, "The database port is 5433.")
    assert isinstance(changed, Committed)
    app.session_new()  # the project keeps the changed fact
    assert [(item.text, item.status) for item in app.items("memory")] == [
        ("The database port is 5432.", "superseded"), ("The database port is 5433.", "active")]


@pytest.mark.parametrize(("first", "second", "denying"), [
    ("The app crashes on macOS 14.", "The app crashes on macOS 13.",
     "The app no longer crashes on macOS 14."),
    ("The build fails on iOS 17.", "The build fails on iOS 16.",
     "The build does not fail on iOS 17."),
])
def test_a_failure_on_another_version_of_a_product_named_in_camel_case_is_another_fact(
        app: Waymarks, first: str, second: str, denying: str) -> None:
    """A product's name was one typed with a capital first ("Windows 11"): "… crashes on
    macOS 13." was refused beside "… crashes on macOS 14.", both of which may hold; a
    capital anywhere in the name (macOS, iOS, iPadOS) makes it a product's."""
    _both_written(app, first, second)
    _refused(app, denying)
