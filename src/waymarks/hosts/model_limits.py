"""What the hosts tell the planner about the model's hard limit (seed 000: "final
system/tools/messages validation still enforces the active model hard limit").

The planner drops lower priorities (memory, then the personal index, history, snippets)
when the request would not fit, and falls back when even pins and the request do not
(:func:`waymarks.planner.select.build_plan`). It needs two numbers per request:

- the **model limit**: the context window of the model the request goes to;
- the **fixed tokens**: what the host sends anyway (system prompt, tool definitions and
  the conversation so far).

Pi knows both: the extension reads the active model's ``contextWindow`` and sends the
character counts of the system prompt, the active tools' definitions and the messages
(:func:`pi_fixed_tokens`). Claude Code tells a hook neither, so the hook reads the tail
of Claude Code's transcript: the model of the last answer (looked up in
:data:`KNOWN_WINDOWS`, else ``[context] defaultContextWindow``, else no limit) and that
answer's usage, which is the whole context that request took plus its own output
(:func:`claude_code_limits`). The table's window is a floor, not a ceiling: Claude Code
run with ``--model 'claude-sonnet-4-5[1m]'`` writes ``claude-sonnet-4-5`` (no ``[1m]``)
in its transcript and names no model to a hook, so the home's own
``defaultContextWindow`` counts when it is larger, and an answer whose usage already
passed the window shows the window is larger (:data:`CLAUDE_WINDOWS`).

Estimates err on the safe side (characters / 4, JSON overhead included); a wrong or
missing number never blocks a prompt: it only leaves the limit unchecked, as before.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any, Final

from waymarks.core.c_json import loads
from waymarks.core.lazy_re import lazy

#: context windows of the models Claude Code runs, by model-name prefix (longest first
#: wins); every current Claude model has a 200k window unless the 1M beta is named
KNOWN_WINDOWS: Final[tuple[tuple[str, int], ...]] = (
    ("claude-opus-4", 200_000),
    ("claude-sonnet-4", 200_000),
    ("claude-haiku-4", 200_000),
    ("claude-3-7-sonnet", 200_000),
    ("claude-3-5-sonnet", 200_000),
    ("claude-3-5-haiku", 200_000),
    ("claude-3-opus", 200_000),
    ("claude-3-haiku", 200_000),
)
#: the windows a Claude model runs with, smallest first: one whose last answer took more
#: than its table window has the next size (the 1M beta is not named in the transcript)
CLAUDE_WINDOWS: Final = (200_000, 1_000_000)
ONE_MILLION: Final = lazy(r"\[1m\]$", re.IGNORECASE)
TRANSCRIPT_TAIL_BYTES: Final = 512 * 1024
MAX_TOKENS: Final = 100_000_000  # anything above is not a real window


def tokens_of_chars(chars: object) -> int:
    """The planner's estimate for ``chars`` characters of mostly ASCII text."""
    return (chars + 3) // 4 if type(chars) is int and chars > 0 else 0


def pi_fixed_tokens(fixed: object) -> int:
    """Pi's ``fixed`` as tokens: the extension's estimate of each part by the planner's
    rule (``systemTokens``, ``toolsTokens``, ``messagesTokens``), else its characters as
    mostly ASCII text (an extension from before it counted tokens; a CJK or emoji
    conversation counted at a quarter of a token a character passed the model's limit)."""
    if not isinstance(fixed, dict):
        return 0
    total = 0
    for part in ("system", "tools", "messages"):
        tokens = fixed.get(f"{part}Tokens")
        total += tokens if type(tokens) is int and 0 <= tokens <= MAX_TOKENS \
            else tokens_of_chars(fixed.get(f"{part}Chars"))
    return total


def valid_limit(value: object) -> int | None:
    return value if type(value) is int and 0 < value <= MAX_TOKENS else None


def window_of(model: str | None, default: int | None, trust_default: bool = False,
              used: int = 0) -> int | None:
    """The context window of a Claude model name, else the configured default.

    ``trust_default``: the default is the home's own (a project may only lower it), so it
    counts for a known model too when it is larger than the table's window. A window the
    last answer's ``used`` tokens already passed is not the window: for a Claude model the
    next of :data:`CLAUDE_WINDOWS` above it, else no limit (a wrong number never blocks a
    prompt; a 1M session past 200k lost its pins on every prompt)."""
    table = _table_window(model)
    if table is None:
        return default if default is None or used <= default else None
    if trust_default and default is not None and default > table:
        table = default
    if used <= table:
        return table
    return next((size for size in CLAUDE_WINDOWS if size > used), None)


def _table_window(model: str | None) -> int | None:
    """The window :data:`KNOWN_WINDOWS` gives a model name (1M for a ``[1m]`` one)."""
    if model:
        name = model.strip().lower()
        if ONE_MILLION.search(name):
            return 1_000_000
        for prefix, window in sorted(KNOWN_WINDOWS, key=lambda p: -len(p[0])):
            if name.startswith(prefix):
                return window
    return None


def configured_window(raw: dict[str, Any]) -> int | None:
    """``[context] defaultContextWindow`` (positive tokens), if set."""
    context = raw.get("context")
    return valid_limit(context.get("defaultContextWindow")) if isinstance(context, dict) \
        else None


def claude_code_limits(transcript: object, default: int | None,
                       trust_default: bool = False) -> tuple[int | None, int]:
    """``(model limit, fixed tokens)`` for the next request of a Claude Code session
    (``trust_default``: see :func:`window_of`)."""
    model, used = _last_answer(transcript)
    return window_of(model, default, trust_default, used), used


def _last_answer(transcript: object) -> tuple[str | None, int]:
    """The model and the context tokens (input, cache reads and writes, output) of the
    last assistant message of the main thread in the transcript's tail; ``(None, 0)`` when
    there is none. A subagent's messages (``isSidechain``, written into the session's own
    file by Claude Code versions that keep subagents inline) are not the conversation's: a
    subagent near its own window, last in the file after an interrupted or background
    task, made the next prompt add nothing, though the conversation had room."""
    if not isinstance(transcript, str) or not os.path.isabs(transcript):
        # (Claude Code names it absolute; a relative one was read from the hook's folder
        # without the helper and from the home with it: two answers to one prompt)
        return None, 0
    try:  # a regular file only, its tail only (a FIFO blocked the hook; /dev/zero ate GBs)
        fd = os.open(transcript, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None, 0
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            return None, 0
        os.lseek(fd, max(0, found.st_size - TRANSCRIPT_TAIL_BYTES), os.SEEK_SET)
        tail = os.read(fd, TRANSCRIPT_TAIL_BYTES)
    except OSError:
        return None, 0
    finally:
        os.close(fd)
    for line in reversed(tail.splitlines()):
        try:
            entry = loads(line)  # (json.loads, no json package)
        except (ValueError, RecursionError):
            continue  # the first line of the tail may be cut
        if not isinstance(entry, dict) or entry.get("isSidechain"):
            continue  # a subagent's answer: its own model and context, not the session's
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        raw_model, raw_usage = message.get("model"), message.get("usage")
        model = raw_model if isinstance(raw_model, str) else None
        usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
        counts = [usage.get(k) for k in ("input_tokens", "cache_creation_input_tokens",
                                         "cache_read_input_tokens", "output_tokens")]
        used = sum(c for c in counts if type(c) is int and c > 0)
        if model == "<synthetic>":
            continue  # Claude Code's own placeholder answers name no model
        return model, used
    return None, 0
