"""The order in which memory competes for its budget: seed 000's "current request
identifiers, file/symbol/keyword terms, optional keys, scope authority, and recency".

Recall has already decided *which* claims the request is about (terms, identifiers,
gates) and how relevant each is; this module only orders them, and the order decides what
survives ``memory.maxResults``, the memory token budget and the model limit:

1. **Keys.** A claim whose key (explicit ``--key``, or derived from ``X is Y``) the request
   names — every word of the key among the request's words, or the key itself as one
   token — comes before every claim whose key it does not name, and before unkeyed ones.
2. **Relevance**, as recall ranked it (to :data:`RELEVANCE_DIGITS` decimals, so that
   float noise is a tie, not an order).
3. **Scope authority** on a tie: a ``project`` claim (shared and trusted) before a
   ``session`` one.
4. **Recency** on a tie: newer first; then the ID, so the order is total and stable.

Recent-continuity items (nothing matched) keep the order they come in (newest first). What must
stay true: ordering never adds or removes a claim, and it is deterministic.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from waymarks.core.lazy_re import lazy

if TYPE_CHECKING:
    from waymarks.planner.select import MemoryInput

RELEVANCE_DIGITS: Final = 3
SCOPE_AUTHORITY: Final = {"project": 1, "session": 0}
_WORDS: Final = lazy(r"[\w.]+(?:/[\w.]+)*", re.UNICODE)
_KEY_PARTS: Final = lazy(r"[-_./\s]+")


def request_terms(request: str) -> frozenset[str]:
    """The request's words (case-folded, NFKC), with a plural ``s`` also seen without it,
    plus whole tokens such as ``package-export-mode`` or ``src/app.py``."""
    folded = unicodedata.normalize("NFKC", request).casefold()
    terms: set[str] = set()
    for token in re.findall(r"[^\s\"'`()\[\]{}<>,;:!?]+", folded):
        terms.add(token.strip("."))
    for word in _WORDS.findall(folded):
        for part in (word, *_KEY_PARTS.split(word)):
            if part:
                terms.add(part)
                if len(part) > 3 and part.endswith("s"):
                    terms.add(part[:-1])
    terms.discard("")
    return frozenset(terms)


def key_named(key: str | None, terms: frozenset[str]) -> bool:
    """Whether a request with ``terms`` names ``key``."""
    if not key:
        return False
    folded = unicodedata.normalize("NFKC", key).casefold()
    if folded in terms:
        return True
    parts = [p for p in _KEY_PARTS.split(folded) if p]
    return bool(parts) and all(p in terms for p in parts)


def order_memories(request: str, memories: Sequence[MemoryInput]) -> list[MemoryInput]:
    """``memories`` in the order they compete for the budget (see the module docstring).
    Matched claims are ordered; continuity items (unmatched) follow as given."""
    terms = request_terms(request)

    def matched_key(m: MemoryInput) -> tuple[bool, float, int, int, str]:
        block = m.block
        return (not key_named(block.key, terms), -round(block.score, RELEVANCE_DIGITS),
                -SCOPE_AUTHORITY.get(block.scope, 0), -m.created_at, block.id)

    matched = sorted((m for m in memories if m.matched), key=matched_key)
    return matched + [m for m in memories if not m.matched]
