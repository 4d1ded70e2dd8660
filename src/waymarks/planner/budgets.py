"""The token and count budgets of a plan (the ``[context]`` and ``[memory]`` settings).

A module of its own so that reading the settings (every request does, for the provider
policy) does not import the planner: a one-shot recall never plans. Pure.
"""

from __future__ import annotations

import msgspec


class Budgets(msgspec.Struct, frozen=True):
    max_pinned_tokens: int = 16000
    max_memory_tokens: int = 8000
    max_results: int = 12
    max_history_tokens: int = 4000
    max_snippet_tokens: int = 4000
    max_personal_tokens: int = 1000
    max_learned_tokens: int = 1000  # learned (evolved) claims: their own budget
    #: the most added context the host takes, pins included (tokens; ``None``: no cap).
    #: A host's own limit, never a setting: Claude Code keeps at most 10,000 characters
    #: of a hook's context and saves the rest to a file the model sees 2 KB of
    max_context_tokens: int | None = None
