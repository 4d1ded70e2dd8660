"""Which confirmations were put in front of the person: every confirmed model tool
(``context_persistence``, ``remember``, ``learned_memory_edit``) records the question it
asked, and applies a yes only to the change whose question, planned again after the
answer, is that text. A question is asked once; a yes is spent by the change it confirms
(an earlier showing cannot stand in for it), and a showing expires.

What is recorded is the question's text and nothing else: the change's every detail that
a yes stands for is in it. On protocol 2026-07-28 the MCP SDK runs the resolver again on
the round that carries the answer and applies that answer to any question of the same
text; a record of anything the text does not show (the session written to, the message
the write cites) let a yes given to one change be spent by another one.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Final

#: how long a question shown stays answerable
SHOWN_TTL_S: Final = 15 * 60


def digest_of(text: str) -> str:
    """The digest of a question's text (a lone surrogate in it is kept, never an error)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Shown:
    """The digests of the questions shown, each with its expiry (one per server or tool;
    a resolver may run more than once per question: it is recorded once)."""

    def __init__(self, ttl_s: float = SHOWN_TTL_S) -> None:
        self._lock = threading.Lock()
        self._until: dict[str, float] = {}
        self.ttl_s = ttl_s

    def record(self, question: str) -> None:
        """``question`` was put in front of the person."""
        digest = digest_of(question)
        now = time.monotonic()
        with self._lock:
            self._until = {d: t for d, t in self._until.items() if t > now}
            self._until[digest] = now + self.ttl_s

    def spend(self, question: str) -> bool:
        """Whether ``question`` was shown (and has not expired): the yes it got is
        spent by this change."""
        with self._lock:
            return self._until.pop(digest_of(question), 0.0) > time.monotonic()
