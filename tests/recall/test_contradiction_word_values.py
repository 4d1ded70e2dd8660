"""Issue 20 item 4's known miss across languages, written through the service (real
session files, real SQLite): "日志级别是 debug。" beside "The log level is info.". Their
pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("日志级别是 debug。", "The log level is debug.", "The log level is info."),
    ("The log level is info.", "日志级别是 info。", "日志级别是 debug。"),
    ("缓存模式是 lru。", "The cache mode is lru.", "The cache mode is lfu."),
    ("默认分支是 main。", "The default branch is main.", "The default branch is trunk."),
])
def test_a_word_after_is_is_the_value_of_an_attribute_taking_words(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """An English "is" before one word was never read as a value ("is fast", "is the
    owner"), so the English claim had no signature and its Chinese twin, another derived
    key, was written beside "日志级别是 debug。"; after an attribute whose values are words
    (a level, a mode, a branch …) the word ending the clause is the value."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("日志级别是 debug。", "The API log level is info."),
    ("The log level is debug.", "The cache mode is lru."),
    ("Dark mode is enabled.", "The log level is info."),
])
def test_word_values_of_other_attributes_are_two_facts(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize("claim", [
    "Dark mode is enabled.", "Maintenance mode is off.", "The level is the same.",
    "The reviewer is Alice.", "The API is fast.",
])
def test_a_state_or_a_word_after_another_subject_is_no_word_value(claim: str) -> None:
    found = signature(claim)
    assert found is None or not any(v.startswith("v:") for v in found.values), found


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The log level is info.", "Log level: info.", "Log level: debug."),
    ("日志级别是 debug。", "Log level: debug", "Log level: warn"),
])
def test_a_word_after_an_attribute_and_its_colon_is_its_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"Log level: debug." (a note's line) stated no value, nor had a derived key (no
    "is"): written beside "The log level is info."."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


def test_a_colon_after_another_word_is_no_value(app: Waymarks) -> None:
    _written(app, "Reminder: backup.")
    _written(app, "Reminder: deploy.")


def test_a_word_value_in_one_environment_is_no_other_environments(app: Waymarks) -> None:
    """"The log level is debug in staging." had no value (its word did not end the
    clause), so the replay rule's shared derived key ("log level") refused "The log level
    is info in production." as a conflict; read, the two name other environments: two
    facts, and the same environment's other level still contradicts."""
    _written(app, "The log level is debug in staging.")
    _written(app, "The log level is info in production.")
    _refused(app, "The log level is warn in production.")
