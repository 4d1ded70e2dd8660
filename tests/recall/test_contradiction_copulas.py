"""Issue 20 item 4's known miss of a word value after a modal copula, written through the
service (real session files, real SQLite): "The log level should be debug." beside "The
log level is info." (only "is" read the word after an attribute whose values are words,
so the claim stated no value and both were written). The pairs are in the fixture set
too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The log level is info.", "The log level should be info.", "The log level should be debug."),
    ("The log level should be debug.", "The log level is debug.", "The log level is info."),
    ("The log level must be warn.", "The log level is set to warn.",
     "The log level is set to error."),
    ("The log level defaults to info.", "The log level will be info.",
     "The log level should be warn."),
    ("The log level is debug.", "The log level must be debug.",
     "The log level should not be debug."),
])
def test_a_modal_copula_states_the_word(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The log level should be debug.", "The log format should be json."),
    ("The log level is info.", "The log level should be configurable."),
    ("The log level is info.", "The log level should be raised."),
])
def test_what_may_be_done_to_it_is_no_value(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The log level is info.", "The log level is still info.",
     "The log level was changed to debug."),
    ("The log level is info.", "The log level was changed to info.",
     "The log level has been set to debug."),
    ("The default branch is main.", "The default branch is currently main.",
     "The default branch was switched to master."),
])
def test_an_adverb_or_a_change_before_the_word(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"is still info" was refused beside "is info" (read as no value, the replay rule's
    derived keys differed), and "was changed to debug" written beside it."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)
