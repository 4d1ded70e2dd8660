"""The on/off state a short claim asserts ("is enabled", "is not disabled", "已禁用",
"有効ではありません") and where it is stated, for :mod:`waymarks.core.contradiction`."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_denials import DENIES, clause_before, denied_after
from waymarks.core.claim_terms import STATES as _STATES
from waymarks.core.claim_words import ASCII_WORD as _ASCII_WORD
from waymarks.core.lazy_re import lazy

#: "on"/"off" ending a clause, or after a verb of turning or switching anywhere ("We
#: turned on query caching in production.", "… is switched off for the public API")
#: or before where it holds and the clause's end ("The beta_export flag is on in staging.":
#: no state, the replay rule's shared key refused "… is off in production." beside it)
_ON_OFF: Final = lazy(
    r"\b(on|off)\b(?: (?:in|for) (?:the )?[\w-]+(?: [\w-]+)?)?\s*(?:[.!;,]|$)"
    r"|\b(?:turn|switch)(?:ed|s|ing)? (on|off)\b")


def stated_state(text: str) -> tuple[str, int] | None:
    """``on`` or ``off`` for a claim asserting a state and where its first state word is,
    else None. A negation flips a
    state word only when it comes before that word in its clause, with no contrast between
    (:data:`DENIES`: "is not enabled" is off, "is not disabled but enabled" on): one
    anywhere flipped them all, so "is disabled, so don't rely on it" read as on and was
    kept beside "is enabled", and "is required, it cannot be skipped" was refused beside
    "is required"."""
    found: list[tuple[int, str]] = [
        (m.start(), _STATES[m.group(0)]) for m in _ASCII_WORD.finditer(text)
        if m.group(0) in _STATES and m.group(0) not in ("on", "off")
    ] if _ASCII_STATES.search(text) else []
    found.extend((m.start(m.lastindex or 1), m.group(m.lastindex or 1))
                 for m in _ON_OFF.finditer(text))
    taken: list[tuple[int, int]] = []
    # longest first (활성화 of 비활성화 states nothing); none in an ASCII text
    for word, state in () if text.isascii() else _HAN_STATES:
        start = text.find(word)
        while start >= 0:
            if not any(begin <= start < end for begin, end in taken):
                # a Japanese or Korean negation follows it ("有効ではありません": off)
                found.append((start, _FLIPPED[state] if denied_after(
                    text, start + len(word)) else state))
                taken.append((start, start + len(word)))
            start = text.find(word, start + len(word))
    states = {_FLIPPED[state] if DENIES.search(clause_before(text, start)) else state
              for start, state in found}
    return (states.pop(), min(found)[0]) if len(states) == 1 else None


_HAN_STATES: Final = tuple(sorted(((word, state) for word, state in _STATES.items()
                                  if not word.isascii()), key=lambda ws: -len(ws[0])))
_FLIPPED: Final = {"on": "off", "off": "on"}
#: the English state words :func:`stated_state` reads as words (none in a text: no word read)
_ASCII_STATES: Final = lazy("|".join(word for word in _STATES
                                     if word.isascii() and word not in ("on", "off")))
