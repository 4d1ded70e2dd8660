"""Token estimates: cheap, deterministic, provider-agnostic.

Latin text averages about four characters per token; CJK and other wide characters are
about one each. Budgets use these estimates, and the final size check uses the same
function, so a plan never disagrees with itself. They are estimates, not a tokenizer.
"""

from __future__ import annotations

from waymarks.core.lazy_re import lazy

_WIDE = lazy(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    wide = len(_WIDE.findall(text)) if not text.isascii() else 0
    narrow = len(text) - wide
    return wide + (narrow + 3) // 4
