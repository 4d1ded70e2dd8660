"""Token estimates: cheap, deterministic, provider-agnostic.

Latin text averages about four characters per token; CJK and other wide characters are
about one each. Budgets use these estimates, and the final size check uses the same
function, so a plan never disagrees with itself. They are estimates, not a tokenizer.

Start-up cost matters here: every plan estimates its rendered blocks, whose headers hold
a non-ASCII dash, and compiling the wide-character class as a regular expression takes
about 5 ms (the compiler walks every code point of its ranges). So a text with few
non-ASCII characters is counted by a loop over those characters only; a text with many
uses the expression, compiled once on first need. Both count the same characters
(``tests/core/test_tokens.py`` compares them).
"""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy

_WIDE = lazy(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
#: runs of ASCII: removing them leaves the non-ASCII characters (a small class, cheap to
#: compile, and about four times faster than ``str.translate`` with a table)
_ASCII_RUNS: Final = lazy(r"[\x00-\x7f]+")
#: up to this many non-ASCII characters, a loop is cheaper than compiling the expression
_LOOP_AT_MOST: Final = 4096


def estimate_tokens(text: str) -> int:
    wide = 0 if text.isascii() else _count_wide(text)
    narrow = len(text) - wide
    return wide + (narrow + 3) // 4


def _count_wide(text: str) -> int:
    """How many characters of ``text`` are wide (the ranges of ``_WIDE``)."""
    rest = _ASCII_RUNS.sub("", text)
    if len(rest) > _LOOP_AT_MOST:
        return len(_WIDE.findall(text))
    wide = 0
    for char in rest:
        code = ord(char)
        if (0x2E80 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF
                or 0xF900 <= code <= 0xFAFF or 0xFF00 <= code <= 0xFFEF):
            wide += 1
    return wide
