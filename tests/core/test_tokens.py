"""Token estimates: the loop over few non-ASCII characters counts exactly what the
wide-character expression counts, and estimates keep their documented sizes."""

from __future__ import annotations

import re

from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core import tokens
from waymarks.core.tokens import estimate_tokens

EXPRESSION = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
EDGES = "".join(chr(c) for lo, hi in ((0x1100, 0x11FF), (0x2E80, 0x9FFF), (0xAC00, 0xD7AF),
                                      (0xF900, 0xFAFF), (0xFF00, 0xFFEF))
                for c in (lo - 1, lo, hi, hi + 1))


def check_the_loop(text: str) -> None:
    assert tokens._count_wide(text) == len(EXPRESSION.findall(text))


@lanes(quick=60, long=300)
def test_the_loop_counts_what_the_expression_counts(examples: int) -> None:
    run_property(examples, check_the_loop,
                 st.text(alphabet=st.one_of(st.characters(max_codepoint=0x7F),
                                            st.sampled_from(EDGES), st.characters())))


def test_a_long_wide_text_uses_the_expression_and_counts_the_same() -> None:
    text = ("数据库端口是五四三三。" * 500) + " — ok"  # more non-ASCII than the loop takes
    assert len(tokens._ASCII_RUNS.sub("", text)) > tokens._LOOP_AT_MOST
    wide = len(EXPRESSION.findall(text))
    assert tokens._count_wide(text) == wide
    assert estimate_tokens(text) == wide + (len(text) - wide + 3) // 4


def test_estimates() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("端口") == 2
    assert estimate_tokens("Pin — keep it") == 4  # the dash is narrow
