"""The learned claims' persisted analyses (and their postings) are keyed by the analyser
they were made with. The key was a hand-bumped version and one probe text; a change to
the analysis the probe does not exercise (the concept map losing "dog = puppy", two
words joined by a slash read as words) kept every learned claim's stale features, so a
query analysed by the new rules missed claims it now matches. The key holds the digest of
the analysis code the recall index already re-indexes by."""

from __future__ import annotations

import pytest

from waymarks.service import evolution_analysis
from waymarks.store import recall_index


def test_another_analysis_code_is_another_analyser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evolution_analysis, "_ANALYSER", [])
    before = evolution_analysis._analyser()
    monkeypatch.setattr(evolution_analysis, "_ANALYSER", [])
    monkeypatch.setattr(recall_index, "_ANALYSIS", "another analysis code")
    assert evolution_analysis._analyser() != before
