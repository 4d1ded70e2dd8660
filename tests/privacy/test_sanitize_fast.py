"""The sanitizer's fast path is conservative: what it calls clean, the full walk keeps.

``fast.quick`` lets a message or Responses item through untouched; that is only sound if
the full walk of the same unit would return the very same object and count nothing. The
walk is run here directly (``Walker.unit`` with the shape's handler), for generated
messages of all three shapes, with and without credential redaction.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from tests.privacy.test_sanitize import (
    anthropic_blocks,
    chat_messages,
    part_lists,
    response_items,
    texts,
)
from waymarks.core.privacy import parse_marked
from waymarks.core.secrets import might_contain_secret
from waymarks.planner.sanitize import anthropic, chat, fast, responses
from waymarks.planner.sanitize.walker import Handler, Walker

plain_words = st.text(alphabet="abcdefgh .,\n", max_size=40)
plain_messages = st.fixed_dictionaries({
    "role": st.sampled_from(["user", "assistant"]),
    "content": plain_words | st.lists(plain_words.map(lambda t: {"type": "text", "text": t}),
                                      max_size=3)})
plain_items = st.fixed_dictionaries({
    "type": st.just("message"), "role": st.sampled_from(["user", "assistant"]),
    "content": st.lists(plain_words.map(lambda t: {"type": "input_text", "text": t}),
                        max_size=3)})
anthropic_messages = st.fixed_dictionaries({
    "role": st.sampled_from(["user", "assistant"]),
    "content": texts | st.lists(anthropic_blocks, max_size=3)})
messages = chat_messages | anthropic_messages | plain_messages | st.fixed_dictionaries(
    {"role": st.just("user"), "content": part_lists("text")})
items = response_items | plain_items
suspects = st.sampled_from([might_contain_secret, None])
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def full_walk(unit: dict[str, Any], handler: Handler, suspect: Any) -> tuple[Any, Walker]:
    walker = Walker(frozenset({"normal"}), parse_marked, suspect, anthropic.BLOCKS)
    return walker.unit(handler, unit), walker


def assert_kept(unit: dict[str, Any], handler: Handler, suspect: Any) -> None:
    out, walker = full_walk(unit, handler, suspect)
    assert out is unit
    assert (walker.removed, walker.redacted, walker.markers) == (0, 0, 0)


def a_message_the_fast_path_keeps_is_one_the_walk_keeps(
        message: dict[str, Any], suspect: Any) -> None:
    if fast.quick(message, suspect):
        assert_kept(message, chat.message_unit, suspect)


@lanes(quick=30, long=300)
def test_a_message_the_fast_path_keeps_is_one_the_walk_keeps(examples: int) -> None:
    run_property(examples, a_message_the_fast_path_keeps_is_one_the_walk_keeps,
                 messages, suspects, base=PROPERTY)


def an_item_the_fast_path_keeps_is_one_the_walk_keeps(
        item: dict[str, Any], suspect: Any) -> None:
    if fast.quick(item, suspect):
        assert_kept(item, responses.item_unit, suspect)


@lanes(quick=30, long=300)
def test_an_item_the_fast_path_keeps_is_one_the_walk_keeps(examples: int) -> None:
    run_property(examples, an_item_the_fast_path_keeps_is_one_the_walk_keeps,
                 items, suspects, base=PROPERTY)


@pytest.mark.parametrize(("unit", "suspect", "clean"), [
    ({"role": "user", "content": "plain words"}, might_contain_secret, True),
    ({"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "ok", "annotations": []}]}, might_contain_secret, True),
    ({"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function",
        "function": {"name": "f", "arguments": "{\"q\": 1}"}}]}, might_contain_secret, True),
    ({"role": "user", "content": "password=hunter22"}, might_contain_secret, False),
    ({"role": "user", "content": "password=hunter22"}, None, True),  # nothing to redact
    ({"role": "user", "content": "a [ds4:internal]b[/ds4:internal]"}, None, False),
    ({"role": "user", "content": [{"type": "text", "text": 5}]}, None, False),
    ({"role": "user", "content": "x", "a:b": 1}, None, False),
    ({"type": "function_call", "arguments": {"k": ["sk-proj-abcdefghijklmnopqrstuv0123"]}},
     might_contain_secret, False),
])
def test_the_fast_path_on_known_units(unit: dict[str, Any], suspect: Any, clean: bool) -> None:
    assert fast.quick(unit, suspect) is clean
    if clean:
        assert_kept(unit, chat.message_unit if "role" in unit else responses.item_unit,
                    suspect)
