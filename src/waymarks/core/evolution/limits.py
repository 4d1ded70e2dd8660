"""The output ceiling and input budget of one consolidation call (EVOLUTION item 53, F3).

A host that knows the model (Pi: the active model's ``contextWindow`` and ``maxTokens``)
shapes each request with it:

- the output ceiling is the model's declared ``maxTokens``; there is none when it is not
  declared, or when it is not below the context window (some models declare their window
  as their output limit; treating that as a ceiling left no room for input at all: F3);
- without a ceiling, ``RESERVED_OUTPUT_TOKENS`` of the window are kept for the answer;
- the input (system + prompt) must fit the rest, by a conservative estimate: one token per
  CJK character, and one per ``BYTES_PER_TOKEN`` UTF-8 bytes of everything else.

Pure: no I/O, no clock. A request that does not fit is not sent (the caller cools the
model down as for a context overflow and tries the next route).
"""

from __future__ import annotations

from typing import Final

import msgspec

from waymarks.core.model_port import ModelRequest
from waymarks.core.records import replace

RESERVED_OUTPUT_TOKENS: Final = 12_800
BYTES_PER_TOKEN: Final = 3


class ModelLimits(msgspec.Struct, frozen=True):
    """What the host says about a model; ``None`` where it declares nothing."""

    context_window: int | None = None
    max_tokens: int | None = None

    @classmethod
    def from_host(cls, window: object, max_tokens: object) -> ModelLimits | None:
        """From a host's numbers (anything not a positive integer is "not declared");
        None when neither is declared."""
        found = cls(_positive(window), _positive(max_tokens))
        return None if found == cls() else found


def _positive(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value <= 0 or value == float("inf"):  # NaN, negative, infinite
        return None
    return int(value)


def _cjk(char: str) -> bool:
    code = ord(char)
    return (0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF
            or 0xAC00 <= code <= 0xD7AF or 0xF900 <= code <= 0xFAFF
            or 0x20000 <= code <= 0x2FA1F)


def estimate_tokens(text: str) -> int:
    """A conservative token count: 1 per CJK character, 1 per 3 bytes of the rest."""
    if text.isascii():
        return -(-len(text) // BYTES_PER_TOKEN)
    cjk = sum(1 for c in text if _cjk(c))
    rest = len(text.encode("utf-8")) - 3 * cjk  # every CJK character is 3 bytes (or 4)
    return cjk + -(-max(0, rest) // BYTES_PER_TOKEN)


def output_ceiling(limits: ModelLimits) -> int | None:
    """The model's maxTokens, unless undeclared or not below the context window."""
    ceiling = limits.max_tokens
    if ceiling is None:
        return None
    if limits.context_window is not None and ceiling >= limits.context_window:
        return None
    return ceiling


def input_budget(limits: ModelLimits) -> int | None:
    """Tokens the input may take (None: the window is not declared: no check)."""
    if limits.context_window is None:
        return None
    reserve = output_ceiling(limits) or RESERVED_OUTPUT_TOKENS
    return limits.context_window - reserve


def shape_request(request: ModelRequest, limits: ModelLimits) -> ModelRequest | None:
    """``request`` with the model's output ceiling (0: none, the provider's default),
    or None when its input does not fit the model's window."""
    budget = input_budget(limits)
    if budget is not None and estimate_tokens(request.system) + estimate_tokens(
            request.prompt) > budget:
        return None
    return replace(request, max_output_tokens=output_ceiling(limits) or 0)
