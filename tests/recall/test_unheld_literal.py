"""A query naming a literal (a path, a file name) that no record holds can select nothing:
the literal gate refuses every candidate. Recall then reads none (nor embeds the query);
what it selects is exactly what it selected when it read them all (``every_candidate``,
which the searches that show each candidate's score still ask for)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats, unheld_literal
from waymarks.service.app import Waymarks

CLAIMS = [
    "The checkout service changes must pass the contract tests before merging.",
    "src/checkout/cart.py caches prices for 90 seconds.",
    "Changes to the billing service need a second reviewer.",
    "The search service reads its settings from config/search.toml.",
    "Run make lint before merging changes to src/billing.",
]
#: (query, whether a literal of it is held by no record)
QUERIES = [
    # no record names the folder (one names a file inside it: another literal)
    ("what must run before merging src/checkout/api changes", True),
    ("why does src/checkout/cart.py return stale prices?", False),
    ("what must run before merging src/billing changes", False),
    ("who reviews changes to src/payments/ledger.py", True),
    ("where does search read config/search.toml", False),
    ("does config/missing.toml matter for search?", True),
    ("what must run before merging changes", False),  # no literal
]


def test_the_unheld_literal_is_named_and_a_held_or_unread_one_is_not() -> None:
    plan = direct_plan("what must run before merging src/checkout/api changes")
    [literal] = plan.literals
    assert unheld_literal(plan, Stats(100, {"w:chang": 40})) == literal
    assert unheld_literal(plan, Stats(100, {"w:chang": 40, literal: 1})) is None
    # two words joined by a slash that no record holds as a folder are read as words
    # (recall/slashed.py): no literal is left to refuse every candidate
    pair = direct_plan("what must run before merging src/checkout changes")
    assert pair.literals and unheld_literal(pair, Stats(100, {"w:chang": 40})) is None
    assert unheld_literal(direct_plan("what must run before merging changes"),
                          Stats(100, {})) is None  # no literal
    # statistics read for other features say nothing of this literal: it counts as held
    other = direct_plan("who owns billing")
    assert unheld_literal(type(plan)(other.focus, other.context, plan.literals, "direct"),
                          Stats(100, {})) is None


@pytest.mark.parametrize("keep", [False, True], ids=["one-shot", "long-lived"])
def test_recall_selects_the_same_with_or_without_reading_every_candidate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: bool) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    project = tmp_path / "project"
    project.mkdir()
    with Waymarks(tmp_path / "home", cwd=str(project), keep_recall_index=keep) as app:
        rng = random.Random(5)
        for claim in CLAIMS:
            app.remember(claim)
        for n in range(60):  # more claims sharing the common words than the digest holds
            app.remember(f"Changes to service {n} are merged after {rng.randrange(9)} runs.")
        seen_unheld = seen_selected = 0
        for query, unheld in QUERIES:
            fast = app.recall(query)
            full = app.recall(query, every_candidate=True)
            assert (fast.selected, fast.digest) == (full.selected, full.digest), query
            if unheld:
                seen_unheld += 1
                assert fast.scored == [] and fast.selected == []
                # read in full, every candidate is refused by that very gate
                assert full.scored and all(
                    s.reason.startswith("literal ") and not s.eligible for s in full.scored)
            else:
                seen_selected += bool(fast.selected)
                assert [s.candidate.id for s in fast.scored] == [
                    s.candidate.id for s in full.scored]
        assert seen_unheld == 3 and seen_selected >= 3


def test_a_search_still_shows_the_candidates_of_such_a_query(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """``memory search`` and ``memory find`` show each candidate's score and verdict."""
    from waymarks.service.search import find_items

    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    project = tmp_path / "project"
    project.mkdir()
    with Waymarks(tmp_path / "home", cwd=str(project)) as app:
        for claim in CLAIMS:
            app.remember(claim)
        found = find_items(app, "memory", "what must run before merging src/checkout changes",
                           active_only=True, limit=10, admits=lambda _view: True)
        assert {v.text for v in found} >= {CLAIMS[0], CLAIMS[4]}
