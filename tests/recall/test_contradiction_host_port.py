"""A host name with its port, written through the service (real session files, real
SQLite): "The SMTP relay is smtp.example.com:587." beside "… smtp.example.com:25." (read as
a host and a port apart, the host in common was taken for agreement, and both were
written). The pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _both_written, _refused
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


@pytest.mark.parametrize(("stored", "changed"), [
    ("The SMTP relay is smtp.example.com:587.", "The SMTP relay is smtp.example.com:25."),
    ("The SMTP relay is smtp.example.com:587.", "The SMTP relay is mail.example.com:587."),
    ("Postgres is at db.internal:5432.", "Postgres is at db.internal:6432."),
    # (the word after 是 ended at the host's full stop: "db", the host and port none)
    ("数据库地址是 db.internal:5432。", "数据库地址是 db.internal:6432。"),
])
def test_a_host_with_its_port_is_one_value_beside_another(
        app: Waymarks, stored: str, changed: str) -> None:
    assert isinstance(app.remember(stored), Committed)
    _refused(app, changed)


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The SMTP relay is smtp.example.com:587.", "The SMTP relay port is 587.",
     "The SMTP relay port is 25."),
    ("The SMTP relay is smtp.example.com:587.", "The SMTP relay host is smtp.example.com.",
     "The SMTP relay host is mail.example.com."),
])
def test_a_host_with_its_port_states_the_host_and_the_port(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """Each part still agrees with the host or the port stated alone, as an IP address's
    do."""
    _both_written(app, first, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Postgres is at db.internal:5432.", "Postgres is version 16."),
    ("Postgres is at 10.0.0.5:5432.", "Postgres is version 16."),
    ("Redis listens on 0.0.0.0:6379.", "The Redis version is 7."),
])
def test_the_port_of_an_address_is_no_version(app: Waymarks, first: str, second: str) -> None:
    """A number said of a version is no port: the address's port was compared with it, and
    the replay rule's shared derived key ("postgres") refused the version beside the
    address."""
    _both_written(app, first, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The Redis host is cache.prod.example.com.", "Redis runs on cache.prod.example.com.",
     "Redis runs on cache2.prod.example.com."),
    ("The Postgres port is 5432.", "Postgres is at db.internal:5432.",
     "Postgres is at db.internal:6432."),
    ("The Postgres port is 5432.", "Postgres is at 10.0.0.5:5432.",
     "Postgres is at 10.0.0.5:6432."),
])
def test_a_thing_at_an_address_states_its_host_and_port(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """A subject of one word ("Redis", "Postgres") with an address or a host name after its
    verb states where it runs, its host (and port): a subject of one term contained no
    other, and "Redis runs on cache2…" was written beside "The Redis host is cache…"."""
    assert isinstance(app.remember(first), Committed)
    _refused(app, contradicting)
    assert isinstance(app.remember(restated), Committed)


@pytest.mark.parametrize(("first", "second"), [
    ("Redis runs on cache.prod.example.com.", "The Redis port is 6379."),
    ("Postgres is at db.internal:5432.", "The Postgres user is app."),
    ("The API listens on 0.0.0.0:8080.", "The API host is api.internal."),
    ("Redis is at cache.internal.", "Redis is version 7.2."),
    # a dotted name after no "on" or "at" is no host: a file
    ("Nginx is configured in nginx.conf.", "The Nginx host is web1.internal."),
])
def test_the_address_of_a_thing_is_none_of_its_other_attributes(
        app: Waymarks, first: str, second: str) -> None:
    _both_written(app, first, second)
