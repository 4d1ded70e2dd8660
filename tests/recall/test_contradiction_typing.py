"""Claims as people type them, reviewed: a typographic apostrophe ("isn’t", as macOS,
iOS and Slack write it), the n't auxiliaries ("doesn't listen"), numbered subjects
("TLS 1.0", "API v1") and thousands separators ("1,500 tests"). The write-time check
(:func:`waymarks.core.contradiction.signature`) must read them as their plain forms;
their pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from waymarks.core.contradiction import contradicts, signature
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected


def _conflict(first: str, second: str) -> bool:
    a, b = signature(first), signature(second)
    return a is not None and b is not None and contradicts(a, b)


@pytest.mark.parametrize(("first", "second"), [
    ("The DB port is 5432.", "The DB port isn\u2019t 5432."),
    ("Debug mode is enabled.", "Debug mode isn\u2019t enabled."),
    ("Debug mode is enabled.", "Debug mode isn\u2018t enabled."),
    ("The DB replicas aren\u02bct enabled.", "The DB replicas are enabled."),
])
def test_a_typographic_apostrophe_still_negates(first: str, second: str) -> None:
    assert _conflict(first, second)
    assert _conflict(first, second.replace("\u2019", "'").replace("\u2018", "'")
                     .replace("\u02bc", "'"))


@pytest.mark.parametrize(("first", "second"), [
    ("The API server listens on port 8080.", "The API server doesn't listen on port 8080."),
    ("The worker pool size is 8.", "The worker pool size wasn't 8."),
    ("Debug mode is enabled.", "Debug mode can't be enabled."),
    ("Debug mode is enabled.", "Debug mode won't be enabled."),
    ("Debug mode is enabled.", "Debug mode cannot be enabled."),
    # the stem "aren" of "aren't" was a subject term: "replica" alone was not contained
    ("The replicas are enabled.", "The replicas aren't enabled."),
    # typed without the apostrophe, as quick typing and some phone keyboards leave it
    ("The API server listens on port 8080.", "The API server doesnt listen on port 8080."),
    ("Feature flag new-checkout is enabled.", "Feature flag new-checkout isnt enabled."),
    ("The replicas are enabled.", "The replicas arent enabled."),
])
def test_an_nt_auxiliary_negates(first: str, second: str) -> None:
    assert _conflict(first, second)


@pytest.mark.parametrize(("stated", "other", "denied"), [
    # "isn’t 6379" beside "is 6380" states no other value: it was refused, while the
    # denial of the value stated is
    ("The staging cache port is 6380.", "The staging cache port isn\u2019t 6379.",
     "The staging cache port isn\u2019t 6380."),
    ("The API server listens on port 8080.", "The API server doesn't listen on port 8081.",
     "The API server doesn't listen on port 8080."),
    ("The API server listens on port 8080.", "The API server doesnt listen on port 8081.",
     "The API server doesnt listen on port 8080."),
])
def test_a_denial_of_another_value_is_compatible(app: Waymarks, stated: str, other: str,
                                                 denied: str) -> None:
    assert isinstance(app.remember(stated), Committed)
    assert isinstance(app.remember(other), Committed)
    refused = app.remember(denied)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused


@pytest.mark.parametrize(("first", "second"), [
    ("TLS 1.0 is disabled.", "TLS 1.2 is enabled."),
    ("Python 3.11 is required.", "Python 3.12 is optional."),
    ("API v1 is disabled.", "API v2 is enabled."),
])
def test_a_dotted_or_v_number_naming_the_subject_is_part_of_it(
        app: Waymarks, first: str, second: str) -> None:
    """Issue 42's rule for "TLS 1.0" and "API v1": the dot cut "tls-n1.0" to "tls-n1", and
    a v-number was a value, so two versions were one subject with two states."""
    assert not _conflict(first, second)
    assert isinstance(app.remember(first), Committed)
    assert isinstance(app.remember(second), Committed)
    # the same numbered thing in the other state is still refused
    opposite = first.replace("disabled", "enabled").replace("required", "optional")
    assert _conflict(first, opposite)
    refused = app.remember(opposite)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The test suite has 1500 tests.", "The test suite has 1,500 tests.", False),
    ("The test suite has 1,500 tests.", "The test suite has 2,500 tests.", True),
    ("The row limit is 1,000,000.", "The row limit is 1000000.", False),
    ("测试套件有 1,500 个测试。", "测试套件有 2,500 个测试。", True),
    # only groups of three digits: a list and a decimal comma are not one number
    ("Retry delays are 1,2,3 seconds.", "Retry delays are 1, 2, 3 seconds.", False),
    ("The cache holds 1,024 MB.", "The cache holds 1024 MB.", False),
    ("The cache holds 1,024 MB.", "The cache holds 2,048 MB.", True),
    # before a stop word or the clause's end, three-digit groups are a list (one number,
    # "80,443" was refused beside "port 443")
    ("The web server listens on port 443.", "The web server listens on ports 80,443.", False),
    ("The gateway retries on status 502, 503 and 504.",
     "The gateway retries on status 502,503,504.", False),
    ("The SMTP relay port is 587.", "The SMTP relay ports are 25,587 and 465.", False),
    # a rate and an amount at the clause's end are one number (read as lists, "1,500 per
    # minute" agreed with "2,500 per minute" and "$1,500." was refused beside "$1500.")
    ("The API rate limit is 1,500 per minute.", "The API rate limit is 2,500 per minute.", True),
    ("The API rate limit is 1,200 per minute.", "The API rate limit is 1200 per minute.", False),
    ("The license costs $1,500.", "The license costs $1500.", False),
    ("The max port is 65,535.", "The max port is 65535.", False),
    # a list without a word naming several before it, and round thousands after one
    ("The firewall allows 443.", "The firewall allows 80,443.", False),
    ("The gateway retries on 503.", "The gateway retries on 502,503,504 and 429.", False),
    ("The limit on open ports is 10,000.", "The limit on open ports is 20,000.", True),
    ("The max open ports is 1,000.", "The max open ports is 1000.", False),
    # with no unit, noun, rate, round group or currency, both a list and a number: the
    # same amount written two ways, or a list in another order, agrees
    ("The rate limit is set to 1,500.", "The rate limit is set to 1500.", False),
    ("The daily quota was raised to 12,500.", "The daily quota is 12500.", False),
    ("The allowlist is 80,443.", "The allowlist is 443,80.", False),
    ("The rate limit is set to 1,500.", "The rate limit is set to 2,000.", True),
])
def test_a_thousands_separator_is_one_number(first: str, second: str, conflict: bool) -> None:
    """"1,500" was the values 1 and 500: the same count refused, and 2,500 (sharing 500)
    accepted beside it."""
    assert _conflict(first, second) is conflict


def test_a_decimal_comma_is_not_a_thousands_group() -> None:
    found = signature("The ratio is 3,5.")
    assert found is not None and found.values == {"v:3", "v:5"}


def test_a_dotted_capital_i_is_an_i() -> None:
    assert _conflict("The İzmir cluster port is 5432.", "The Izmir cluster port is 5433.")
    assert not _conflict("The İzmir cluster port is 5432.", "The Izmir cluster port is 5432.")


@pytest.mark.parametrize(("first", "second"), [
    ("The cache is enabled in staging.", "The cache is 512 MB, so don't raise it."),
    ("The build cache is enabled.", "The build cache is 2 GB; we don't prune it."),
    ("The API timeout is 30 seconds.", "The API timeout is 30 seconds, and retries don't apply."),
    # two sentences are two clauses too (the reversed-text splitter never split at ". ")
    ("The build cache is enabled.", "The build cache is 2 GB. We don't prune it."),
])
def test_a_negation_in_another_clause_keeps_no_claim_in_conflict(
        app: Waymarks, first: str, second: str) -> None:
    """With every n't a negation, one in a clause stating no value ("so don't raise it")
    was a negation whose object is not known: the new claim could not be kept apart from
    one it only shares a derived key with, and was refused (the last agrees on 30 s)."""
    assert isinstance(app.remember(first), Committed)
    assert isinstance(app.remember(second), Committed)


@pytest.mark.parametrize(("first", "second"), [
    ("The installer runs on port 8080", "The installer uses --dont-ask and runs on port 8080"),
    ("Autoupdate is enabled.", "Autoupdate is enabled, see didnt.md"),
    ("The dont-retry flag is on.", "The dont-retry flag is on, as before."),
])
def test_an_nt_word_inside_an_identifier_or_a_file_name_negates_nothing(first: str,
                                                                          second: str) -> None:
    """A re-read: with the apostrophe optional, the `dont` of `--dont-ask` denied the port
    and a true claim was refused as a conflict."""
    assert not _conflict(first, second)


@pytest.mark.parametrize("claim", [
    "The cache speedup is 1.5x.", "The release is 3.2rc.", "Python here is 3.12a.",
    "The lens zoom is 2.5x"])
def test_a_dotted_number_with_letters_that_are_no_unit_is_a_value(
        claim: str, app: Waymarks) -> None:
    """"1.5x" is read whole (a dotted name, as ``3.2.1`` is): its letters were taken for a
    size's unit and looked up in ``bkmgt``, and `memory add` ended in a ValueError
    traceback for such a claim (a rebuild, which now signs every claim, would too)."""
    found = signature(claim)
    assert found is not None and found.values == frozenset({"v:" + claim.split()[-1]
                                                            .rstrip(".")})
    assert isinstance(app.remember(claim), Committed)


def test_a_dotted_name_with_letters_is_compared_whole() -> None:
    assert _conflict("The cache speedup is 1.5x.", "The cache speedup is 2.5x.")
    assert not _conflict("The cache speedup is 1.5x.", "The cache speedup is 1.5x now.")
    assert signature("The heap limit is 1.5g.") == signature("The heap limit is 1.5 GB.")
