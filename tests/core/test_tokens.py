"""Token estimates keep their documented sizes, for every script: a review found 400
emoji estimated at 100 tokens (a fifth of what a tokenizer makes of them), 600
Devanagari characters at 150, and a plan of them passing its limits."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core.tokens import estimate_tokens


def test_estimates() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("端口") == 2
    assert estimate_tokens("Pin — keep it") == 4  # 12 ASCII characters and the dash
    # a lone surrogate is one non-ASCII character, not an astral one (two encodings count)
    assert estimate_tokens("ab\ud83d") == 2 and estimate_tokens("\U0001f600\udc00") == 3


def test_no_script_is_estimated_short() -> None:
    assert estimate_tokens("😀" * 400) == 800  # four bytes, two UTF-16 units each
    assert estimate_tokens("नमस्ते" * 100) == 600
    assert estimate_tokens("e" + "\u0301" * 399) == 400  # combining marks
    assert estimate_tokens("数据库端口是五四三三。" * 500) == 5500
    assert estimate_tokens("Привет, мир") == 9 + 1  # nine Cyrillic letters, ", " and " "


def check(text: str) -> None:
    """At least a token per non-ASCII character, two per astral one, and a quarter per
    ASCII one: what the estimate promises, whatever the text's mix."""
    non_ascii = [c for c in text if ord(c) > 0x7F]
    astral = sum(1 for c in non_ascii if ord(c) > 0xFFFF)
    ascii_count = len(text) - len(non_ascii)
    assert estimate_tokens(text) == len(non_ascii) + astral + (ascii_count + 3) // 4


@lanes(quick=60, long=300)
def test_the_estimate_counts_every_character_by_its_kind(examples: int) -> None:
    run_property(examples, check, st.text(alphabet=st.one_of(
        st.characters(max_codepoint=0x7F), st.characters(min_codepoint=0x10000),
        st.characters())))
