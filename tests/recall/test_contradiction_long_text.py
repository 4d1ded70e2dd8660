"""A long text's names of a kind read in linear time (:func:`waymarks.core.claim_kinds.
kind_values`): each value's clause was found by reversing all the text before it, and the
text was copied once per name blanked (100 KB: 919 ms, quadratic). Counted, never timed."""

from __future__ import annotations

import random

import pytest

from waymarks.core import claim_denials
from waymarks.core.claim_denials import clause_before, is_denied
from waymarks.core.claim_kinds import blank, kind_values

_SENTENCE = "ci runs on jenkins in us-east-1 and uses npm with vault "


def test_the_clauses_of_a_long_texts_names_are_read_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The characters searched for the clauses of a long text's names (no clause ends in
    it: each clause runs back to the start) grow with the text, not with its square: twice
    the text, about twice the characters (four times, reversed whole before each name)."""
    searched: list[int] = []
    pattern = claim_denials._CLAUSE_END

    class Counting:
        def search(self, text: str) -> object:
            searched.append(len(text))
            return pattern.search(text)

    monkeypatch.setattr(claim_denials, "_CLAUSE_END", Counting())
    totals = []
    for size in (50_000, 100_000):
        searched.clear()
        text = (_SENTENCE * (size // len(_SENTENCE) + 1))[:size]
        _, values, _ = kind_values(text, is_denied)
        assert values == {"k:ci:jenkins", "k:js-packages:npm", "k:secrets:vault"}
        assert 0 < max(searched) <= claim_denials._LONGEST_CLAUSE
        totals.append(sum(searched))
    assert totals[1] < 2.2 * totals[0]


@pytest.mark.parametrize("seed", range(5))
def test_the_clause_read_in_windows_is_the_clause(seed: int) -> None:
    """The same clause as the whole text before ``start`` reversed, for texts whose clauses
    end at a window's edge or nowhere."""
    rng = random.Random(seed)
    text = "".join(rng.choice("ab .,;:!?。") if rng.random() < 0.02 else rng.choice("ab ")
                   for _ in range(3000))
    for start in range(0, len(text), 7):
        found = claim_denials._CLAUSE_END.search(text[:start][::-1])
        whole = text[start - found.start():start] if found else text[:start]
        assert clause_before(text, start) == whole


def test_names_blanked_in_one_pass_are_blanked_as_before() -> None:
    text = "uses npm, not yarn, on jenkins"
    spans = [(5, 8), (10, 18), (6, 9), (22, 30)]
    copied = text
    for start, end in spans:  # (as each name was blanked before: a copy each)
        copied = copied[:start] + " " * (end - start) + copied[end:]
    assert blank(text, spans) == copied == "uses" + " " * 14 + ", on" + " " * 8
    assert blank(text, []) is text
    short, values, _ = kind_values("We moved from Jenkins to CircleCI.".lower(), is_denied)
    assert short.split() == ["we", "moved", "."]
    assert values == {"k:ci:jenkins", "k:ci:circleci"}
