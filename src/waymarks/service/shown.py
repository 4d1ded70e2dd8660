"""Which confirmations were put in front of the person: every confirmed model tool
(``context_persistence``, ``remember``, ``learned_memory_edit``) records the digest of the
question it asked, and applies a yes only to the change whose question, planned again
after the answer, has that digest. A question is asked once; a yes is spent by the change
it confirms (an earlier showing cannot stand in for it), and a showing expires.
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

    def record(self, digest: str) -> None:
        """The question whose digest is ``digest`` was put in front of the person."""
        now = time.monotonic()
        with self._lock:
            self._until = {d: t for d, t in self._until.items() if t > now}
            self._until[digest] = now + self.ttl_s

    def spend(self, digest: str) -> bool:
        """Whether that question was shown (and has not expired): the yes it got is
        spent by this change."""
        with self._lock:
            return self._until.pop(digest, 0.0) > time.monotonic()
