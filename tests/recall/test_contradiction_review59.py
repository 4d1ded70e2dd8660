"""Review 59: claim pairs of the fixture set's known misses and false conflicts
(``benchmarks/conflict_pairs.json``), written through the service (real session files,
real SQLite): a restatement in another notation is written beside its fact, and a changed
value is still refused with the stored claim's ID."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _both_written, _refused
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The backup runs at 3:00.", "The backup runs at 03:00.", "The backup runs at 04:00."),
    ("The nightly job runs at 2:30.", "The nightly job runs at 02:30.",
     "The nightly job runs at 2:45."),
    ("The maintenance window is 2:00-4:00.", "The maintenance window is 02:00-04:00.",
     "The maintenance window is 02:00-05:00."),
    ("备份在 3:00 运行。", "备份在 03:00 运行。", "备份在 4:00 运行。"),
])
def test_a_clock_time_is_one_value_with_or_without_its_leading_zero(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"3:00" and "03:00" were two values: the same time restated was refused."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "denying"), [
    ("데이터베이스 포트는 5432입니다.", "데이터베이스 포트는 5432가 아닙니다."),
    ("API 포트는 8080입니다.", "API 포트는 8080이 아닙니다."),
    ("データベースのポートは5432です。", "データベースのポートは5432ではありません。"),
    ("APIのポートは8080です。", "APIのポートは8080じゃない。"),
    ("機能フラグは有効です。", "機能フラグは有効ではありません。"),
    ("ポートは5432です。", "ポートは5432ではなく5433です。"),
    ("포트는 5432입니다.", "포트는 5432가 아니라 5433입니다."),
    ("기능 플래그는 활성화되어 있습니다.", "기능 플래그는 활성화되어 있지 않습니다."),
])
def test_a_japanese_or_korean_negation_after_the_value_denies_it(
        app: Waymarks, first: str, denying: str) -> None:
    """Japanese and Korean put the negation after what it denies ("5432가 아닙니다",
    "5432ではありません", "有効ではありません"): read as no negation, the denial agreed
    with the value it denies and was written beside it."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, denying)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("機能フラグは無効です。", "機能フラグは有効ではありません。", "機能フラグは有効です。"),
    ("기능 플래그는 비활성화되어 있습니다.", "기능 플래그는 활성화되어 있지 않습니다.",
     "기능 플래그는 활성화되어 있습니다."),
])
def test_a_japanese_or_korean_denial_agrees_with_the_fact_it_leaves(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"有効ではありません" (not enabled) is "無効" (disabled): refused beside it as a
    conflict."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("Logs are kept for 7d.", "Logs are kept for 7 days.", "Logs are kept for 14 days."),
    ("Backups are retained for 2w.", "Backups are retained for 14 days.",
     "Backups are retained for 30d."),
    ("The token lifetime is 1d12h.", "The token lifetime is 36 hours.",
     "The token lifetime is 2d."),
])
def test_days_and_weeks_glued_to_their_number_are_a_duration(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"7d" was no value: the claim had no signature, and the replay rule's shared key
    refused "Logs are kept for 7 days." beside it, the same fact."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The buffer size is 16k.", "The buffer size is 16 KB.", "The buffer size is 32 KB."),
    ("The upload limit is 10000.", "The upload limit is 10 KB.", "The upload limit is 20 KB."),
])
def test_a_number_in_thousands_is_the_size_in_kilobytes(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"16k" (16000) was no amount of "16 KB" (16384 bytes, as binary multiples count):
    the same size restated was refused as a conflict."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("changed", "restated", "old"), [
    ("The cache limit is 512 MB (up from 256 MB).", "The cache limit is 512 MB.",
     "The cache limit is 256 MB."),
    ("The worker count is 8 (down from 12).", "The worker count is 8.",
     "The worker count is 12."),
    ("The timeout is 60 seconds (raised from 30s).", "The timeout is 60 seconds.",
     "The timeout is 30 seconds."),
])
def test_the_value_an_aside_says_it_changed_from_is_no_longer_held(
        app: Waymarks, changed: str, restated: str, old: str) -> None:
    """"(up from 256 MB)" stated 256 MB as a value of the claim, so the old value was
    written beside it as agreeing; it is denied as "(was 256 MB)" is."""
    assert isinstance(app.remember(changed), Committed)
    _refused(app, old)
    assert isinstance(app.remember(restated), Committed)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("Go 1.22 builds the CLI.", "The CLI is built with Go 1.22.", "Go 1.21 builds the CLI."),
    ("Python 3.12 runs the test suite.", "Python 3.12.4 runs the test suite.",
     "Python 3.11 runs the test suite."),
    ("GCC 13.2 compiles the firmware.", "GCC 13.2 compiles the bootloader.",
     "GCC 12.3 compiles the firmware."),
    ("The threshold 0.8 triggers alerts.", "The alert threshold is 0.8.",
     "The threshold 0.9 triggers alerts."),
])
def test_a_version_or_a_fraction_before_a_verb_of_the_job_is_the_value(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"Go 1.22 builds the CLI." named a "Go 1.22" (as "Python 3.12 supports …" does), so
    "Go 1.21 builds the CLI." was another subject and written beside it; one tool builds,
    runs or compiles a thing, and a fraction ("0.8") is no name."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Python 3.12 supports pattern matching.", "Python 3.10 supports pattern matching."),
    ("Server 1 runs the API.", "Server 2 runs the API."),
    ("Python 3.12 runs the test suite.", "Python 3.11 runs the legacy scripts."),
])
def test_a_name_before_a_verb_still_names_its_subject(
        app: Waymarks, first: str, second: str) -> None:
    """Two versions that each support a feature, two numbered servers, and two versions
    running two things are two facts."""
    _both_written(app, first, second)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The database is Postgres 16.2.", "The database is Postgres 16.",
     "The database is Postgres 15."),
    ("The project uses Python 3.12.", "The project uses Python 3.", "The project uses Python 2."),
])
def test_a_product_s_major_version_agrees_with_a_release_of_it(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"Postgres 16" is the line "Postgres 16.2" is a release of, as "Node 20" is of
    "Node 20.11.1"; it was refused as a conflict. A number after no product's name keeps
    its decimals ("The ratio is 1." contradicts "… 1.5.")."""
    _both_written(app, first, second)
    _refused(app, contradicting)


def test_a_decimal_after_no_name_is_not_a_release(app: Waymarks) -> None:
    assert isinstance(app.remember("The scaling ratio is 1.5."), Committed)
    _refused(app, "The scaling ratio is 1.")


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The batch scaling factor remains 1.5.", "The batch scaling factor remains 1."),
    ("The sampling temperature stays 1.", "The sampling temperature stays 1.5."),
    ("The backoff multiplier becomes 2.", "The backoff multiplier becomes 2.5."),
    ("The load average reaches 4.", "The load average reaches 4.5."),
])
def test_a_decimal_after_a_linking_verb_is_not_a_release(
        app: Waymarks, first: str, contradicting: str) -> None:
    """511f3f99 took any word before a plain number for a product's name ("Postgres 16"),
    so "remains 1" and "remains 1.5" were a line and a release of it, and the changed
    value was written beside the stored one."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The image cache holds 500 entries.", "The image cache holds 500 entries in memory.",
     "The image cache holds 2000 entries."),
    ("The pool holds 8 connections.", "The pool holds 8 connections per worker.",
     "The pool holds 16 connections."),
    ("The job spawns 4 workers.", "Rack 3 holds the backup disks.", "The job spawns 6 workers."),
])
def test_a_number_counting_the_noun_after_it_is_the_value(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"holds 500 entries." read "holds" as a name and 500 as its number (as "rack 3
    holds …" is): the claim had no value, and "… holds 2000 entries." was written beside
    it."""
    _both_written(app, first, second)
    _refused(app, contradicting)


def test_a_number_between_a_name_and_its_verb_still_names(app: Waymarks) -> None:
    _both_written(app, "Rack 3 holds 40 servers.", "Rack 4 holds 20 servers.")


@pytest.mark.parametrize(("first", "second"), [
    ("Migration 42 fails.", "Migration 43 fails."),
    ("Worker 2 crashes.", "Worker 5 crashes."),
    ("Build step 3 fails.", "Build step 5 fails."),
    ("The flaky test 17 fails.", "The flaky test 18 fails."),
    ("Replica 2 lags.", "Replica 4 lags."),
])
def test_a_verb_ending_the_clause_after_a_name_and_its_number_counts_nothing(
        app: Waymarks, first: str, second: str) -> None:
    """"Migration 42 fails." read "fails" as the plural noun 42 counted, as "holds 500
    entries." is: two migrations failing were one migration's count, and the second fact
    was refused as a conflict."""
    _both_written(app, first, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The cache keeps 500 entries.", "The cache keeps 2000 entries."),
    ("The cache can hold 500 entries.", "The cache can hold 2000 entries."),
    ("The cache held 500 entries.", "The cache held 2000 entries."),
    ("The repo contains 1500 tests.", "The repo contains 1700 tests."),
])
def test_a_number_after_a_verb_still_counts_the_noun_after_it(
        app: Waymarks, first: str, contradicting: str) -> None:
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("機能フラグは有効です。", "機能フラグは有効で変更しないでください。"),
    ("機能フラグは有効です。", "機能フラグは有効で、無効にしないでください。"),
    ("ポートは5432です。", "ポートは5432で変更できません。"),
    ("기능 플래그는 활성화되어 있습니다.", "기능 플래그는 활성화되어 있고 끄지 않습니다."),
])
def test_a_negation_later_in_a_japanese_or_korean_clause_denies_nothing_before_it(
        app: Waymarks, first: str, second: str) -> None:
    """Only a negation right after a value or a state denies it ("有効ではありません"); one
    later in the clause is another verb's ("有効で変更しないでください": enabled, do not
    change it), and read as the state's it was refused beside "…は有効です。"."""
    _both_written(app, first, second)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The deploy runs at 23:30 UTC.", "The deploy runs at 11:30 PM UTC.",
     "The deploy runs at 11:30 AM UTC."),
    ("The backup starts at 00:15.", "The backup starts at 12:15 am.",
     "The backup starts at 12:15 pm."),
    ("The job runs at 7:45am.", "The job runs at 07:45.", "The job runs at 7:45 p.m."),
])
def test_a_twelve_hour_clock_time_is_its_twenty_four_hour_time(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"11:30 PM" was the value 11:30, another than "23:30": the same time restated was
    refused, and "11:30 AM" agreed with "11:30 PM"."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The deploy window is 14:00-16:00.", "The deploy window is 2:00-4:00 PM.",
     "The deploy window is 2:00-4:00 AM."),
    ("Support is staffed 11:00-13:00.", "Support is staffed 11:00-1:00 pm.",
     "Support is staffed 11:00-1:00 am."),
    ("The freeze runs 21:00-23:30.", "The freeze runs 9:00-11:30 p.m.",
     "The freeze runs 9:00-11:30 a.m."),
])
def test_a_range_of_the_twelve_hour_clock_is_its_twenty_four_hour_range(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """a0af6e07 read a time followed by "pm" as its 24-hour time, but not a range: "2:00-4:00
    PM" was 02:00-04:00, refused beside "14:00-16:00", and "2:00-4:00 AM" was written
    beside it. The half of the day after a range is its end's, and its start's unless
    that would start it after its end ("11:00-1:00 pm" starts at 11:00)."""
    _both_written(app, first, second)
    _refused(app, contradicting)
