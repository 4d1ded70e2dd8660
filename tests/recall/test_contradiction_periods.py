"""A schedule's period in words is a rate (issue 20 item 4, "schedules in other words"):
"every night" is nightly, once a day; "every Sunday" and "on Sundays" once a week on that
day; 每天, 每晚 every day, 每周 every week (``core/claim_schedules.every_period``). Written
through the service (real SQLite); none is a sentence of the ``dev-words`` set."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks

#: a claim | another period of it | the same period or another subject (written)
PERIODS = """
The audit export runs nightly. | The audit export runs every Saturday. \
| The audit export runs every night at 01:30.
Certificates are renewed every day. | Certificates are renewed weekly. \
| Certificates are renewed daily.
The sitemap is regenerated every week. | The sitemap is regenerated every hour. \
| The robots file is regenerated every hour.
Standups happen on Mondays. | Standups happen every Wednesday. \
| Retros happen every Wednesday.
日志归档每晚执行。 | 日志归档每周六执行。 | 日志清理每周六执行。
索引每周重建。 | 索引每天重建。 | 缓存每天重建。
"""


@pytest.mark.parametrize("line", PERIODS.strip().splitlines())
def test_another_period_of_a_schedule_is_another_value(app: Waymarks, line: str) -> None:
    """Read as words, "every night" stated no value ("nightly" did) and "every Saturday"
    a day, no rate: the second claim was written beside the first."""
    refused_beside_first(app, line)


@pytest.mark.parametrize(("first", "second"), [
    ("The nightly report is generated daily.", "The nightly report is generated every day."),
    ("The index is compacted every night.", "The index is compacted nightly at 03:00."),
])
def test_one_period_said_two_ways_is_one_fact(app: Waymarks, first: str, second: str) -> None:
    """Keyed alike ("X is …"), the second was refused as another value of the first."""
    assert app.remember(first).outcome == "committed"
    assert app.remember(second).outcome == "committed"


@pytest.mark.parametrize("claim", [
    "The job runs every Monday and Thursday.",  # two days: no rate of one
    "接口限流是每小时 6000 次请求。",  # a count per hour, not every hour
    "The cert check runs twice every week.",  # twice, not once
])
def test_a_period_that_is_no_single_rate_is_not_read_as_one(claim: str) -> None:
    found = signature(claim)
    assert found is None or ("r:1/w" not in found.values and "r:1/h" not in found.values)


@pytest.mark.parametrize(("schedule", "exception"), [
    ("Standup is every day at 9:30.", "Standup is skipped on Fridays."),
    ("Standup is daily.", "Standup is cancelled on Fridays."),
    ("The cron job runs every hour.", "The cron job is disabled on Sundays."),
    ("Deploys happen every day.", "Deploys are frozen on Fridays."),
])
def test_a_day_the_schedule_is_off_is_its_exception_not_a_rate(
        app: Waymarks, schedule: str, exception: str) -> None:
    """A day said with "skipped", "cancelled", "disabled" was read as "once a week on
    that day", another rate than the schedule's: the exception was refused as a
    conflict with the schedule it is an exception to."""
    assert app.remember(schedule).outcome == "committed"
    outcome = app.remember(exception)
    assert outcome.outcome == "committed", outcome
