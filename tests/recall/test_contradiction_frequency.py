"""Issue 20 item 4's known misses, written through the service (real session files, real
SQLite): a frequency said in words ("twice a day"). Their pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The backup runs twice a day.", "The backup runs 2 times per day.",
     "The backup runs twice a week."),
    ("The sync job runs once an hour.", "The sync job runs 24 times a day.",
     "The sync job runs once a day."),
    ("Deploys happen three times a week.", "Deploys happen 3 times every week.",
     "Deploys happen once a week."),
    ("The cert check runs once a week.", "The cert check runs once per week.",
     "The cert check runs thrice a week."),
])
def test_a_frequency_in_words_is_a_rate(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"twice a day" was no value: the claim had no signature, nor a derived key (no
    "is"), so "twice a week" was written beside it, both active; it is the rate 2 per
    day, which the same rate in other words or another time unit restates."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The backup runs twice a day.", "The deploy runs twice a week."),
    ("Redis is backed up once a day.", "Postgres is backed up once a week."),
    ("The linter runs twice a day.", "The backup runs twice a day."),
])
def test_frequencies_of_other_subjects_are_two_facts(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The job runs once a day at 02:00.", "The job runs daily at 2:00.",
     "The job runs once a day at 03:00."),
    ("The job runs once a day at 02:00.", "The job runs at 02:00 once a day.",
     "The job runs twice a day at 02:00."),
    ("The API allows 100 req/s on port 8080.", "The API allows 6000 req/min on port 8080.",
     "The API allows 100 req/s on port 8081."),
])
def test_a_rate_and_the_values_beside_it_are_compared_apart(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """Once a frequency was a rate, "once a day at 02:00" and "once a day at 03:00" shared
    it, and a value in common was taken for agreement on all: the changed time was
    written beside the first; a rate and the values beside it are compared apart, as a
    state and its values are."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The backup runs daily.", "The backup runs once a day.", "The backup runs weekly."),
    ("The backup runs nightly at 02:00.", "The backup runs daily at 02:00.",
     "The backup runs hourly."),
    ("The sync job runs hourly.", "The sync job runs 24 times a day.",
     "The sync job runs twice a day."),
])
def test_daily_weekly_and_hourly_after_the_verb_are_rates(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"runs daily" stated no value: "runs weekly" was written beside it (no "is": no
    derived key either); after its verb, at the end of its clause or before its time,
    the word is once a day, a week or an hour."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


def test_daily_before_its_noun_names_the_thing(app: Waymarks) -> None:
    """"The daily backup" is which backup: its time is still the value compared."""
    _written(app, "The daily backup runs at 02:00.")
    _refused(app, "The daily backup runs at 03:00.")
    _written(app, "The weekly backup runs at 03:00.")
