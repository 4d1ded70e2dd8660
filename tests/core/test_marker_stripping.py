"""Removing marker tags to a fixpoint: a pass removes one layer, and text nested k layers
deep (``[ds4:`` x k then ``internal]`` x k, as tool output can be) took k passes over all
of it, on every provider request. Past a few passes one scan finishes the work; it must
reach exactly the text, count and level that passes repeated without end reach."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core import privacy
from waymarks.core.marked_filter import filter_text
from waymarks.core.privacy import classify, strip_markers

PIECES = ["[", "]", "ds4:", "DS4:", "/", "normal", "internal", "sensitive", "local-only",
          "\\", "x", " ", "[ds4:", "internal]", "[/ds4:", "local-only]", "[ds4:normal]",
          "\\[ds4:sensitive]", "4:"]


def passes_without_end(text: str) -> tuple[str, int, str | None]:
    """The reference: one regex pass after another until none removes a tag."""
    total, top = 0, None
    while True:
        text, count, level = privacy._strip_pass(text)
        if not count:
            return text, total, top
        total += count
        if level is not None:
            top = level if top is None else privacy.highest(top, level)


@lanes(quick=75, long=1500)
def test_the_scan_reaches_what_passes_reach(examples: int) -> None:
    run_property(examples, check_scan, st.lists(st.sampled_from(PIECES), max_size=40),
                 base=settings(deadline=None))


def check_scan(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert privacy._strip_scan(text) == passes_without_end(text)
    assert privacy._strip_all(text) == passes_without_end(text)


@pytest.mark.parametrize("depth", [3, 4, 5, 40, 4000])
def test_deep_nesting_takes_a_few_passes_and_one_scan(
        depth: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "[ds4:" * depth + "internal]" * depth + " tail"
    calls = {"passes": 0}
    real = privacy._strip_pass

    def counted(value: str) -> tuple[str, int, str | None]:
        calls["passes"] += 1
        return real(value)

    monkeypatch.setattr(privacy, "_strip_pass", counted)
    assert strip_markers(text) == " tail"
    assert calls["passes"] <= privacy._PASSES + 1
    assert classify(text) == "internal"
    assert filter_text(text, privacy.LEVELS).text == " tail"  # a local model: every level
    assert filter_text(text, ("normal",)).text is None  # internal: withheld from the rest
