"""The seam between memory evolution's job queue and its consolidation step (seed 004).

Two halves of the learning loop meet here and nowhere else:

- the **job queue** (leases, backoff, caps, routes, model calls) knows sources only by their
  ``SourceRef`` and model traffic only as ``ModelRequest`` → ``ModelReply``/``ModelError``;
- the **consolidation step** knows what a source holds, builds the request for it, and applies
  a reply as conservative writes; it never performs network I/O or holds a lease.

So the queue can run against any step, and a step against any model client. Everything here is
plain data: no I/O, no clock (times are passed in as ISO-8601 strings).

Invariants both sides rely on:
- a ``ModelRequest`` is already sanitized and bounded; ``classification`` is the highest privacy
  class of anything in it, so the queue can refuse a route whose provider may not receive it
  (the job waits; status says why) without reading the text;
- ``ModelError.code`` is one of ``MODEL_ERROR_CODES``: only these reach persisted state or
  status, never exception text, provider bodies, model output or credentials.
"""

from __future__ import annotations

from typing import Literal, Protocol

import msgspec

ModelErrorCode = Literal[
    "timeout",  # the attempt's deadline passed
    "rate_limited",  # 429 or a provider's equivalent
    "quota",  # 402 / quota or billing exhausted: the account, not the model
    "overloaded",  # 5xx / 529: the provider, not the request
    "auth",  # 401/403, missing key
    "bad_request",  # 400/404/422: this request will not succeed as it is
    "network",  # connection refused, reset, DNS
    "cancelled",  # shutdown or abort: never counted as a failure
    "unavailable",  # no completion API on this host / no route configured
    "invalid_output",  # the reply broke the output contract
    "unknown",
]
MODEL_ERROR_CODES: frozenset[str] = frozenset(ModelErrorCode.__args__)  # type: ignore[attr-defined]


class ModelRequest(msgspec.Struct, frozen=True):
    """One consolidation call: a system instruction and one user payload (both final text)."""

    system: str
    prompt: str
    max_output_tokens: int
    classification: str  # highest privacy class inside the payload (core.privacy levels)


class ModelReply(msgspec.Struct, frozen=True):
    """A completed call. ``model`` is the identity captured before the call was awaited."""

    text: str
    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    #: what the provider says the call cost (OpenRouter's ``usage.cost``, Pi's
    #: ``usage.cost.total``); None when it says nothing
    reported_usd: float | None = None
    #: reasoning tokens inside ``output_tokens``, when the provider reports them
    reasoning_tokens: int = 0


class ModelError(Exception):
    """A failed call, reduced to an allowlisted code (``MODEL_ERROR_CODES``)."""

    def __init__(self, code: ModelErrorCode, *, retry_after_s: float | None = None,
                 billed: ModelReply | None = None, refused: bool = False) -> None:
        if code not in MODEL_ERROR_CODES:
            raise ValueError(f"not a model error code: {code!r}")
        super().__init__(code)
        self.code: ModelErrorCode = code
        self.retry_after_s = retry_after_s
        #: the usage the provider reported for a reply it billed and that still failed (a
        #: reply cut at its max tokens); its text is empty, never the reply's
        self.billed = billed
        #: the provider answered with an error status (4xx, 5xx): it served nothing, so
        #: billed nothing, whatever the code (a 500 is not a reply cut short)
        self.refused = refused


class Route(msgspec.Struct, frozen=True):
    """Where a call goes: a provider name (as the privacy policy names providers) and a model."""

    provider: str
    model: str


class ModelClient(Protocol):
    """One adapter per way of reaching a model (HTTP endpoint, ``claude -p``, Pi's bridge)."""

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        """Perform one call. Raises ``ModelError`` (never anything else for a failed call)."""
        ...


class SourceRef(msgspec.Struct, frozen=True):
    """A captured source awaiting consolidation, as the queue sees it (no text)."""

    source_id: str
    origin: str  # canonical cwd at capture
    classification: str
    captured_at: str  # ISO-8601


class StepOutcome(msgspec.Struct, frozen=True):
    """What applying a reply did. ``code`` is ``applied`` or a fixed refusal/validation reason."""

    code: str  # "applied" | "refused_only" | "invalid_output" | "no_change" | an authority reason
    written: int = 0  # claims added or changed
    refused: int = 0  # replacements refused or quarantined
    #: for ``invalid_output``: the fixed name of the contract rule broken (for a correction)
    rule: str | None = None


class ConsolidationStep(Protocol):
    """The consolidation half: builds requests and applies replies; no network, no leases."""

    def unsettled(self, limit: int) -> list[SourceRef]:
        """Sources captured but not yet consolidated (nor given up), oldest first."""
        ...

    def request_for(self, source_id: str) -> ModelRequest | None:
        """The call to make for a source, or None when it needs no call (already settled)."""
        ...

    def apply(self, source_id: str, reply: ModelReply, at: str, *,
              secrets: frozenset[str] = frozenset()) -> StepOutcome:
        """Validate a reply against the output contract and write what it may, in one go.
        ``secrets``: values no claim or search term may hold (the routes' API keys: a
        provider that echoes its key must not get it into learned memory).

        Idempotent per source: applying to a settled source changes nothing."""
        ...

    def give_up(self, source_id: str, code: str, at: str) -> None:
        """Record that a source will not be consolidated (attempt budget spent)."""
        ...
