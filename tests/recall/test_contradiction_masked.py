"""Another value said in other words, read with the values masked (issue 20 item 4,
``core/claim_masked.py``), written through the service (real session files, real
SQLite): "An invite link expires after 7 days." was written beside "Invite links stay
valid for 48 hours.", the two subjects differing by the words of their predicates. The
sentences here are none of the ``dev-masked`` set's (``benchmarks/conflict_pairs.json``),
which the check was measured on."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review61 import _written
from waymarks.core.claim_masked import masked, masked_conflict
from waymarks.core.decisions import Rejected
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Invite links stay valid for 48 hours.", "An invite link expires after 2 days.",
     "An invite link expires after 7 days."),
    ("The PDF renderer gives up after 20 seconds.", "The PDF renderer timeout is 20 seconds.",
     "The PDF renderer timeout is 60 seconds."),
])
def test_another_value_in_other_words_is_refused_naming_the_first(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    stored = _written(app, first)
    refused = app.remember(contradicting)
    assert isinstance(refused, Rejected) and refused.conflicts == (stored.id,), refused
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    # another named component, another environment, a word more naming another thing,
    # a range, a period beside a lifespan, another attribute, two values of one kind
    ("Invite links stay valid for 48 hours.", "Reset links stay valid for 2 hours."),
    ("Audit events are kept for 90 days.", "Billing events are kept for 30 days."),
    ("The staging media proxy gets 2 GB of memory.",
     "The production media proxy gets 4 GB of memory."),
    ("Sync runs at 02:00.", "Sync verification runs at 04:00."),
    ("The media proxy supports Node 18 through 22.", "The media proxy runs Node 20."),
    # a plain number of its own noun each: a port, a runtime's major version (the
    # everyday store's claims, refused by the first version of the check)
    ("The notifications service listens on port 8060.", "Notifications runs on Node 20."),
    ("Notifications runs on Node 20.", "The notifications service listens on port 8060."),
    ("The staging database runs Postgres 16.", "The staging database port is 5433."),
    ("Invite links stay valid for 48 hours.", "Invite links are refreshed every 6 hours."),
    ("The PDF renderer timeout is 60 seconds.", "The PDF renderer retry delay is 5 seconds."),
    ("The invite service answers on port 9300.", "The invite service version is 3.1."),
    ("The invite service answers on port 9300.",
     "The invite service serves HTTP on 9300 and metrics on 9301."),
])
def test_a_look_alike_is_another_fact(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
    assert not masked_conflict(second, first)


def test_each_typed_value_is_masked_by_its_kind() -> None:
    assert masked("Invite links stay valid for 48 hours.") == (
        "Invite links stay valid for DURATION .")
    assert masked("The nightly export runs at 3am UTC on https://x.example.com.") == (
        "The nightly export runs at TIME on URL .")
    assert masked("主数据库部署在 eu-west-1，磁盘 512 MB，占用 80%。") == (
        "主数据库部署在 REGION ，磁盘 SIZE ，占用 PERCENT 。")


def test_a_similarity_passed_in_decides_in_place_of_the_lexical_overlap() -> None:
    asked: list[tuple[str, str]] = []

    def far(one: str, other: str) -> float:
        asked.append((one, other))
        return 0.2

    first, second = "An invite link expires after 7 days.", "Invite links stay valid for 48 hours."
    assert masked_conflict(first, second)
    assert not masked_conflict(first, second, far)
    assert asked == [("An invite link expires after DURATION .",
                      "Invite links stay valid for DURATION .")]
    assert masked_conflict(first, second, lambda one, other: 0.95)
    # a look-alike the structure keeps apart is never asked about
    assert not masked_conflict("Reset links stay valid for 2 hours.", second, far)
    assert len(asked) == 1


def test_claims_whose_subjects_stand_apart_have_their_values_compared_no_further(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A write compares its claim with every claim sharing a term of it (up to 48 a
    term): the subjects are read first, and the values' forms (``agreeing``) only of two
    claims whose subjects may be one; same answers (benchmarks/conflict_pairs*.json and
    the concurrency benchmark's claims, 30,898 pairs: the same 1,059 conflicts)."""
    from waymarks.core import claim_values

    compared: list[object] = []
    real = claim_values.agreeing

    def counted(mine: object, theirs: object) -> object:
        compared.append((mine, theirs))
        return real(mine, theirs)  # type: ignore[arg-type]

    monkeypatch.setattr(claim_values, "agreeing", counted)
    # another component ("Redis" / "Postgres"), another environment: never one subject
    assert not masked_conflict("The Redis port is 6379.", "The Postgres port is 5432.")
    assert not masked_conflict("The staging API timeout is 30 seconds.",
                               "The production API timeout is 60 seconds.")
    assert compared == []
    assert masked_conflict("An invite link expires after 7 days.",
                           "Invite links stay valid for 48 hours.")
    assert len(compared) == 1
