"""The write decisions, for the service's callers: they live in the core now, beside the
replay fold (:mod:`waymarks.core.decisions`); the service builds their
:class:`WriteContext` under the session lock and runs them (``Waymarks._write``,
``Waymarks.dry_run``). Nothing is defined here.
"""

from __future__ import annotations

from waymarks.core.decisions import (
    Decision,
    WriteContext,
    clean_reason,
    clean_text,
    decide_memory,
    decide_pin,
    decide_status,
    find_target,
    parse_classification,
    parse_scope,
    refuse_credentials,
    text_notices,
)

__all__ = ["Decision", "WriteContext", "clean_reason", "clean_text", "decide_memory",
           "decide_pin", "decide_status", "find_target", "parse_classification", "parse_scope",
           "refuse_credentials", "text_notices"]
