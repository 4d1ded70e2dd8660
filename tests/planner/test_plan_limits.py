"""The plan never totals more than the limits it was given (a review found blocks budgeted
item by item, then joined and wrapped on top); each test failed before its fix."""

from __future__ import annotations

from waymarks.core.egress import Egress
from waymarks.core.privacy import ProviderPolicy
from waymarks.core.tokens import estimate_tokens
from waymarks.planner.budgets import Budgets
from waymarks.planner.render import MemoryBlock, PinBlock, TextBlock
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
