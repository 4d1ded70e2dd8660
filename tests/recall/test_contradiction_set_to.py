"""An imperative setting a thing to a value, a commit's or a ticket's subject, is read as
the statement it makes (``core/claim_frames.py``): "Set log level to DEBUG in prod" was
written beside "Prod log level: WARN", "Rename default branch to main" beside "Default
branch is trunk" (no value read of the imperative; pairs of
``benchmarks/conflict_pairs_registers.json``). The pairs after the first two were written
after the change, in shapes the set lacks."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import second_refused_or_written
from waymarks.core.claim_frames import active
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Set log level to DEBUG in prod", "Prod log level: WARN", True),
    ("Rename default branch to main", "Default branch is trunk", True),
    # written after the change, shapes the set lacks
    ("Set the default theme to dark", "The default theme is light.", True),
    # look-alikes: another attribute, another environment, "set up"
    ("Set the log format to json", "Set the log level to info", False),
    ("Switch the staging region to eu-west-1", "Switch the production region to us-east-1",
     False),
    ("Set log level to DEBUG in dev", "Set log level to WARN in prod", False),
])
def test_an_imperative_setting_a_value_states_it(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    second_refused_or_written(app, first, second, conflict)


def test_only_one_clause_setting_one_value_is_read_so() -> None:
    assert active("set log level to debug in prod") == "log level is debug in prod"
    assert active("rename the default branch to main.") == "default branch is main."
    for kept in ("set up the theme editor to preview changes",
                 "set the log level to debug, then restart the worker",
                 "change the flag to on and the timeout to 30s"):
        assert active(kept) == kept
