"""Whether recall may use meaning (hybrid recall) for the call being made, or only words.

A Claude Code hook that no warm helper answered (the session's first prompt, a helper
ended after its idle time) runs in a process of its own, and starts a helper for the next
prompt. Embedding that one prompt cost the process NumPy's import and the model's load
(~120 ms of CPU of its ~200, measured at 10k memories) for a single query, and the
helper it starts loads the model again. So that process recalls by words
(:func:`words_only`, the lexical engine the extra's absence gives), and the helper
recalls by words and meaning from the next prompt on. A hook whose helper is switched
off (``WAYMARKS_CC_HELPER=off``: every prompt is cold, by the person's choice) keeps
hybrid recall. The choice holds for the context (thread) that made it, never for
another caller of the same process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

_WORDS_ONLY: Final[ContextVar[bool]] = ContextVar("waymarks_recall_words_only",
                                                  default=False)


def meaning_allowed() -> bool:
    """Whether recall in this context may add the records nearest in meaning."""
    return not _WORDS_ONLY.get()


@contextmanager
def words_only(on: bool = True) -> Iterator[None]:
    """Within the block, recall (and so a plan) is lexical when ``on``, whatever
    ``WAYMARKS_SEMANTIC`` says; ``on=False`` changes nothing."""
    token = _WORDS_ONLY.set(on or _WORDS_ONLY.get())
    try:
        yield
    finally:
        _WORDS_ONLY.reset(token)
