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


def _pins_and_claims(count: int) -> list[TeamBlock]:
    return [*(TeamBlock(f"p{n}", "pin", f"Indent {n} with tabs", "Ann",
                        "ann-00000001", None) for n in range(count)),
            *(TeamBlock(f"c{n}", "memory", f"The release check {n} runs nightly", "Ann",
                        "ann-00000001", None) for n in range(count))]


def test_only_what_can_enter_is_rendered_or_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: 20k team items cost 1.8 s CPU a plan, most of it rendering
    every item through the egress (the excluded ones too, for their size) and reading
    every claim for the request's words, though 1,500 tokens hold about 15 blocks. A
    block too big for the budget left even without its text is not rendered, and claims
    are not scored once the pins leave no room for one."""
    from waymarks.core.egress import Egress

    rendered: list[str] = []
    render, analyse = team.render_team, team.request_terms
    monkeypatch.setattr(team, "render_team",
                        lambda b, e: rendered.append(b.id) or render(b, e))
    read: list[str] = []
    monkeypatch.setattr(team, "request_terms", lambda t: read.append(t) or analyse(t))
    blocks = _pins_and_claims(500)
    included, excluded, _room = team.choose_team("when does the release check run?",
                                                 blocks, Egress("remote",
                                                                frozenset({"normal"})), None)
    assert 10 <= len(included) < 20 and len(included) + len(excluded) == 1000
    assert len(rendered) <= len(included) + 1, len(rendered)
    assert len(read) <= 1, len(read)  # the request's own
    assert all(tokens > 0 for _b, _l, _r, tokens in excluded)
    # and what enters is what entered before: the first pins, whole
    assert [b.id for b, *_ in included] == [f"p{n}" for n in range(len(included))]
