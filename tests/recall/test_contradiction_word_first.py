"""Issue 20 item 4's known miss of a word value named before its attribute, written
through the service (real session files, real SQLite): "Master is the default branch."
beside "The default branch is main." (only the word after "is" was read, so the first
stated no value and both were written). The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The default branch is main.", "Main is the default branch.",
     "Master is the default branch."),
    ("Master is the default branch.", "The default branch is master.",
     "The default branch is main."),
    ("Debug is the log level.", "The log level is debug.", "The log level is info."),
    ("JSON is the log format.", "The log format is json.", "Logfmt is the log format."),
])
def test_the_word_before_its_attribute_is_its_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("Master is the default branch.", "Develop is the release branch."),
    ("Debug is the log level in staging.", "The log level is info in production."),
    ("It is the default branch.", "The default branch is main."),
])
def test_other_facts_are_written(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


def test_a_word_of_the_vocabulary_or_a_phrase_is_no_value() -> None:
    """"Staging" names an environment, and a phrase before "is" is a subject."""
    assert signature("Staging is the default region.") is None
    assert signature("The repo main branch is the default branch.") is None
