"""The pre-test before the dropped names' two expressions (``recall/dropped_names.py``):
it may let a text through that has no name, never hold back one that has."""

from __future__ import annotations

import itertools

from waymarks.recall.dropped_names import _may_name, _named, dropped_names

NAMES = ("Go", "R", "C", "C++", "C#", "A", "I", "I++", "I#", "I'm", "Will", "May", "Make",
         "Is", "To", "The", "Our", "Kafka", "Redis", "X", "Y", "K", "Py", "McDonald", "GO",
         "Go2", "Goé", "Rust", "Java", "DB", "J.K.", "Ü")
TEMPLATES = ("what about {}?", "{} version?", "and in {}?", "那{}呢？", "{}", "{} 呢？",
             "What Is The {} Version?", "{} thanks", "we use {}-based builds",
             "J.K. {} wrote it", "in {} 2023", "which service uses {} for fan-out?",
             "and {}, {} or Kafka?", "Which Port Does {} Use?", "did {} say so")


def test_no_text_that_holds_a_name_is_held_back() -> None:
    texts = [template.format(name, name) for template, name in
             itertools.product(TEMPLATES, NAMES)]
    named = [text for text in texts if list(_named(text))]
    assert len(named) > 100, "the corpus holds names of every kind"
    assert [text for text in named if not _may_name(text)] == []
    assert all(list(dropped_names(text)) == list(_named(text)) for text in texts)


def test_a_question_of_long_or_unknown_capitalized_words_needs_neither_expression() -> None:
    assert not _may_name("which service uses Kafka for event fan-out?")
    assert not _may_name("Which service uses Kafka for event fan-out?")
    assert not _may_name("Where does PostgreSQL keep its WAL?")
    assert list(dropped_names("which service uses Kafka for event fan-out?")) == []
    assert list(dropped_names("what about Go?")) == [("Go", 13)]


def test_the_pronoun_i_needs_neither_expression() -> None:
    """A prompt whose only capital alone is "I" (a user's question, most of them) compiled
    both expressions (7.7 ms of CPU in a one-shot process) to find no name."""
    for text in ("how long should I boil an egg for a soft yolk", "can I deploy on Friday?",
                 "what did I say about the billing port", "I think the port is 8080"):
        assert list(_named(text)) == []
        assert not _may_name(text), text
    assert _may_name("is I++ a language?") and _may_name("I# or C#?")
    assert _may_name("should I use Go?")
