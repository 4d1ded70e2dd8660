"""The plan never totals more than the limits it was given (a review found blocks budgeted
item by item, then joined and wrapped on top); each test failed before its fix."""

from __future__ import annotations

import pytest

from waymarks.core.egress import Egress
from waymarks.core.privacy import ProviderPolicy
from waymarks.core.tokens import estimate_tokens
from waymarks.planner.budgets import Budgets
from waymarks.planner.fill import NO_ROOM
from waymarks.planner.learned import LearnedBlock, render_learned
from waymarks.planner.render import MemoryBlock, PinBlock, TextBlock, render_memory, render_text
from waymarks.planner.select import MemoryInput, PinInput, TextInput, build_plan

EGRESS = Egress.to(ProviderPolicy.from_config({}), "ollama")
REQUEST = "Which port does the staging database listen on, and who owns the cache?"
PINS = [PinInput(PinBlock("p1", "session", "Run the tests before every commit.", "s", "e1"),
                 1)]
MEMORIES = [MemoryInput(MemoryBlock(f"m{n}", "session", f"The staging database {n} listens "
                                    f"on port {5400 + n} for the cache team.", "s", f"e{n}",
                                    1.0 - n / 100, "recall matched"), n, True)
            for n in range(12)]
PERSONAL = [TextInput(TextBlock("personal", "editor", "I use vim with modal editing.",
                                "editor"), "personal index entry")]
HISTORY = [TextInput(TextBlock("history", f"h{n}", f"Earlier we moved database {n}.", "user"),
                     "retrieved turn") for n in range(4)]


def _plan(limit: int | None, budgets: Budgets = Budgets()) -> object:  # noqa: B008
    return build_plan(REQUEST, PINS, MEMORIES, egress=EGRESS, budgets=budgets,
                      personal=PERSONAL, history=HISTORY, model_limit=limit, fixed_tokens=20)


def test_no_model_limit_is_exceeded() -> None:
    """``plan --model-limit 100`` totalled 144 tokens: a personal entry was budgeted at 9
    and its wrapper (~47) came after the checks; the blank lines joining memory blocks
    were counted by nobody."""
    roomy = _plan(None)
    top = roomy.total_tokens  # type: ignore[attr-defined]
    mandatory = 20 + estimate_tokens(REQUEST)
    for limit in range(mandatory, top + 3):
        plan = _plan(limit)
        assert plan.total_tokens <= limit, (limit, plan.total_tokens)  # type: ignore[attr-defined]
        included = {e.kind for e in plan.manifest  # type: ignore[attr-defined]
                    if e.decision == "included"}
        blocks = {m.kind for m in plan.messages} - {"pins", "request"}  # type: ignore[attr-defined]
        assert blocks == {{"snippet": "snippets"}.get(k, k) for k in included} - {"pin"}


def test_the_memory_budget_holds_with_its_separators() -> None:
    for budget in range(10, 400, 7):
        plan = _plan(None, Budgets(max_memory_tokens=budget))
        [memory] = [m for m in plan.messages if m.kind == "memory"] or [None]  # type: ignore[attr-defined]
        assert memory is None or memory.tokens <= budget, (budget, memory.tokens)


SAVED = ("The staging database listens on port 5432 for the cache team; " * 12).strip()
LEARNED = LearnedBlock("c1", "fact", "The staging database listens on port 6543",
                       "/work/p", "user_statement/model", "s1", "2026-01-01", 0.9)


@pytest.mark.parametrize("kind", ["memory", "personal"])
def test_a_learned_claim_is_never_sent_where_something_the_person_saved_was_left_out(
        kind: str) -> None:
    """``plan --model-limit``: a confirmed memory (or a personal entry) too long for the
    room was left out as "model limit reached" while a shorter learned claim contradicting
    it went into the room that was left, though it ranks below it."""
    memory = MemoryBlock("m1", "session", SAVED, "s", "e1", 1.0, "recall matched")
    personal = TextBlock("personal", "db", SAVED, "db")
    claim = estimate_tokens(render_learned(LEARNED, EGRESS))
    size = estimate_tokens(render_memory(memory, EGRESS) if kind == "memory"
                           else render_text(personal, EGRESS))
    assert size > claim + 2  # room for the learned claim, not for what was saved
    limit = estimate_tokens(REQUEST) + claim + 2
    plan = build_plan(REQUEST, [], [MemoryInput(memory, 0, True)] if kind == "memory" else [],
                      personal=[TextInput(personal, "personal index entry")]
                      if kind == "personal" else [],
                      egress=EGRESS, learned=[LEARNED], model_limit=limit)
    assert [m.kind for m in plan.messages] == ["request"]
    reasons = {e.kind: e.reason for e in plan.manifest if e.decision == "excluded"}
    assert reasons == {kind: NO_ROOM, "learned": NO_ROOM}
    alone = build_plan(REQUEST, [], [], egress=EGRESS, learned=[LEARNED], model_limit=limit)
    assert [m.kind for m in alone.messages] == ["learned", "request"]  # it fits by itself
