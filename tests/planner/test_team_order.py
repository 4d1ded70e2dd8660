"""Ordering team items for the team budget reads only as much of each text as could fit
it (the test failed before its fix: every plan read every team item whole, and a file of
400 entries of 250 KB made each plan take 7-16 s)."""

from __future__ import annotations

import time

from waymarks.planner.team import TEAM_MAX_TOKENS, TeamBlock, order_team


def _claims(count: int, chars: int, tag: str) -> list[TeamBlock]:
    words = "deploy staging database worker queue cache billing release".split()
    text = " ".join(f"{words[i % len(words)]}{i % 97}" for i in range(chars // 6))[:chars]
    return [TeamBlock(f"{tag}{n}", "memory", f"{n} {text}", "Big", "big-00000001", None)
            for n in range(count)]


def _took(blocks: list[TeamBlock]) -> float:
    start = time.perf_counter()
    order_team("where is the migrations check for the billing release?", blocks)
    return time.perf_counter() - start


def test_a_huge_item_costs_what_one_that_fills_the_budget_costs() -> None:
    filling = _claims(40, 4 * TEAM_MAX_TOKENS, "f")  # the whole budget (4 chars a token)
    huge = _claims(40, 250_000, "h")  # 40 times longer
    _took(filling)  # (warm)
    small, large = min(_took(filling) for _ in range(3)), min(_took(huge) for _ in range(3))
    assert large < 4 * small + 0.02, (small, large)


def test_the_words_that_decide_are_read() -> None:
    """The request's words inside the part read still order the claims."""
    named = TeamBlock("n", "memory", "The migrations check runs in CI.", "A", "a-00000001", None)
    other = TeamBlock("o", "memory", "Lunch is at noon.", "B", "b-00000002", None)
    assert [b.id for b in order_team("the migrations check", [other, named])] == ["n", "o"]
