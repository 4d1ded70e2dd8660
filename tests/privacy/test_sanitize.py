"""The provider-payload sanitizer (waymarks.planner.sanitize) in all three shapes."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core.egress import Egress
from waymarks.core.privacy import LEVELS, WITHHELD, ProviderPolicy, has_markers
from waymarks.planner import sanitize as sanitize_module
from waymarks.planner.sanitize import SanitizeOutcome, sanitize

LOCAL = ProviderPolicy.from_config({"localProviders": ["ollama"],
                                    "remoteProviders": {"gateway": "sensitive"}})
KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
LOCAL_SPAN = "[ds4:local-only]home address[/ds4:local-only]"


def run(payload: Any, provider: str = "openai",
        policy: ProviderPolicy = LOCAL) -> SanitizeOutcome:
    before = copy.deepcopy(payload)
    outcome = sanitize(payload, provider, policy)
    assert payload == before, "the input was modified"
    assert outcome.payload is None or outcome.payload is not payload
    return outcome


def ok(payload: Any, provider: str = "openai", policy: ProviderPolicy = LOCAL
       ) -> dict[str, Any]:
    outcome = run(payload, provider, policy)
    assert not outcome.withheld, outcome.reason
    assert outcome.payload is not None
    return outcome.payload


# -- Chat Completions -------------------------------------------------------------------


def chat() -> dict[str, Any]:
    return {
        "model": "gpt-4.1", "temperature": 0.2, "stream": True,
        "messages": [
            {"role": "system", "content": "Be brief. [ds4:internal]Team rule[/ds4:internal]"},
            {"role": "user", "content": f"Ship it. {LOCAL_SPAN} key={KEY}"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {
                    "name": "read", "arguments": json.dumps({"path": f"a {LOCAL_SPAN}"})}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "[ds4:local-only] all of it"},
            {"role": "user", "content": [
                {"type": "text", "text": "look \\[ds4:internal] literally"},
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]},
        ],
        "tools": [{"type": "function", "function": {"name": "read", "description": "Read",
                                                    "parameters": {"type": "object"}}}],
    }


def test_chat_for_a_remote_provider() -> None:
    payload = chat()
    outcome = run(payload)
    out = outcome.payload
    assert out is not None and outcome.shape == "chat" and outcome.destination == "remote"
    messages = out["messages"]
    assert messages[0]["content"] == f"Be brief. {WITHHELD}"
    assert messages[1]["content"] == f"Ship it. {WITHHELD} key=[REDACTED:openai-key]"
    assert json.loads(messages[2]["tool_calls"][0]["function"]["arguments"]) == {
        "path": f"a {WITHHELD}"}
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": WITHHELD}
    assert messages[4]["content"][0]["text"] == "look \\[ds4:internal] literally"
    assert messages[4] is payload["messages"][4]  # untouched parts are shared, not copied
    # every structural field is kept
    for key in ("model", "temperature", "stream", "tools"):
        assert out[key] == chat()[key]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert (outcome.removed_blocks, outcome.redacted_values) == (4, 1)
    assert outcome.stripped_markers == 7
    assert "home address" not in json.dumps(out) and KEY not in json.dumps(out)


def test_chat_for_a_local_provider_keeps_everything_but_the_tags() -> None:
    outcome = run(chat(), "Ollama")
    out = outcome.payload
    assert out is not None and outcome.destination == "local"
    assert out["messages"][1]["content"] == f"Ship it. home address key={KEY}"
    assert out["messages"][3]["content"] == " all of it"
    assert outcome.removed_blocks == 0 and outcome.redacted_values == 0


def test_a_provider_allowed_sensitive_gets_sensitive_spans_only() -> None:
    text = "[ds4:sensitive]s[/ds4:sensitive] [ds4:local-only]l[/ds4:local-only]"
    payload = {"messages": [{"role": "user", "content": text}]}
    assert ok(payload, "gateway")["messages"][0]["content"] == f"s {WITHHELD}"


def test_an_unchanged_payload_is_a_new_object_equal_to_the_input() -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    outcome = run(payload)
    assert outcome.payload == payload and not outcome.changed


def test_a_fully_withheld_part_list_keeps_one_placeholder_part() -> None:
    payload = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "[ds4:sensitive]a[/ds4:sensitive]"},
        {"type": "text", "text": LOCAL_SPAN}]}]}
    out = ok(payload)
    assert out["messages"][0]["content"] == [{"type": "text", "text": WITHHELD}]


def test_markers_split_across_parts_classify_the_whole_message() -> None:
    payload = {"messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "intro [ds4:local-only]"},
            {"type": "text", "text": "no marker here, yet inside the span"},
            {"type": "image_url", "image_url": {"url": "https://x.test/private.png"}},
            {"type": "text", "text": "[/ds4:local-only] outro"}]},
        {"role": "assistant", "content": "unaffected"}]}
    outcome = run(payload)
    assert outcome.payload is not None
    assert outcome.payload["messages"][0]["content"] == [{"type": "text", "text": WITHHELD}]
    assert outcome.payload["messages"][1] == payload["messages"][1]
    assert outcome.removed_blocks == 4
    local = ok(payload, "ollama")["messages"][0]["content"]
    assert [p.get("text") for p in local] == ["intro ", "no marker here, yet inside the span",
                                              None, " outro"]


def test_a_leading_marker_classifies_the_rest_of_a_multi_part_message() -> None:
    payload = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "[ds4:sensitive] heading"},
        {"type": "text", "text": "body"}]}]}
    assert ok(payload)["messages"][0]["content"] == [{"type": "text", "text": WITHHELD}]
    assert [p["text"] for p in ok(payload, "gateway")["messages"][0]["content"]] == [
        " heading", "body"]


def test_refusal_and_legacy_function_call() -> None:
    payload = {"messages": [{"role": "assistant", "content": None, "refusal": LOCAL_SPAN,
                             "function_call": {"name": "f", "arguments": LOCAL_SPAN}}]}
    message = ok(payload)["messages"][0]
    assert message == {"role": "assistant", "content": None, "refusal": WITHHELD,
                       "function_call": {"name": "f", "arguments": "{}"}}


# -- Responses --------------------------------------------------------------------------


def responses() -> dict[str, Any]:
    return {
        "model": "gpt-4.1", "store": False,
        "instructions": f"Be brief. {LOCAL_SPAN}",
        "input": [
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": f"token={KEY}"},
                {"type": "input_image", "image_url": "https://x.test/a.png"}]},
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": LOCAL_SPAN, "annotations": []}]},
            {"type": "function_call", "call_id": "c1", "name": "sh",
             "arguments": '{"cmd": "[ds4:sensitive]ls /secret[/ds4:sensitive]"}'},
            {"type": "function_call_output", "call_id": "c1", "output": LOCAL_SPAN},
            {"type": "reasoning", "id": "rs_1", "summary": [
                {"type": "summary_text", "text": LOCAL_SPAN}], "encrypted_content": "opaque"},
            {"role": "user", "content": "[ds4:local-only]everything"},
            {"type": "item_reference", "id": "msg_9"},
        ],
    }


def test_responses_for_a_remote_provider() -> None:
    outcome = run(responses())
    out = outcome.payload
    assert out is not None and outcome.shape == "responses"
    assert out["instructions"] == f"Be brief. {WITHHELD}"
    items = out["input"]
    assert items[0]["content"] == [
        {"type": "input_text", "text": "token=[REDACTED:openai-key]"},
        {"type": "input_image", "image_url": "https://x.test/a.png"}]
    assert items[1]["content"] == [{"type": "output_text", "text": WITHHELD, "annotations": []}]
    assert items[2]["arguments"] == f'{{"cmd": "{WITHHELD}"}}'
    assert items[3] == {"type": "function_call_output", "call_id": "c1", "output": WITHHELD}
    assert items[4] == {"type": "reasoning", "id": "rs_1", "summary": [],
                        "encrypted_content": "opaque"}
    assert items[5] == {"role": "user", "content": WITHHELD}
    assert items[6] == responses()["input"][6]
    assert "home address" not in json.dumps(out) and KEY not in json.dumps(out)


def test_responses_string_input() -> None:
    payload = {"model": "m", "input": f"hi {LOCAL_SPAN}", "instructions": None}
    out = ok(payload)
    assert out == {"model": "m", "input": f"hi {WITHHELD}", "instructions": None}
    assert ok({"input": LOCAL_SPAN})["input"] == WITHHELD


# -- Anthropic Messages -----------------------------------------------------------------


def anthropic() -> dict[str, Any]:
    return {
        "model": "claude", "max_tokens": 1024,
        "system": [{"type": "text", "text": f"Rules. {LOCAL_SPAN}",
                    "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": f"password=hunter22 {LOCAL_SPAN}"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": f"I see {LOCAL_SPAN}", "signature": "s1"},
                {"type": "thinking", "thinking": "plain thought", "signature": "s2"},
                {"type": "text", "text": "Running it."},
                {"type": "tool_use", "id": "tu_1", "name": "bash",
                 "input": {"command": f"cat {LOCAL_SPAN}", "timeout": 5,
                           "env": ["A", f"KEY={KEY}"]}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "tu_1", "content": LOCAL_SPAN},
                {"type": "tool_result", "tool_use_id": "tu_2", "is_error": False,
                 "content": [{"type": "text", "text": LOCAL_SPAN},
                             {"type": "text", "text": "exit 0"}]},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                "data": LOCAL_SPAN}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": "iVBORw0KGgo="}}]},
        ],
    }


def test_anthropic_for_a_remote_provider() -> None:
    outcome = run(anthropic())
    out = outcome.payload
    assert out is not None and outcome.shape == "anthropic"
    assert out["system"] == [{"type": "text", "text": f"Rules. {WITHHELD}",
                              "cache_control": {"type": "ephemeral"}}]
    first, second, third = out["messages"]
    assert first["content"] == f"password=[REDACTED:secret] {WITHHELD}"
    # a signed thinking block that would have to change is dropped whole
    assert [b["type"] for b in second["content"]] == ["thinking", "text", "tool_use"]
    assert second["content"][0]["signature"] == "s2"
    assert second["content"][2] == {"type": "tool_use", "id": "tu_1", "name": "bash", "input": {
        "command": f"cat {WITHHELD}", "timeout": 5, "env": ["A", "KEY=[REDACTED:openai-key]"]}}
    assert third["content"][0] == {"type": "tool_result", "tool_use_id": "tu_1",
                                   "content": WITHHELD}
    assert third["content"][1]["content"] == [{"type": "text", "text": "exit 0"}]
    assert third["content"][1]["is_error"] is False
    assert [b["type"] for b in third["content"]] == ["tool_result", "tool_result", "image"]
    assert "home address" not in json.dumps(out) and KEY not in json.dumps(out)


def test_anthropic_system_string_and_a_prohibited_tool_use() -> None:
    payload = {"system": LOCAL_SPAN, "messages": [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "n", "input": {"q": "x [ds4:local-only]y"}}]}]}
    out = ok(payload)
    assert out["system"] == WITHHELD
    assert out["messages"][0]["content"][0] == {"type": "tool_use", "id": "t", "name": "n",
                                                "input": {"q": WITHHELD}}


# -- everything else in the payload -----------------------------------------------------


def test_markers_outside_text_fields_are_handled_and_other_strings_redacted() -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
               "metadata": {"note": LOCAL_SPAN, "key": f"api_key={KEY}"},
               "tools": [{"name": "t", "description": "d [ds4:internal]i[/ds4:internal]"}]}
    out = ok(payload)
    assert out["metadata"] == {"note": WITHHELD, "key": "api_key=[REDACTED:openai-key]"}
    assert out["tools"] == [{"name": "t", "description": f"d {WITHHELD}"}]


def test_sanitizing_twice_changes_nothing_more() -> None:
    for payload in (chat(), responses(), anthropic()):
        once = ok(payload)
        again = run(once)
        assert again.payload == once and not again.changed


# -- fail closed ------------------------------------------------------------------------


@pytest.mark.parametrize(("payload", "reason"), [
    (["messages"], "not a JSON object"),
    ("text", "not a JSON object"),
    (None, "not a JSON object"),
    ({"model": "m"}, "unknown payload shape"),
    ({"contents": {"parts": [{"text": "gemini"}]}}, "contents is not a list"),
    ({"contents": [{"parts": [5]}]}, "a part is not an object"),
    ({"messages": {"role": "user"}}, "messages is not a list"),
    ({"messages": ["hi"]}, "messages[0] is not an object"),
    ({"messages": [{"role": "user", "content": 5}]}, "content must be"),
    ({"messages": [{"role": "user", "content": [5]}]}, "not an object"),
    ({"input": [{"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": 7}]}]}, "malformed payload"),
    ({"input": ["text"]}, "input[0] is not an object"),
    ({"system": 3, "messages": []}, "system/instructions/input"),
    ({"messages": [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "function": {"arguments": {"[ds4:internal]k": "v"}}}]}]}, "object key"),
    ({"messages": [{"role": "user", "content": "x", "[ds4:local-only]k": "v"}]}, "object key"),
    ({"messages": [], "[ds4:internal]extra": 1}, "object key"),
])
def test_what_cannot_be_sanitized_is_withheld(payload: Any, reason: str) -> None:
    outcome = run(payload)
    assert outcome.withheld and outcome.payload is None
    assert outcome.reason is not None and reason in outcome.reason


def test_an_internal_error_withholds_the_payload(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("home address leaked into an error message")

    monkeypatch.setattr(sanitize_module, "parse_marked", broken)
    outcome = run(chat())
    assert outcome.withheld and outcome.payload is None
    assert outcome.reason == "sanitizer failed (RuntimeError); payload withheld"
    monkeypatch.setattr(sanitize_module, "might_contain_secret", broken)
    outcome = run({"messages": [{"role": "user", "content": "plain"}]})
    assert outcome.withheld and "home address" not in str(outcome)


def test_a_broken_provider_id_is_withheld() -> None:
    outcome = sanitize({"messages": []}, 42)  # type: ignore[arg-type]
    assert outcome.withheld and outcome.reason is not None and "provider" in outcome.reason


def test_deep_nesting_fails_closed() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"a": deep}
    outcome = sanitize({"messages": [], "metadata": deep}, "openai", LOCAL)
    assert outcome.withheld and "RecursionError" in (outcome.reason or "")


# -- one text through the egress -------------------------------------------------------


def test_one_text_through_the_egress() -> None:
    remote, local = Egress.to(LOCAL, "openai"), Egress.to(LOCAL, "ollama")
    assert remote.text(f"a {LOCAL_SPAN} password=hunter22") == \
        f"a {WITHHELD} password=[REDACTED:secret]"
    assert remote.text("x", "sensitive") is None
    assert local.text(LOCAL_SPAN) == "home address"
    assert local.text("password=hunter22") == "password=hunter22"  # local: exact text


# -- properties over generated payloads -------------------------------------------------

SENTINEL = "QZXSENTINEL"
NOISE = [*(f"[ds4:{level}]" for level in LEVELS), *(f"[/ds4:{level}]" for level in LEVELS),
         "\\", "[ds4:", "]", " ", "word ", "14:30", "\n", " password=hunter22 ", f" {KEY} "]
noise = st.lists(st.sampled_from(NOISE), max_size=5).map("".join)
protected = st.just(f"[ds4:local-only]{SENTINEL}[/ds4:local-only]")
texts = st.tuples(noise, protected | noise, noise).map("".join)
ids = st.sampled_from(["a1", "b2", "c3"])


def part_lists(text_type: str) -> st.SearchStrategy[list[Any]]:
    text_part = texts.map(lambda t: {"type": text_type, "text": t})
    split = st.tuples(noise, noise).map(lambda n: [
        {"type": text_type, "text": n[0] + "[ds4:local-only]"},
        {"type": text_type, "text": SENTINEL},
        {"type": text_type, "text": "[/ds4:local-only]" + n[1]}])
    image = st.just({"type": "image_url", "image_url": {"url": "https://x.test/i.png"}})
    return st.lists(text_part | image, max_size=3) | split


chat_messages = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]),
                           "content": texts | part_lists("text")}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.none() | texts,
                           "tool_calls": st.lists(st.fixed_dictionaries({
                               "id": ids, "type": st.just("function"),
                               "function": st.fixed_dictionaries({
                                   "name": st.just("f"), "arguments": texts})}), max_size=2)}),
    st.fixed_dictionaries({"role": st.just("tool"), "tool_call_id": ids, "content": texts}),
)
chat_payloads = st.fixed_dictionaries({
    "model": st.just("gpt"), "messages": st.lists(chat_messages, max_size=5)},
    optional={"tools": st.just([{"type": "function", "function": {"name": "f"}}]),
              "metadata": st.fixed_dictionaries({"note": texts})})

response_items = st.one_of(
    st.fixed_dictionaries({"type": st.just("message"), "role": st.sampled_from(
        ["user", "assistant", "developer"]), "content": texts | part_lists("input_text")}),
    st.fixed_dictionaries({"type": st.just("function_call"), "call_id": ids,
                           "name": st.just("f"), "arguments": texts}),
    st.fixed_dictionaries({"type": st.just("function_call_output"), "call_id": ids,
                           "output": texts}),
    st.fixed_dictionaries({"type": st.just("reasoning"), "id": ids, "summary": st.lists(
        texts.map(lambda t: {"type": "summary_text", "text": t}), max_size=2)}),
)
responses_payloads = st.fixed_dictionaries({
    "model": st.just("gpt"), "input": texts | st.lists(response_items, max_size=5)},
    optional={"instructions": texts})

anthropic_blocks = st.one_of(
    texts.map(lambda t: {"type": "text", "text": t}),
    st.builds(lambda i, t: {"type": "tool_use", "id": i, "name": "f", "input": {"q": t}},
              ids, texts),
    st.builds(lambda i, c: {"type": "tool_result", "tool_use_id": i, "content": c},
              ids, texts | st.lists(texts.map(lambda t: {"type": "text", "text": t}),
                                    max_size=2)),
    texts.map(lambda t: {"type": "thinking", "thinking": t, "signature": "sig"}),
    st.just({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "AAAA"}}),
)
anthropic_payloads = st.fixed_dictionaries({
    "model": st.just("claude"), "max_tokens": st.just(64),
    "system": texts | st.lists(texts.map(lambda t: {"type": "text", "text": t}), max_size=2),
    "messages": st.lists(st.fixed_dictionaries({
        "role": st.sampled_from(["user", "assistant"]),
        "content": texts | st.lists(anthropic_blocks, max_size=4)}), max_size=4)})

payloads = chat_payloads | responses_payloads | anthropic_payloads
remote_policies = st.builds(
    lambda default, own: ProviderPolicy(remote_default_allowed=default,
                                        remote_providers={"openai": own},
                                        local_providers=frozenset({"ollama"})),
    st.sampled_from(LEVELS[:3]), st.sampled_from(LEVELS[:3]))
PROPERTY = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def skeleton(payload: dict[str, Any]) -> Any:
    """The structure a provider relies on: keys, roles, types, IDs and tool names."""
    def walk(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()
                    if k not in ("content", "summary", "input")
                    or not isinstance(v, list | str)}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if key in ("role", "type", "id", "call_id", "tool_call_id", "tool_use_id", "name",
                   "model", "signature", "max_tokens"):
            return value
        return type(value).__name__
    items = payload.get("messages", payload.get("input"))
    return {"top": sorted(payload), "model": payload.get("model"),
            "units": [walk(item) for item in items] if isinstance(items, list) else None}


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*strings(k), *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def a_local_only_span_never_reaches_a_remote_provider(
        payload: dict[str, Any], policy: ProviderPolicy, provider: str) -> None:
    outcome = run(payload, provider, policy)
    if not outcome.withheld:
        assert outcome.payload is not None
        assert SENTINEL not in json.dumps(outcome.payload)
        # credentials are redacted everywhere, metadata included
        assert KEY not in json.dumps(outcome.payload)
        assert not any(has_markers(text) for text in strings(outcome.payload))
    else:
        assert outcome.reason is not None and outcome.reason.startswith("malformed")


@lanes(quick=15, long=300)
def test_a_local_only_span_never_reaches_a_remote_provider(examples: int) -> None:
    run_property(examples, a_local_only_span_never_reaches_a_remote_provider, payloads,
                 remote_policies, st.sampled_from(["openai", "someone-else"]), base=PROPERTY)


def a_local_provider_gets_the_content_without_tags(payload: dict[str, Any]) -> None:
    outcome = run(payload, "ollama")
    assert not outcome.withheld and outcome.redacted_values == 0
    if '"thinking"' not in json.dumps(payload):  # signed thinking with markers is dropped
        assert outcome.removed_blocks == 0
        if SENTINEL in json.dumps(payload):
            assert SENTINEL in json.dumps(outcome.payload)
    assert not any(has_markers(text) for text in strings(outcome.payload))


@lanes(quick=15, long=300)
def test_a_local_provider_gets_the_content_without_tags(examples: int) -> None:
    run_property(examples, a_local_provider_gets_the_content_without_tags, payloads, base=PROPERTY)


def structure_is_preserved(payload: dict[str, Any], policy: ProviderPolicy) -> None:
    outcome = run(payload, "openai", policy)
    assert outcome.payload is not None
    assert skeleton(outcome.payload)["top"] == skeleton(payload)["top"]
    assert skeleton(outcome.payload)["model"] == payload["model"]
    units = payload.get("messages", payload.get("input"))
    out_units = outcome.payload.get("messages", outcome.payload.get("input"))
    if isinstance(units, list):
        assert isinstance(out_units, list)
        assert len(out_units) == len(units)
        for before, after in zip(units, out_units, strict=True):
            assert before.keys() == after.keys()
            for key in ("role", "type", "call_id", "tool_call_id", "name"):
                assert before.get(key) == after.get(key)
            assert type(before.get("content")) is type(after.get("content"))
            calls = [c["id"] for c in before.get("tool_calls", [])]
            assert calls == [c["id"] for c in after.get("tool_calls", [])]
            if isinstance(before.get("content"), list):
                tools = [(b.get("type"), b.get("id"), b.get("tool_use_id"))
                         for b in before["content"] if b.get("type") in ("tool_use",
                                                                         "tool_result")]
                assert tools == [(b.get("type"), b.get("id"), b.get("tool_use_id"))
                                 for b in after["content"] if b.get("type") in ("tool_use",
                                                                                "tool_result")]
    if outcome.removed_blocks or outcome.redacted_values:
        assert outcome.payload != payload


@lanes(quick=15, long=300)
def test_structure_is_preserved(examples: int) -> None:
    run_property(examples, structure_is_preserved, payloads, remote_policies, base=PROPERTY)


def sanitizing_is_idempotent(payload: dict[str, Any], policy: ProviderPolicy) -> None:
    once = run(payload, "openai", policy).payload
    again = run(once, "openai", policy)
    assert again.payload == once and not again.changed


@lanes(quick=15, long=300)
def test_sanitizing_is_idempotent(examples: int) -> None:
    run_property(examples, sanitizing_is_idempotent, payloads, remote_policies, base=PROPERTY)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=8) | st.sampled_from(NOISE),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["messages", "input", "system", "instructions",
                                       "content", "role", "type", "text", "tool_calls",
                                       "function", "arguments", "output", "parts", "x"]),
                      children, max_size=4),
    max_leaves=20)


def the_sanitizer_never_raises(payload: Any, provider: str) -> None:
    outcome = run(payload, provider)
    assert outcome.withheld == (outcome.payload is None)
    if outcome.withheld:
        assert outcome.reason
    else:
        assert isinstance(outcome.payload, dict)
        assert "QZX" not in json.dumps(outcome.payload)  # nothing invented


@lanes(quick=15, long=300)
def test_the_sanitizer_never_raises(examples: int) -> None:
    run_property(examples, the_sanitizer_never_raises, json_values,
                 st.sampled_from(["openai", "ollama"]), base=PROPERTY)
