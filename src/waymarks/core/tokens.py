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


def estimate_tokens(text: str) -> int:
    if text.isascii():
        return (len(text) + 3) // 4
    # counted by two encodings, not regular expressions (two compiled per process, ~0.8M
    # instructions, for every prompt's hook): the ASCII characters are what an ASCII
    # encoding keeps, and a character outside the Basic Multilingual Plane is the one
    # UTF-16 writes as two units (a lone surrogate is one unit, as it was one character)
    ascii_chars = len(text.encode("ascii", "ignore"))
    astral = len(text.encode("utf-16-le", "surrogatepass")) // 2 - len(text)
    return len(text) - ascii_chars + astral + (ascii_chars + 3) // 4
