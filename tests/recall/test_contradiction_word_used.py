"""Issue 20 item 4's known miss of a word value after a verb of using, written through
the service (real session files, real SQLite): "We use the debug log level." beside "The
log level is info." (no copula, so no value: both were written). The pairs are in the
fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The log level is info.", "We use the info log level.", "We use the debug log level."),
    ("We use the debug log level.", "The log level is debug.", "The log level is info."),
    ("The log level is warn.", "The service uses the warn log level.",
     "The service uses the debug log level."),
    ("The deploy region is us-east-1.", "Deploys use the us-east-1 region.",
     "Deploys use the eu-west-1 region."),
    ("The log level is info.", "We run with the info log level.",
     "We don't use the info log level."),
])
def test_the_word_a_verb_of_using_names_is_its_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The log format is json.", "We use the old log format."),
    ("The log level is info.", "We use the default log level."),
    ("The deploy region is us-east-1.", "The worker uses the eu-west-1 region."),
    ("We use the debug log level.", "We use the json log format."),
])
def test_other_facts_and_no_values_are_written(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
