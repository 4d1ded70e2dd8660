"""Value shapes and languages people type that the write-time check
(:func:`waymarks.core.contradiction.signature`) must read as they mean them. Each pair is
decided end to end, as a write of the second claim after the first (refused with the code
``conflict`` naming the first, or committed); the pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected


def _second_refused(app: Waymarks, first: str, second: str) -> bool:
    """Whether ``second``, written after ``first``, is refused as contradicting it."""
    stored = app.remember(first)
    assert isinstance(stored, Committed), stored
    decided = app.remember(second)
    if isinstance(decided, Rejected):
        assert decided.code == "conflict" and stored.id in decided.conflicts, decided
        return True
    assert isinstance(decided, Committed), decided
    return False


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The batch size is 10k.", "The batch size is 10000.", False),
    ("The batch size is 10K.", "The batch size is 10,000.", False),
    ("The import batch holds 1.5k rows.", "The import batch holds 1500 rows.", False),
    ("The batch size is 10k.", "The batch size is 20k.", True),
    ("The batch size is 10k.", "The batch size is 20000.", True),
    ("The import batch holds 10k rows.", "The import batch holds 20k rows.", True),
])
def test_a_count_in_thousands_is_its_number(app: Waymarks, first: str, second: str,
                                            conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


def test_thousands_that_are_no_whole_number_are_left_as_written() -> None:
    from waymarks.core.claim_values import thousands

    assert thousands("the limit is 1.5k, not 2.25k.") == "the limit is 1500, not 2250."
    assert thousands("the ratio is 1.2345k.") == "the ratio is 1.2345k."  # not "2469/2"
    assert thousands("k8s runs 3k pods") == "k8s runs 3000 pods"


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The build output directory is /srv/app/dist/.",
     "The build output directory is /srv/app/dist.", False),
    ("The frontend lives in src/web/.", "The frontend lives in src/web.", False),
    ("The cache directory is ~/.cache/app/.", "The cache directory is ~/.cache/app.", False),
    ("The build output directory is /srv/app/dist/.",
     "The build output directory is /srv/app/build/.", True),
    ("The build output directory is /srv/app/dist/.",
     "The build output directory is /srv/app/build.", True),
    ("The web root is /.", "The web root is /srv/www.", True),
])
def test_a_path_with_a_trailing_slash_is_the_path(app: Waymarks, first: str, second: str,
                                                  conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The database port changed from 5432 to 5433.", "The database port is 5433.", False),
    ("The database port is 5433.", "We moved the database port from 5432 to 5433.", False),
    ("The request timeout went from 30 seconds to 60 seconds.",
     "The request timeout is 60 seconds.", False),
    ("数据库端口从 5432 改为 5433。", "数据库端口是 5433。", False),
    ("The database port changed from 5432 to 5433.", "The database port is 5432.", True),
    ("The database port is 5432.", "The database port was changed from 5432 to 5433.", True),
    ("The request timeout is 30 seconds.",
     "The request timeout went from 30 seconds to 60 seconds.", True),
    ("数据库端口是 5432。", "数据库端口从 5432 改为 5433。", True),
    # a name between "from" and the value ("from port 5432 to port 5433")
    ("The database moved from port 5432 to port 5433.", "The database port is 5432.", True),
    ("The project moved from Python 3.11 to Python 3.12.", "The project uses Python 3.11.",
     True),
    ("The project moved from Python 3.11 to Python 3.12.", "The project uses Python 3.12.",
     False),
    # forwarded from one port to another: both hold, no change
    ("Traffic is forwarded from port 80 to port 8080.", "The proxy port is 80.", False),
])
def test_a_change_states_its_new_value(app: Waymarks, first: str, second: str,
                                       conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Release 2.0.0.1 shipped on 2026-11-02.", "Release 2.0.0.2 shipped on 2026-11-30.", False),
    ("Build 4.1.0.7 passed on 2026-11-02.", "Build 4.1.0.8 failed on 2026-11-03.", False),
    ("Release 2.0.0.1 shipped on 2026-11-02.", "Release 2.0.0.1 shipped on 2026-11-09.", True),
])
def test_a_four_part_version_before_a_verb_names_its_release(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The app version is 2.0.0.1.", "The app version is 2.1.0.", True),
    ("The agent runs version 2.0.0.1.", "The agent runs version 2.1.", True),
    ("The app version is 2.0.0.1.", "The app version is 2.0.0.2.", True),
    # an address is no port, a port no address
    ("The API listens on 0.0.0.0.", "The API port is 8080.", False),
    ("The gateway is 10.0.0.1.", "The gateway port is 8080.", False),
])
def test_a_four_part_version_is_compared_with_a_version(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The dev server listens on [::1]:8080.", "The dev server listens on [::1]:8081.", True),
    ("The DB host is 2001:db8::10.", "The DB host is 2001:db8::11.", True),
    ("The dev server listens on fe80::1.", "The dev server listens on ::1.", True),
    ("The dev server listens on [::1]:8080.", "The dev server port is 8080.", False),
    # an IPv6 address is where, not which port ("::1" was read as the port 1)
    ("The dev server listens on ::1.", "The dev server port is 8081.", False),
    ("The dev server listens on [::1].", "The dev server port is 8081.", False),
    ("The dev server listens on ::1.", "The dev server listens on [::1].", False),
    # a server listens on an address of each family: no other value
    ("The server listens on [::]:8080.", "The server listens on 0.0.0.0:8080.", False),
    ("The server listens on ::.", "The server listens on 0.0.0.0.", False),
    ("The server listens on [::]:8080.", "The server listens on 0.0.0.0:9090.", True),
])
def test_an_ipv6_address_is_one_value(app: Waymarks, first: str, second: str,
                                      conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The dev services use ports 8000-8010.", "The dev services use ports 8000-8020.", True),
    ("The dev services use ports 8000-8010.", "The dev services use port 9000.", True),
    ("The ephemeral ports are 49152-65535.", "The ephemeral ports are 32768-60999.", True),
    # a port inside the range is one of them, not another value
    ("The dev services use ports 8000-8010.", "The dev service uses port 8005.", False),
    # a hyphenated number after another name names it
    ("Build step 3-5 takes 5s.", "Build step 3-7 takes 7s.", False),
])
def test_a_range_of_ports_is_one_value(app: Waymarks, first: str, second: str,
                                       conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Python 3.12 supports pattern matching.", "Python 3.10 supports pattern matching.", False),
    ("Postgres 16.2 adds JSON_TABLE.", "Postgres 15.4 adds JSON_TABLE.", False),
    ("Python 3.11 is supported.", "Python 3.12 is supported.", False),
    ("The project uses Python 3.11.", "The project uses Python 3.12.", True),
])
def test_a_two_part_version_before_a_verb_names_its_subject(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Node 20.11.1 powers the build.", "Node 22.1.0 powers the build.", True),
    ("Node 20.11.1 powers the build.", "The build uses Node 22.1.0.", True),
    ("Postgres 16.2 backs the billing service.", "Postgres 15.4 backs the billing service.",
     True),
    ("Node 20.11.1 powers the build.", "The build uses Node 20.11.1.", False),
    # a whole number there names: two servers may power one API
    ("Server 1 powers the API.", "Server 2 powers the API.", False),
])
def test_a_version_that_powers_a_thing_is_its_value(app: Waymarks, first: str, second: str,
                                                    conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("データベースのポートは5432です。", "データベースのポートは5433です。", True),
    ("リクエストのタイムアウトは30秒です。", "リクエストのタイムアウトは60秒です。", True),
    ("ビルドのキャッシュは有効です。", "ビルドのキャッシュは無効です。", True),
    ("データベースのポートは5432です。", "The database port is 5433.", True),
    ("데이터베이스 포트는 5432입니다.", "데이터베이스 포트는 5433입니다.", True),
    ("요청 타임아웃은 30초입니다.", "요청 타임아웃은 60초입니다.", True),
    ("캐시가 활성화되어 있습니다.", "캐시가 비활성화되어 있습니다.", True),
    ("데이터베이스 포트는 5432입니다.", "数据库端口是 5433。", True),
    # the same subject, another attribute; another subject, the same attribute
    ("データベースのポートは5432です。", "データベースのホストはdb.internalです。", False),
    ("Redisのポートは6379です。", "Postgresのポートは5432です。", False),
    ("データベースのポート番号は5432です。", "データベースのポートは5432です。", False),
    ("데이터베이스 포트는 5432입니다.", "데이터베이스 호스트는 db.internal입니다.", False),
    ("Redis 포트는 6379입니다.", "Postgres 포트는 5432입니다.", False),
    ("요청 타임아웃은 30초입니다.", "요청 재시도 횟수는 3입니다.", False),
    ("데이터베이스 포트는 5432입니다.", "The database port is 5432.", False),
    ("A 서비스는 8080 포트를 사용합니다.", "B 서비스는 8081 포트를 사용합니다.", False),
    ("Aサービスは8080ポートを使います。", "Bサービスは8081ポートを使います。", False),
    ("스테이징 데이터베이스 포트는 5433입니다.", "운영 데이터베이스 포트는 5432입니다.", False),
])
def test_japanese_and_korean_claims_are_read_as_chinese_ones_are(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The cache TTL is 90 seconds.", "The cache TTL is 1 minute 30 seconds.", False),
    ("The cache TTL is 90 minutes.", "The cache TTL is 1h30m.", False),
    ("The request timeout is 1.5 seconds.", "The request timeout is 1 second 500 ms.", False),
    ("캐시 TTL은 90초입니다.", "캐시 TTL은 1분 30초입니다.", False),
    ("缓存过期时间是 90 秒。", "缓存过期时间是 1 分钟 30 秒。", False),
    ("The cache TTL is 90 seconds.", "The cache TTL is 1 minute 45 seconds.", True),
    ("The cache TTL is 1h30m.", "The cache TTL is 2h.", True),
])
def test_a_duration_in_two_units_is_their_sum(app: Waymarks, first: str, second: str,
                                              conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The retry limit is 3 (was 5).", "The retry limit is 5.", True),
    ("The retry limit is 5.", "The retry limit is 3 (was 5).", True),
    ("The retry limit is 3 (was 5).", "The retry limit is 3.", False),
    # "was" that is no aside about the value
    ("The retry limit was 5 for the import job.", "The retry limit is 3.", True),
])
def test_a_value_in_an_aside_of_was_is_a_former_one(app: Waymarks, first: str, second: str,
                                                    conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The connect timeout is 5 minutes.",
     "The connect timeout is 5m, 30s is the read timeout.", False),
    ("The cache TTL is 1 hour.", "The cache TTL is 1h, 5m for negative entries.", False),
    ("The cache TTL is 90 seconds.", "The cache TTL is 1 minute and 30 seconds.", False),
    ("The connect timeout is 5 minutes.",
     "The connect timeout is 6m, 30s is the read timeout.", True),
])
def test_two_durations_a_comma_separates_are_no_sum(app: Waymarks, first: str, second: str,
                                                   conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Redis is at 10.0.0.7.", "Redis is version 7.2.", False),
    ("Redis is at 10.0.0.7.", "Redis is version 7.2.4.", False),
    ("The database is at 10.0.0.5.", "The database is Postgres 15.4.", False),
    ("Postgres is on 10.0.0.5.", "Postgres is 15.4.", False),
    # a four-part version is still one, said of a version
    ("The app version is 2.0.0.1.", "The app version is 2.1.", True),
    ("Redis is at 10.0.0.7.", "Redis is at 10.0.0.8.", True),
])
def test_an_address_is_no_version(app: Waymarks, first: str, second: str,
                                  conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Users number 2000.", "Migrated users number 1500.", False),
    ("Requests are capped at 200.", "Dropped requests are capped at 100.", False),
    ("The timeout is 30 seconds.", "The reduced timeout is 10 seconds.", False),
    ("Records are kept 90 days.", "Updated records are kept 30 days.", False),
    ("Nodes run kernel 5.15.", "Upgraded nodes run kernel 6.1.", False),
    # the same words as verbs of a change are still no subject words
    ("The heap is 2 GB.", "The heap grew from 2 GB to 4 GB.", True),
    ("The limit is 100.", "The limit was raised to 200.", True),
    ("Node is 20.", "Bumped Node to 22.", True),
    ("Postgres is 15.", "We upgraded Postgres from 15 to 16.", True),
])
def test_a_change_word_before_its_noun_names_a_narrower_thing(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("节点数量是 5。", "从节点数量是 2。", False),
    ("服务器数量是 10。", "从服务器数量是 4。", False),
    # 从 and 由 before the value a change started from are still no subject words
    ("数据库端口是 5432。", "数据库端口从 5432 改为 5433。", True),
    ("数据库端口是 5432。", "数据库端口由5432改为5433。", True),
    ("服务路由 = 8080。", "服务路由 = 8081。", True),  # 路由 a word, at the run's end too
])
def test_a_replica_is_no_from(app: Waymarks, first: str, second: str, conflict: bool) -> None:
    assert _second_refused(app, first, second) is conflict
