"""Token estimates: cheap, deterministic, provider-agnostic.

ASCII text averages about four characters per token. Every other character counts as a
token of its own, and one outside the Basic Multilingual Plane (an emoji, a rare CJK
ideograph) as two: CJK and other wide scripts run about one token a character, and the
rest of the non-ASCII text (Cyrillic, Devanagari, accented Latin, combining marks, emoji,
dashes) between one and four tokens per two characters in the common tokenizers, so a
quarter of a token each (what this counted before) let a plan of emoji or Devanagari pass
its budgets at a fifth of its size. Budgets use these estimates, and the final size check
uses the same function, so a plan never disagrees with itself. They are estimates, not a
tokenizer: generous for accented Latin text, never short for any script.
"""

from __future__ import annotations

from waymarks.core.lazy_re import lazy

#: runs of ASCII: removing them leaves the non-ASCII characters
_ASCII_RUNS = lazy(r"[\x00-\x7f]+")
#: characters outside the Basic Multilingual Plane (two UTF-16 units, four UTF-8 bytes)
_ASTRAL = lazy(r"[\U00010000-\U0010ffff]")


def estimate_tokens(text: str) -> int:
    if text.isascii():
        return (len(text) + 3) // 4
    rest = _ASCII_RUNS.sub("", text)
    return len(rest) + len(_ASTRAL.findall(rest)) + (len(text) - len(rest) + 3) // 4
