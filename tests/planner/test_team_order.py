"""Ordering team items for the team budget reads only as much of each text as could fit
it (the test failed before its fix: every plan read every team item whole, and a file of
400 entries of 250 KB made each plan take 7-16 s)."""

from __future__ import annotations

import pytest

from waymarks.planner import team
from waymarks.planner.team import TEAM_MAX_TOKENS, TeamBlock, order_team


def _claims(count: int, chars: int, tag: str) -> list[TeamBlock]:
    words = "deploy staging database worker queue cache billing release".split()
    text = " ".join(f"{words[i % len(words)]}{i % 97}" for i in range(chars // 6))[:chars]
    return [TeamBlock(f"{tag}{n}", "memory", f"{n} {text}", "Big", "big-00000001", None)
            for n in range(count)]


def test_a_huge_item_is_read_only_as_far_as_the_budget_reaches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: how much text the ordering analyses (a text of 4 characters
    per token of the budget is the whole budget, whatever its script)."""
    read: list[int] = []
    analyse = team.request_terms

    def counted(text: str) -> frozenset[str]:
        read.append(len(text))
        return frozenset(analyse(text))

    monkeypatch.setattr(team, "request_terms", counted)
    order_team("where is the migrations check for the billing release?",
               _claims(40, 250_000, "h"))
    assert len(read) == 41 and max(read[1:]) <= 4 * TEAM_MAX_TOKENS


def test_the_words_that_decide_are_read() -> None:
    """The request's words inside the part read still order the claims."""
    named = TeamBlock("n", "memory", "The migrations check runs in CI.", "A", "a-00000001", None)
    other = TeamBlock("o", "memory", "Lunch is at noon.", "B", "b-00000002", None)
    assert [b.id for b in order_team("the migrations check", [other, named])] == ["n", "o"]
