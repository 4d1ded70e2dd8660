"""Results reused from earlier runs (``Memo``) are the results of scanning everything.

Pi's bridge sends one growing conversation again and again; with a ``Memo`` a request
costs what is new in it. What is checked here: a run through a memo that earlier runs
filled (any payloads, any policies, any provider, redacting or not) gives the very bytes
and counts a fresh run gives, and a credential kept for a local model never comes back
from the memo for a remote one.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from tests.privacy.test_sanitize import PROPERTY, payloads, remote_policies
from waymarks.core.privacy import ProviderPolicy
from waymarks.planner.sanitize import Memo, SanitizeOutcome, sanitize

providers = st.sampled_from(["openai", "anthropic", "ollama"])
runs = st.lists(st.tuples(payloads, remote_policies, providers), min_size=1, max_size=6)
#: a memo's bounds: the default, or small enough that runs evict
bounds = st.sampled_from([(200_000, 16 * 2**20), (3, 400), (8, 4_000)])


def seen(outcome: SanitizeOutcome) -> tuple[Any, ...]:
    return (json.dumps(outcome.payload), outcome.withheld, outcome.reason, outcome.shape,
            outcome.removed_blocks, outcome.redacted_values, outcome.stripped_markers)


def crossed(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """``payload``, then its messages in the other shapes one memo may see them in: as
    Responses ``input`` items (the same units under another handler) and without
    ``system`` (an Anthropic payload told apart by its blocks alone)."""
    messages = payload.get("messages")
    if not isinstance(messages, list):
        return [payload]
    return [payload, {"input": messages},
            {key: value for key, value in payload.items() if key != "system"}]


def runs_through_a_memo_are_fresh_runs(runs: list[tuple[Any, ProviderPolicy, str]],
                                       bounds: tuple[int, int]) -> None:
    memo = Memo(*bounds)
    for _ in range(2):  # the second pass finds every unit stored
        for payload, policy, provider in ((payload, policy, provider)
                                          for sent, policy, provider in runs
                                          for payload in crossed(sent)):
            before = json.dumps(payload)
            assert seen(sanitize(payload, provider, policy, memo)) \
                == seen(sanitize(payload, provider, policy))
            assert json.dumps(payload) == before  # the input untouched


@lanes(quick=30, long=300)
def test_runs_through_a_memo_are_fresh_runs(examples: int) -> None:
    run_property(examples, runs_through_a_memo_are_fresh_runs, runs, bounds,
                 base=PROPERTY)


def test_a_credential_kept_for_a_local_model_is_redacted_for_a_remote_one() -> None:
    key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2
    kept = "[ds4:local-only]the plan[/ds4:local-only]"
    payload = {"messages": [{"role": "user", "content": f"export OPENAI_API_KEY={key}"},
                            {"role": "user", "content": kept}]}
    memo = Memo()
    policy = ProviderPolicy(local_providers=frozenset({"ollama"}))
    local = sanitize(payload, "ollama", policy, memo)
    assert key in json.dumps(local.payload) and "the plan" in json.dumps(local.payload)
    remote = sanitize(payload, "openai", policy, memo)
    assert key not in json.dumps(remote.payload) and "the plan" not in json.dumps(remote.payload)
    assert remote.redacted_values == 1
    quiet = ProviderPolicy(local_providers=frozenset({"ollama"}), redact_secrets=False)
    assert key in json.dumps(sanitize(payload, "openai", quiet, memo).payload)
    assert key not in json.dumps(sanitize(payload, "openai", policy, memo).payload)


def test_the_memo_keeps_to_its_bounds() -> None:
    memo = Memo(entries=3, held=10_000)
    policy = ProviderPolicy()
    for n in range(10):
        sanitize({"messages": [{"role": "user", "content": f"plain turn {n}"},
                               {"role": "user", "content": "x" * 6_000 + " [ds4:internal]"
                                f"{n}[/ds4:internal]"}]}, "openai", policy, memo)
        assert len(memo) <= 3
    assert memo.held >= sum(s.size for s in memo._stored.values())


def test_a_conversation_past_the_bounds_keeps_its_earliest_turns() -> None:
    # evicting the least recently used in turn, each request evicted what it would look
    # up next: a session past the bounds found nothing, and cost more than no memo at all
    policy = ProviderPolicy()
    plain = [{"role": "user", "content": f"plain turn {n}"} for n in range(6)]
    marked = [{"role": "user", "content": f"turn {n} [ds4:internal]x{n}[/ds4:internal]"}
              for n in range(6)]
    for memo, turns in ((Memo(entries=3), plain), (Memo(held=3 * 60), marked)):
        fresh = seen(sanitize({"messages": turns}, "openai", policy))
        for request in range(3):
            memo.hits = memo.misses = 0
            assert seen(sanitize({"messages": turns}, "openai", policy, memo)) == fresh
            assert (memo.hits, memo.misses) == ((0, 6) if request == 0 else (3, 3))
        assert len(memo) == 3
