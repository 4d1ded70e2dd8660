"""The expressions of claim signatures that read a word character as one of any script but
Chinese, Japanese kana and Korean Hangul (:func:`waymarks.core.claim_values.unhan`): each
copy of that class costs Python's re about a millisecond to compile (it walks the class's
ranges), and the value expression holds 35 of them, so a Claude Code hook signing an
English personal index line spent 37-77 ms of CPU compiling one expression. A text with
no character of those scripts is read by the expression as written (``\\w``), which
matches it alike; the property test compares both with the class on mixed-script text."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import example, settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core import claim_word_values, contradiction
from waymarks.core.claim_values import _NOT_HAN_WORD, unhan

#: what a claim is made of: value characters, ASCII words, CJK on both sides of the
#: class's edges (ぁ U+3041 in it, 〿 U+303F out), Latin letters past ASCII, punctuation
_PIECES = st.sampled_from([
    "a", "m", "v", "x", "db", "pm", "0", "1", "5432", "12", "2026", ".", ":", "/", "-", "_",
    "*", ",", "+", "@", "~", "[", "]", "%", " ", "  ", "://", "https", "python", "slim",
    "是", "为", "=", "は", "는", "です", "입니다", "数据", "ぁ", "〿", "ヿ", "가", "힣", "豈",
    "é", "données", "ß", "Ω", "→", "。", "、", "）", "😀", "\u4dbf", "\u9fff", "\ufaff"])
_TEXTS = st.lists(_PIECES, max_size=30).map("".join)


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[object, ...]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


@example("镜像是python:3.12-slim数据, 地址是https://例子.com/路径。")
@example("The image is python:3.12-slim and the port 5432 at 7:45pm on 2026-12-20.")
@example("默认分支是 main。")
@example("Master is the default branch. données is the log level in 数据。")
@example("我们 use the données log level。 We use the debug log level.")
def check_each_expression(text: str) -> None:
    for made in (contradiction._VALUE, claim_word_values._WORD_VALUE,
                 claim_word_values._WORD_FIRST, claim_word_values._WORD_USED):
        with_class = re.compile(unhan(made.source))
        assert _spans(made.for_text(text), text) == _spans(with_class, text), text


@lanes(quick=100, long=2000)  # 2,000 took 3.9 s on a quiet machine, the fast lane's longest
def test_each_expression_matches_as_the_one_with_the_class(examples: int) -> None:
    run_property(examples, check_each_expression, _TEXTS, base=settings(deadline=None))


def test_an_english_claim_is_signed_without_compiling_the_class() -> None:
    """A fresh process (as a hook is) signing English and Latin-script claims compiles no
    copy of the class; a Chinese one compiles the expressions that hold it."""
    probe = (
        "import re, sys\n"
        "from waymarks.core.contradiction import signature\n"
        "for claim in sys.argv[2:]:\n"
        "    signature(claim)\n"
        "print(sum(sys.argv[1] in key[1] for key in re._cache if isinstance(key[1], str)))\n")

    def compiled(*claims: str) -> int:
        done = subprocess.run([sys.executable, "-c", probe, _NOT_HAN_WORD, *claims],
                              capture_output=True, text=True, check=True)
        return int(done.stdout)

    assert compiled("The database port is 5432, so don't change it.",
                    "Les données vont dans /srv/données/app.", "log_level = debug") == 0
    assert compiled("数据库端口是 5434。") == 2


def test_the_value_expression_says_no_word_before_once_for_each_run_of_alternatives() -> None:
    """Each copy of the class costs a Chinese, Japanese or Korean claim's first signature
    in a process ~1.2 ms of re's compiler: the value expression held 35, one for each
    alternative that may not follow a word character; each run of them says it once."""
    assert unhan(contradiction._VALUE.source).count(_NOT_HAN_WORD) <= 27
