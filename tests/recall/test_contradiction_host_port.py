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
