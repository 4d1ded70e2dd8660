"""A question opening with "which" or "what" and a word saying which of an attribute,
then naming whose ("which python version does the gateway use?"), asks the version of
Python that thing uses: the thing is the subject, and Python a word its claim must say.
Two names to the name gate, the question was judged on coverage alone, and the Python
versions of three other services were recalled (2 of 3 words: Python, and a version by
its value); "which Kotlin version does billing use?" recalled "The billing service is
written in Kotlin …", which says no version (benchmarks/everyday_heldout2.py)."""

from __future__ import annotations

import pytest

from tests.recall.everyday_store import Everyday
from tests.recall.test_everyday_questions import _asked
from waymarks.recall.plan import direct_plan


@pytest.mark.parametrize("question", [
    "which python version does the gateway use?",
    "what python version does the gateway use?",
    "which java version does the mailer run?",
])
def test_another_things_version_of_it_is_no_answer(everyday: Everyday, question: str) -> None:
    assert everyday.asked([question]) == {question: []}


@pytest.mark.parametrize(("question", "answer"), [
    ("which python version does search use?", "Search runs on Python 3.12 with FastAPI."),
    ("which node version does notifications run?", "Notifications runs on Node 20."),
    ("what java version does inventory use?",
     "Inventory is written in Java 21 with Spring Boot 3.2."),
])
def test_its_own_version_is_recalled(everyday: Everyday, question: str, answer: str) -> None:
    assert _asked(everyday, [question]) == {question: [answer]}


@pytest.mark.parametrize(("question", "word"), [
    ("which python version does the gateway use?", "w:python"),
    ("What Node version do the notifications run?", "w:node"),
    ("which port does the gateway use?", None),  # no word before the attribute
    ("where are the search logs?", None),  # no which-question
    ("what search logs are there?", None),  # asks no one's
])
def test_the_word_saying_which(question: str, word: str | None) -> None:
    assert direct_plan(question).which_of == word
