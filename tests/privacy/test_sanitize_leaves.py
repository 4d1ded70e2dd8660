"""Every model-visible string of a payload is redacted for a remote provider.

Not only the text-bearing fields: ``prediction``, ``response_format``, ``user``,
``metadata``, tool schemas and document titles reach the model or the provider's logs
too. Only structural values (``walker.STRUCTURAL``: IDs, signatures, roles, types, the
model) and encoded blobs (``walker.ENCODED``) are exempt, and those are never altered.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from tests.privacy.test_sanitize import (
    LOCAL,
    LOCAL_SPAN,
    ok,
    payloads,
    remote_policies,
    run,
)
from waymarks.core.privacy import WITHHELD
from waymarks.planner.sanitize.walker import ENCODED, STRUCTURAL

GHP = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SK = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
RED = "[REDACTED:github-token]"


def test_chat_top_level_fields_are_redacted() -> None:
    payload = {
        "model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}],
        "prediction": {"type": "content", "content": f"pred {GHP}"},
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "s", "description": f"desc {GHP}", "schema": {"type": "object"}}},
        "user": GHP, "metadata": {"note": f"api_key={SK}"},
        "tools": [{"type": "function", "function": {
            "name": "f", "description": f"uses {GHP}", "parameters": {
                "type": "object", "properties": {"q": {"enum": [GHP, "b"]}}}}}],
    }
    outcome = ok(payload)
    assert outcome["prediction"] == {"type": "content", "content": f"pred {RED}"}
    assert outcome["response_format"]["json_schema"] == {
        "name": "s", "description": f"desc {RED}", "schema": {"type": "object"}}
    assert outcome["user"] == RED
    assert outcome["metadata"] == {"note": "api_key=[REDACTED:openai-key]"}
    function = outcome["tools"][0]["function"]
    assert function["description"] == f"uses {RED}"
    assert function["parameters"]["properties"]["q"]["enum"] == [RED, "b"]
    assert GHP not in json.dumps(outcome) and SK not in json.dumps(outcome)


def test_responses_top_level_and_item_fields_are_redacted() -> None:
    payload = {
        "model": "gpt-5", "instructions": "be brief", "user": f"u {GHP}",
        "text": {"format": {"type": "json_schema", "name": "s", "description": GHP}},
        "input": [{"type": "message", "role": "user", "content": "hi", "note": GHP},
                  {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f",
                   "arguments": "{}", "extra": {"k": GHP}}],
    }
    out = ok(payload)
    assert out["user"] == f"u {RED}"
    assert out["text"]["format"] == {"type": "json_schema", "name": "s", "description": RED}
    assert out["input"][0]["note"] == RED
    assert out["input"][1] == {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                               "name": "f", "arguments": "{}", "extra": {"k": RED}}


def test_anthropic_document_title_context_and_metadata_are_redacted() -> None:
    payload = {
        "model": "claude", "max_tokens": 64, "system": "s",
        "metadata": {"user_id": GHP},
        "messages": [{"role": "user", "content": [
            {"type": "document", "title": f"t {GHP}", "context": f"c {GHP}",
             "source": {"type": "text", "media_type": "text/plain", "data": "body"}},
            {"type": "document", "title": GHP, "source": {
                "type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}},
        ]}],
    }
    out = ok(payload)
    assert out["metadata"] == {"user_id": RED}
    first, second = out["messages"][0]["content"]
    assert first["title"] == f"t {RED}" and first["context"] == f"c {RED}"
    assert first["source"]["data"] == "body"
    assert second["title"] == RED and second["source"]["data"] == "JVBERi0x"


def test_structural_values_are_never_altered() -> None:
    """IDs, signatures and encoded blobs that look like credentials are sent as they are
    (a provider rejects an altered signature); their siblings are still redacted."""
    payload = {
        "model": "claude", "system": "s", "messages": [
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "plain", "signature": GHP, "note": GHP},
                {"type": "redacted_thinking", "data": GHP},
                {"type": "tool_use", "id": GHP, "name": "f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": GHP, "content": "ok"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": GHP}}]}]}
    out = ok(payload)
    thinking, redacted, tool_use = out["messages"][0]["content"]
    assert thinking == {"type": "thinking", "thinking": "plain", "signature": GHP, "note": RED}
    assert redacted == {"type": "redacted_thinking", "data": GHP}
    assert tool_use["id"] == GHP
    result, image = out["messages"][1]["content"]
    assert result["tool_use_id"] == GHP and image["source"]["data"] == GHP
    chat = {"model": GHP, "messages": [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": GHP, "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": GHP, "content": "done"}]}
    out = ok(chat)
    assert out["model"] == GHP
    assert out["messages"][0]["tool_calls"][0]["id"] == GHP
    assert out["messages"][1]["tool_call_id"] == GHP


def test_markers_in_generic_fields_are_still_withheld_and_local_is_untouched() -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
               "prediction": {"type": "content", "content": f"{LOCAL_SPAN} {GHP}"},
               "user": GHP}
    out = ok(payload)
    assert out["prediction"]["content"] == f"{WITHHELD} {RED}"
    local = ok(payload, "ollama", LOCAL)
    assert local["user"] == GHP  # a local provider gets credentials as they are
    assert local["prediction"]["content"] == f"home address {GHP}"


def test_a_credential_under_a_media_type_or_signature_key_is_redacted_in_any_shape() -> None:
    """Gemini's ``thoughtSignature`` and ``mimeType`` (and ``mime_type``, Anthropic's
    ``media_type``) were structural in every shape, never redacted: a credential a tool
    or a person put under one of those keys went to OpenAI, Anthropic or Bedrock in
    clear. A media type needs no exemption; a part's signature is kept in Gemini only."""
    keys = ("thoughtSignature", "mimeType", "mime_type", "media_type")
    planted = {key: GHP for key in keys}
    shapes: list[tuple[dict[str, Any], str]] = [
        ({"model": "gpt-4.1", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}, **planted}]},
            {"role": "assistant", "content": "ok", **planted}], **planted}, "openai"),
        ({"model": "gpt-5", "input": [{"type": "message", "role": "user", "content": "hi",
                                       **planted}]}, "openai"),
        ({"model": "claude", "system": "s", "messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png",
                                         **planted}}]}]}, "anthropic"),
        ({"modelId": "m", "messages": [{"role": "user", "content": [
            {"text": "hi"}, {"document": {"name": "d", **planted}}]}]}, "bedrock"),
        ({"contents": [{"role": "user", "parts": [
            {"inlineData": {"data": "iVBORw0KGgo", "mimeType": GHP}},
            {"fileData": {"fileUri": "gs://b/o", "mimeType": GHP}}]}]}, "google"),
    ]
    for payload, provider in shapes:
        sent = json.dumps(ok(payload, provider))
        assert GHP not in sent and RED in sent, (provider, sent)
    signed = {"contents": [{"role": "model", "parts": [
        {"text": "done", "thoughtSignature": GHP},
        {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": GHP}]}]}
    parts = ok(signed, "google")["contents"][0]["parts"]
    assert [part["thoughtSignature"] for part in parts] == [GHP, GHP]


# -- property: a credential in any non-structural string leaf never survives ------------


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of the string leaves that are not structural values or encoded blobs."""
    if isinstance(value, dict):
        blob = ENCODED.get(value.get("type", ""))
        return [p for key, item in value.items()
                if key not in STRUCTURAL and key != blob
                for p in leaves(item, (*path, key))]
    if isinstance(value, list):
        return [p for index, item in enumerate(value) for p in leaves(item, (*path, index))]
    return [path] if isinstance(value, str) else []


def planted(payload: dict[str, Any], path: tuple[Any, ...], text: str) -> dict[str, Any]:
    copy = json.loads(json.dumps(payload))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = text
    return copy


extras = st.fixed_dictionaries({}, optional={
    "user": st.just("someone"), "prediction": st.just({"type": "content", "content": "p"}),
    "response_format": st.just({"type": "json_schema", "json_schema": {
        "name": "s", "description": "d", "schema": {"type": "object"}}}),
    "metadata": st.just({"user_id": "u-1", "tags": ["a", "b"]}),
})
forms = st.sampled_from(["{}", "pred {}", "{} trailing", "x\n{}\ny", "token={}"])
credentials = st.sampled_from([GHP, SK])


def a_credential_in_any_string_leaf_is_redacted(
        payload: dict[str, Any], extra: dict[str, Any], data: st.DataObject) -> None:
    payload = {**payload, **extra}
    paths = leaves(payload)
    if not paths:
        return
    path = data.draw(st.sampled_from(paths))
    credential = data.draw(credentials)
    text = data.draw(forms).format(credential)
    policy = data.draw(remote_policies)
    outcome = run(planted(payload, path, text), "openai", policy)
    if outcome.withheld:  # a generated payload may be malformed: then nothing is sent
        assert outcome.payload is None and outcome.reason is not None
        return
    assert credential not in json.dumps(outcome.payload), path


@lanes(quick=30, long=500)
def test_a_credential_in_any_string_leaf_is_redacted(examples: int) -> None:
    run_property(examples, a_credential_in_any_string_leaf_is_redacted, payloads, extras,
                 st.data(), base=settings(deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow]))
