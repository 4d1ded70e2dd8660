"""False conflicts found by the held-out pairs of ``benchmarks/conflict_pairs.json`` (tag
``heldout-rr``), written through the service (real session files, real SQLite): each a
true fact of the person refused beside another attribute of the same thing."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second"), [
    ("The package mirror is at mirror.internal:8081.", "The package mirror is read-only."),
    ("The package mirror is read-only.", "The package mirror is at mirror.internal:8081."),
    ("The status dashboard is at grafana.ops.example.com.",
     "The status dashboard is internal-only."),
    ("The VPN gateway is vpn.example.net.", "The VPN gateway is slow from Asia."),
    ("The internal wiki is hosted at wiki.corp.example.com.",
     "The internal wiki is read-only for contractors."),
])
def test_a_hyphenated_or_qualified_quality_beside_where_it_is_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"read-only" is a word of its own, and "slow from Asia" a quality said with where it
    holds: neither is another place of the thing."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The package mirror is read-only.", "The package mirror is read-write."),
    ("The package mirror is at mirror.internal:8081.",
     "The package mirror is moved to the new cluster."),
    ("The package mirror is at mirror.internal:8081.",
     "The package mirror is replaced by the new cluster."),
])
def test_another_quality_or_a_move_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Alerts are sent to Slack.", "Alerts are also sent to PagerDuty."),
    ("Alerts are also sent to PagerDuty.", "Alerts are sent to Slack."),
    ("The marketing site is deployed to Netlify.",
     "The marketing site is also deployed to a preview bucket."),
    ("Nightly dumps are copied to the backup host.",
     "Nightly dumps are copied to cold storage too."),
])
def test_a_thing_also_done_to_another_object_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"also" says the object is one more, as it does of a value ("The API also listens on
    port 9090."), whatever the verb done to the thing in the passive."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Alerts are also sent to PagerDuty.", "Alerts are not sent to PagerDuty."),
    ("Alerts are only sent to Slack.", "Alerts are also sent to PagerDuty."),
    ("Alerts are sent to Slack.", "Alerts are sent to Microsoft Teams."),
])
def test_a_denial_an_only_or_no_word_of_adding_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The current release branch is release/2.4.", "The current release branch is frozen."),
    ("The current release branch is frozen.", "The current release branch is release/2.4."),
    ("The worker log level is warn.", "The worker log level is overridden in tests."),
    ("The default branch is main.", "The default branch is not frozen."),
])
def test_an_irregular_participle_is_no_word_value(
        app: Waymarks, first: str, second: str) -> None:
    """"frozen" and "overridden" are what is done to the thing, as "protected" is, not
    which branch or level it is."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("value", "participle", "contradicting"), [
    ("The current release branch is release/2.4.", "The current release branch is frozen.",
     "The current release branch is release/2.5."),
    ("The worker log level is warn.", "The worker log level is overridden in tests.",
     "The worker log level is error."),
])
def test_beside_an_irregular_participle_another_word_value_still_contradicts(
        app: Waymarks, value: str, participle: str, contradicting: str) -> None:
    _written(app, value)
    _written(app, participle)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The public API is v2.", "The public API is rate-limited."),
    ("The public API is rate-limited.", "The public API is v2."),
    ("The export bucket is s3://exports.", "The export bucket is server-side-encrypted."),
])
def test_a_hyphenated_participle_beside_a_value_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"rate-limited" is done to the API as "protected" is to a branch."""
    _written(app, first)
    _written(app, second)


def test_beside_a_hyphenated_participle_another_value_still_contradicts(app: Waymarks) -> None:
    _written(app, "The public API is v2.")
    _written(app, "The public API is rate-limited.")
    _refused(app, "The public API is v3.")
