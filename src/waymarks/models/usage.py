"""What a provider reports about a call's usage, as far as it can be believed.

Shared by every adapter (HTTP, ``claude -p`` and Pi's extension): a token count is
whatever the other side printed, and 2**64 of them overflowed the call's accounting row
(SQLite's integers are 64 bits), which left the job leased and its call reserved, and
every retry paid again.
"""

from __future__ import annotations

from typing import Final

#: more tokens than any call can use: a count above is not believed
MAX_TOKENS_COUNTED: Final = 10**9


def token_count(value: object) -> int:
    """A token count the provider reported: a plausible one (an integer from 0 to
    :data:`MAX_TOKENS_COUNTED`), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and (
        0 <= value <= MAX_TOKENS_COUNTED) else 0
