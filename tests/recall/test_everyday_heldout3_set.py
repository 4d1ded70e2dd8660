"""``benchmarks/everyday_heldout3.py`` asks the everyday store blind questions; its figures in
docs/benchmarks.md and docs/recall.md mean something only while each expected answer names a
claim of that store, and while no question is one the tests already hold right."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.recall import everyday_store, test_everyday_more, test_everyday_questions

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def heldout3() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import everyday_heldout3
    finally:
        sys.path.remove(str(BENCHMARKS))
    return everyday_heldout3


def test_each_expected_answer_is_in_exactly_one_claim_of_the_everyday_store(
        heldout3: ModuleType) -> None:
    answers = [*heldout3.ANSWERED.values(),
               *(a for _, _, a in heldout3.FOLLOW_UPS)]
    for parts in answers:
        for part in parts:
            assert sum(part in claim for claim in everyday_store.CLAIMS) == 1, part


def test_the_set_is_large_bilingual_and_none_of_the_tests_questions(heldout3: ModuleType) -> None:
    answered, unstored = heldout3.ANSWERED, heldout3.UNSTORED
    follow_ups = [q for _, q, _ in heldout3.FOLLOW_UPS]
    asked = [*answered, *unstored, *follow_ups]
    assert len(asked) >= 60 and len(set(asked)) == len(asked)
    chinese = [q for q in asked if re.search("[\u4e00-\u9fff]", q)]
    assert 15 <= len(chinese) <= len(asked) - 30
    assert len(unstored) >= 10 and any(q in chinese for q in unstored)
    tested = {q for module in (test_everyday_questions, test_everyday_more)
              for q in (*module.ANSWERED, *module.UNSTORED)}
    assert not tested & set(asked)
