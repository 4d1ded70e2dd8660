"""Two lanes for one test suite: ``pytest -m "not slow"`` (the fast lane) and everything.

Tests marked ``slow`` (the real Pi and Claude Code from npm, MCP servers in subprocesses,
crash and concurrency soaks, long property runs, any other test measured at 0.3 s or more
on a quiet machine) run only in the full suite:
``scripts/test.sh`` and CI run all of them. A property keeps a cheap run in the fast lane
and its long run marked slow, both from one body::

    def check_round_trip(value: str) -> None:
        assert decode(encode(value)) == value

    @lanes(quick=30, long=300)
    def test_round_trip(examples: int) -> None:
        run_property(examples, check_round_trip, st.text())

What must stay true: the long run is the run the property had before the fast lane
existed (same settings, same number of examples), so the full suite loses nothing. A
property that sets no number of examples runs half Hypothesis' default in the fast lane
(``tests/conftest.py``: ``FAST_LANE_EXAMPLES``) and the default in the whole suite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis.strategies import SearchStrategy


def lanes(quick: int, long: int) -> pytest.MarkDecorator:
    """Parametrize ``examples``: ``quick`` in the fast lane, ``long`` as a slow test."""
    return pytest.mark.parametrize("examples", [
        pytest.param(quick, id="quick"),
        pytest.param(long, id="long", marks=pytest.mark.slow)])


def run_property(examples: int, check: Callable[..., None], *strategies: SearchStrategy[Any],
                 base: settings | None = None, **named: SearchStrategy[Any]) -> None:
    """Run ``check`` as a property: ``examples`` generated cases, the rest of the settings
    from ``base``."""
    settings(base, max_examples=examples)(given(*strategies, **named)(check))()
