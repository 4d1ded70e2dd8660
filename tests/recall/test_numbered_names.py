"""A number said inside a name ("the catalog-917 service") tells the thing from its
siblings: "what port does the catalog-917 service use?" asks catalog-917's port, and
catalog-218's is no answer. The name gate counts a number as no name, so the ports of
other catalogs were recalled once the words said side by side made the question a short
one (df9c4341; found by benchmarks/plan.py's store, whose services are named so)."""

from __future__ import annotations

import pytest

from waymarks.service.app import Waymarks

CLAIMS = (
    "The catalog-917 service keeps logs for 3 days.",
    "The catalog-218 service listens on port 4190.",
    "The catalog-79 service listens on port 2160.",
    "The catalog-35 service listens on port 3500.",
)


@pytest.mark.parametrize(("question", "answer"), [
    ("what port does the catalog-917 service use?", None),
    ("what port does catalog-917 use?", None),
    ("what port does the catalog-218 service use?",
     "The catalog-218 service listens on port 4190."),
    ("what port does catalog-35 use?", "The catalog-35 service listens on port 3500."),
])
def test_a_number_inside_a_name_is_part_of_it(
        app: Waymarks, question: str, answer: str | None) -> None:
    texts = {app.remember(claim).id: claim for claim in CLAIMS}  # type: ignore[union-attr]
    recalled = [texts[i] for i in app.recall(question).selected]
    assert recalled == ([answer] if answer else [])
