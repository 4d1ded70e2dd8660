"""Review 57: new claim pairs a team stores (not the fixture set's), where the write-time
contradiction check (:func:`waymarks.core.contradiction.signature`) refused a legitimate
write: each pair is two facts that both hold, written through the service (real session
files, real SQLite), and the contradiction each one's twin states is still refused."""

from __future__ import annotations

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected


def _both_written(app: Waymarks, first: str, second: str) -> None:
    assert isinstance(app.remember(first), Committed)
    written = app.remember(second)
    assert isinstance(written, Committed), written


def _refused(app: Waymarks, claim: str) -> None:
    refused = app.remember(claim)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("HTTP is served on port 80.", "HTTPS is served on port 443.",
     "HTTPS is served on port 8443."),
    ("The SMTP port is 25.", "The SMTPS port is 465.", "The SMTPS port is 587."),
    ("The LDAP port is 389.", "The LDAPS port is 636.", "The LDAPS port is 637."),
    ("The HTTP timeout is 30 seconds.", "The HTTPS timeout is 60 seconds.",
     "The HTTPS timeout is 90 seconds."),
    ("HTTP 端口是 80。", "HTTPS 端口是 443。", "HTTPS 端口是 8443。"),
])
def test_a_protocol_over_tls_is_not_the_plural_of_the_protocol(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"https" lost its "s" as a plural does, so HTTPS was HTTP: a claim about the HTTPS
    port was refused as a conflict with the HTTP port's."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The docs site is https://docs.example.com/.", "The docs site is https://docs.example.com.",
     "The docs site is https://developer.example.com."),
    ("The API base URL is https://api.example.com/v1/.",
     "The API base URL is https://api.example.com/v1.",
     "The API base URL is https://api.example.com/v2."),
    ("The deploy script is ./scripts/deploy.sh.", "The deploy script is scripts/deploy.sh.",
     "The deploy script is scripts/release.sh."),
    ("API 文档地址是 https://docs.example.com/。", "API 文档地址是 https://docs.example.com。",
     "API 文档地址是 https://developer.example.com。"),
])
def test_a_url_or_path_is_one_value_however_its_slashes_are_written(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """A trailing slash on a URL and a leading ``./`` on a relative path made another
    value: the same place restated was refused as a conflict."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The API version is v2.", "The API version is 2.0.", "The API version is 3.0."),
    ("Python 3.12 is the default.", "The default Python is 3.12.0.",
     "The default Python is 3.13.0."),
    ("We use Node 20.", "We use Node 20.11.1.", "We use Node 22.4.0."),
    ("The SDK version is 1.4.", "The SDK version is 1.4.2.", "The SDK version is 1.5.0."),
    ("Go 版本是 1.22。", "Go 版本是 1.22.3。", "Go 版本是 1.21.9。"),
])
def test_a_version_and_its_release_are_one_value(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """``2.0`` was another value than ``2`` and the release ``20.11.1`` another than the
    version ``20``: a restatement, or the exact release of the version stored, was
    refused as a conflict."""
    _both_written(app, first, second)
    _refused(app, contradicting)


def test_a_release_of_another_version_and_a_decimal_still_differ(app: Waymarks) -> None:
    assert isinstance(app.remember("The SDK version is 1.2.3."), Committed)
    _refused(app, "The SDK version is 1.2.4.")
    assert isinstance(app.remember("The sample rate is 1."), Committed)
    _refused(app, "The sample rate is 1.5.")


@pytest.mark.parametrize(("first", "second"), [
    ("The SDK version is 2.0.0.", "The SDK version is 2.0.1."),
    ("We run Postgres 16.0.0.", "We run Postgres 16.0.2."),
    ("The default Python is 3.12.0.", "The default Python is 3.12.1."),
    ("The SDK version is 2.0.", "The SDK version is 2.5.1."),
])
def test_a_release_ending_in_zero_is_no_version_line(app: Waymarks, first: str,
                                                     second: str) -> None:
    """With its trailing zero parts dropped, the release ``2.0.0`` was the version ``2``,
    of which ``2.0.1`` is a release: the next patch release was accepted beside the one
    stored, both sent to the model as in effect (and ``2.0``, dropped to ``2``, agreed
    with ``2.5.1``). A release written with three parts is no line of releases."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, second)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("Release 2.3.0 shipped on 2026-11-02.", "Release 2.4.0 shipped on 2026-11-30.",
     "Release 2.3.0 shipped on 2026-11-05."),
    ("Release v2.3.0 shipped on 2026-11-02.", "Release v2.4.0 shipped on 2026-11-30.",
     "Release v2.4.0 shipped on 2026-12-01."),
    ("Python 3.12.1 fixes the asyncio leak.", "Python 3.12.0 has the asyncio leak.", None),
])
def test_a_release_named_before_its_verb_is_part_of_the_subject(
        app: Waymarks, first: str, second: str, contradicting: str | None) -> None:
    """A dotted version between a name and a verb other than "is" was a value (a plain
    number there names the subject, "rack 3 holds …"): two releases shipped on two dates
    were one subject with two values each, and the second release was refused."""
    _both_written(app, first, second)
    if contradicting is not None:
        _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The API port is 8080.", "The API listens on 0.0.0.0:8080.",
     "The API listens on 0.0.0.0:8081."),
    ("The API port is 8080.", "The API listens on 0.0.0.0.", "The API port is 9090."),
    ("The API listens on 127.0.0.1.", "The API port is 8080.", "The API listens on 0.0.0.0."),
    ("The database host is 10.0.0.5.", "The database port is 5432.",
     "The database host is db.internal."),
])
def test_an_ipv4_address_is_where_a_service_listens_not_its_port(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """An IPv4 address was a number like a port ("listens" is the port's word), and an
    address with its port one value: "The API listens on 0.0.0.0:8080." was refused
    beside "The API port is 8080."; an address is still compared with another address or
    a host name."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("stored", "changed"), [
    ("The API listens on 0.0.0.0:8080.", "The API listens on 0.0.0.0:8081."),
    ("The API listens on 0.0.0.0:8080.", "The API listens on 127.0.0.1:8080."),
    ("Postgres is at 10.0.0.5:5432.", "Postgres is at 10.0.0.5:6432."),
])
def test_an_address_with_its_port_is_one_value_beside_another(
        app: Waymarks, stored: str, changed: str) -> None:
    """Split into its address and its port, an address with a port agreed with another on
    either part: the port changed at the same address (or the address at the same port)
    was accepted beside the stored claim, both sent to the model as in effect. Each part
    still agrees with the address or the port stated alone."""
    assert isinstance(app.remember(stored), Committed)
    _refused(app, changed)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("API 文档地址是 https://docs.example.com。", "API 文档地址是https://docs.example.com。",
     "API 文档地址是https://developer.example.com。"),
    ("构建镜像是 python:3.12-slim。", "构建镜像是python:3.12-slim。",
     "构建镜像是python:3.11-slim。"),
    ("版本是 2.3.0。", "版本是v2.3.0。", "版本是v2.4.0。"),
    ("版本是 2.3.0。", "版本是 v2.3.0。", "版本是 v2.4.0。"),
])
def test_a_value_typed_right_after_a_chinese_character_is_read_whole(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """Chinese is typed with no space before a value; a Chinese character is a word
    character to Python's ``\\w``, so a URL or an image reference after one lost its
    start ("https", "python:" became subject words) and a ``v`` version after ``是`` was
    the word ``v2.3.0``, not ``2.3.0``: each restatement was refused as a conflict."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The data folder is /srv/données/app.", "Our data folder is /srv/données/app.",
     "The data folder is /srv/données/web."),
    ("The uploads go to /home/josé/uploads.", "Uploads go to /home/josé/uploads.",
     "The uploads go to /home/maría/uploads."),
    ("缓存目录是/srv/café/cache。", "缓存目录是 /srv/café/cache。", "缓存目录是/srv/café/tmp。"),
])
def test_a_path_with_a_letter_outside_ascii_is_one_value(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """Read with ASCII word characters (for the values typed after a Chinese character), a
    path was cut at its first letter outside ASCII: ``/srv/données/app`` was the values
    ``/srv/donn`` and ``es/app``, and ``/srv/données/web`` agreed with it on the first,
    so the other folder was written beside the stored one. Only a Chinese character is
    left out of a value's word characters now."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("stored", "changed"), [
    ("默认分支是 main。", "默认分支是 v2-stable。"),
    ("默认分支是 v1-lts。", "默认分支是 v2-lts。"),
    ("log_level = debug", "log_level = v2trace"),
])
def test_a_word_that_starts_like_a_version_is_a_value(app: Waymarks, stored: str,
                                                       changed: str) -> None:
    """The word after 是 or = was skipped when it started with v and a digit, so that the
    number rule read "v2.3.0" as 2.3.0; a word the number rule cannot read ("v2-stable",
    "v1-lts") was then no value at all, the claim had no signature, and another branch
    was accepted beside the stored one."""
    assert isinstance(app.remember(stored), Committed)
    _refused(app, changed)


def test_a_date_typed_right_after_a_chinese_character_is_a_value(app: Waymarks) -> None:
    """"发布日期是2026-12-20。" had no signature (the date was not read), so another
    date was not refused."""
    assert isinstance(app.remember("发布日期是 2026-12-20。"), Committed)
    _refused(app, "发布日期是2026-12-22。")


def test_a_date_written_in_chinese_is_the_iso_date(app: Waymarks) -> None:
    """"2026年12月20日" was three numbers: another value than 2026-12-20 (a restatement
    refused) and one agreeing with 2026年12月22日 (sharing 2026 and 12: not refused)."""
    assert isinstance(app.remember("发布日期是 2026年12月20日。"), Committed)
    assert isinstance(app.remember("发布日期是 2026-12-20。"), Committed)
    _refused(app, "发布日期是 2026年12月22日。")
    _refused(app, "发布日期是 2026-12-22。")


@pytest.mark.parametrize(("former", "current"), [
    ("The database port used to be 5432.", "The database port is 5433."),
    ("The database port was 5432 before the migration.", "The database port is 5433."),
    ("The database port was 5432 until 2025-01-10.", "The database port is 5433."),
    ("The DB port was previously 5432.", "The DB port is 5433."),
    ("数据库端口以前是 5432。", "数据库端口是 5433。"),
])
def test_a_value_held_before_is_no_conflict_with_the_value_now(
        app: Waymarks, former: str, current: str) -> None:
    """The history of a fact ("used to be 5432", "was 5432 until …") read as the value it
    states now: the value that replaced it was refused as a conflict. It now denies the
    value, as a negation does, so saying the old value holds now is refused for it too."""
    said = app.remember(former)
    assert isinstance(said, Committed)
    assert isinstance(app.remember(current), Committed)
    refused = app.remember(current.replace("5433", "5432"))
    assert isinstance(refused, Rejected) and said.id in refused.conflicts, refused


def test_a_change_made_before_a_time_still_holds(app: Waymarks) -> None:
    """"was changed to 5433 before the release" states the value now, not a former one."""
    assert isinstance(app.remember("The database port was changed to 5433 before the release."),
                      Committed)
    _refused(app, "The database port is 5432.")


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("Redis is version 7.2.", "Redis is at redis://cache:6379.", "Redis is at redis://cache2:6379."),
    ("Postgres is version 16.", "Postgres is at postgres://db.internal:5432/app.",
     "Postgres is at postgres://db2.internal:5432/app."),
])
def test_a_url_and_a_number_are_two_attributes(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """A URL was a value of the kind a version is: "Redis is at redis://cache:6379." was
    refused beside "Redis is version 7.2." (one derived key, "redis", and no sign of two
    facts). A URL is an address now, compared with another address or a name."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The coverage threshold is 80%.", "The coverage threshold is 80.0%.",
     "The coverage threshold is 85%."),
    ("The error budget is 0.1%.", "The error budget is 0.10%.", "The error budget is 0.5%."),
    ("The rate limit is 100 requests per minute.",
     "The rate limit is 100.0 requests per minute.",
     "The rate limit is 120 requests per minute."),
])
def test_a_percentage_or_a_rate_is_one_value_with_trailing_zeros(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"80.0%" was another value than "80%" (a duration or a size is counted, these were
    compared as written): the restatement was refused as a conflict."""
    _both_written(app, first, second)
    _refused(app, contradicting)


def test_a_fractional_duration_is_its_amount(app: Waymarks) -> None:
    """1.5 seconds is kept as the fraction 3/2, and a bare number was compared with its
    numerator: "The timeout is 1.5." was refused beside "… 1.5 seconds." (its own amount,
    which docs/conflicts.md says agrees), and "The timeout is 3." was not refused."""
    assert isinstance(app.remember("The request timeout is 1.5 seconds."), Committed)
    assert isinstance(app.remember("The request timeout is 1.5."), Committed)
    _refused(app, "The request timeout is 3.")
