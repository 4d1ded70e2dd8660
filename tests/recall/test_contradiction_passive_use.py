"""A value used by a thing, said in the passive with the value first, is read as the thing
using it (``core/claim_frames.py``): "PostgreSQL 16 is used for the production database."
was written beside "The production database is hosted on PostgreSQL 14.", "Port 9000 is
used by the reporting service." beside "… is configured to listen on port 8000.", "Java
21 is required by the build." beside "The build is run on Java 17." (the value's name
led the subject; pairs of ``benchmarks/conflict_pairs_registers.json``). The pairs after
the first three were written after the change, in shapes the set lacks."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import second_refused_or_written
from waymarks.core.claim_frames import active
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("The production database is hosted on PostgreSQL 14.",
     "PostgreSQL 16 is used for the production database.", True),
    ("The reporting service is configured to listen on port 8000.",
     "Port 9000 is used by the reporting service.", True),
    ("The build is run on Java 17.", "Java 21 is required by the build.", True),
    # written after the change, shapes the set lacks
    ("The checkout service listens on port 7000.", "Port 7100 is used by the checkout service.",
     True),
    ("The worker uses Python 3.11.", "Python 3.12 is required by the worker.", True),
    ("Unit tests are run with pytest.", "unittest is used to run the unit tests.", True),
    # look-alikes: a purpose (no thing named), another thing, another use
    ("Python is used for scripting.", "Bash is used for scripting.", False),
    ("Port 9100 is used by the metrics exporter.", "Port 9000 is used by the reporting service.",
     False),
    ("PostgreSQL 16 is used for the analytics database.",
     "The production database runs PostgreSQL 14.", False),
    ("Redis is used for sessions.", "Redis is used for the rate limiter.", False),
])
def test_the_passive_of_use_is_the_thing_using_the_value(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    second_refused_or_written(app, first, second, conflict)


def test_only_one_clause_of_a_value_and_a_thing_is_turned() -> None:
    assert active("port 9000 is used by the reporting service.") == (
        "the reporting service uses port 9000.")
    for kept in ("python is used for scripting.", "the cache, which is used by the api, is "
                 "redis.", "redis is used by the api and by the worker, so keep it up."):
        assert active(kept) == kept
