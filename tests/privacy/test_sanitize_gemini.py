"""Google Gemini payloads (``contents``/``parts``, ``systemInstruction``, the SDK's
``config``): sanitized as the other shapes are. Before, the sanitizer knew no such
shape, so with a Gemini model (Pi's ``google-generative-ai``) every request went out
with its content withheld and its tools dropped."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tests.hosts.test_bridge import Host, converse
from waymarks.core.privacy import ProviderPolicy
from waymarks.planner.sanitize import Memo, sanitize
from waymarks.tool.egress import outgoing_payload

KEY = "sk-ant-api03-AAAABBBBCCCCDDDDEEEE"
LOCAL = "[ds4:local-only]SECRET-PLAN[/ds4:local-only]"
TOOLS = [{"functionDeclarations": [{"name": "bash", "description": "Run a command",
                                    "parametersJsonSchema": {"type": "object"}}]}]


def gemini(*contents: dict[str, Any], **config: Any) -> dict[str, Any]:
    """Pi's Google payload: the SDK's ``{model, contents, config}``."""
    return {"model": "gemini-2.5-pro", "contents": list(contents),
            "config": {"systemInstruction": "You are a coding agent.", "tools": TOOLS,
                       "temperature": 0.2, **config}}


def user(*parts: Any) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def model(*parts: Any) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


def test_credentials_are_redacted_in_every_text_part_and_tools_are_kept() -> None:
    text_file = base64.b64encode(f"token {KEY}\n".encode()).decode()
    image = "iVBORw0KGgo" + "A" * 64
    payload = gemini(
        user({"text": f"the key is {KEY}"},
             {"inlineData": {"mimeType": "text/plain", "data": text_file}},
             {"inlineData": {"mimeType": "image/png", "data": image}}),
        model({"functionCall": {"name": "bash", "args": {"command": f"export K={KEY}",
                                                         "id": KEY}},
               "thoughtSignature": "c2lnbmF0dXJl"}),
        user({"functionResponse": {"name": "bash", "response": {"output": f"K={KEY}"}}}),
        systemInstruction=f"sys {KEY}")
    out = sanitize(payload, "google")
    assert not out.withheld, out.reason
    assert out.shape == "gemini" and out.redacted_values == 6
    sent = json.dumps(out.payload)
    assert "AAAABBBB" not in sent and "[REDACTED" in sent
    assert out.payload is not None
    parts = out.payload["contents"]
    assert "AAAABBBB" not in base64.b64decode(parts[0]["parts"][1]["inlineData"]["data"]).decode()
    assert parts[0]["parts"][2]["inlineData"]["data"] == image  # media kept as it is
    assert parts[1]["parts"][0]["thoughtSignature"] == "c2lnbmF0dXJl"
    assert out.payload["config"]["tools"] == TOOLS and out.payload["config"]["temperature"] == 0.2


def test_a_code_document_gemini_takes_is_read_decoded() -> None:
    """Gemini takes a source file as ``inlineData`` of ``application/x-python`` or
    ``application/x-javascript`` (its documents' list), and JSON-LD or a vendor's
    ``+json`` is text too: read as an image, kept as it was, the key in them went out."""
    for media in ("application/x-python", "application/x-javascript", "application/ld+json",
                  "application/vnd.api+json; charset=utf-8", "application/rtf"):
        data = base64.b64encode(f'API_KEY = "{KEY}"\n'.encode()).decode()
        out = sanitize(gemini(user({"inlineData": {"mimeType": media, "data": data}})),
                       "google")
        assert out.payload is not None and out.redacted_values == 1, media
        sent = out.payload["contents"][0]["parts"][0]["inlineData"]["data"]
        assert "AAAABBBB" not in base64.b64decode(sent).decode(), media


def test_withheld_text_is_removed_and_structure_kept() -> None:
    payload = gemini(
        user({"text": f"plan {LOCAL} now"}),
        model({"text": LOCAL}),
        model({"thought": True, "text": f"thinking {LOCAL}", "thoughtSignature": "c2ln"},
              {"text": "done"}),
        systemInstruction={"parts": [{"text": f"rules {LOCAL}"}]})
    out = sanitize(payload, "google")
    assert not out.withheld, out.reason
    sent = json.dumps(out.payload)
    assert "SECRET-PLAN" not in sent
    assert out.payload is not None
    contents = out.payload["contents"]
    assert len(contents) == 3  # no content removed
    assert contents[0]["parts"][0]["text"].startswith("plan ")
    assert contents[1]["parts"] == [{"text": "[withheld by privacy policy]"}]
    assert contents[2]["parts"] == [{"text": "done"}]  # a signed thought is dropped whole
    assert out.payload["config"]["systemInstruction"]["parts"][0]["text"].startswith("rules ")


def test_the_rest_api_form_is_read_too() -> None:
    payload = {"contents": [user({"text": f"k {KEY}"})],
               "systemInstruction": {"parts": [{"text": f"s {KEY}"}]}, "tools": TOOLS}
    out = sanitize(payload, "google")
    assert out.payload is not None and "AAAABBBB" not in json.dumps(out.payload)
    assert out.payload["tools"] == TOOLS


def test_a_clean_conversation_is_kept_as_it_is_and_remembered() -> None:
    payload = gemini(user({"text": "fix the bug"}), model({"text": "done"}))
    memo = Memo()
    first = sanitize(payload, "google", memo=memo)
    again = sanitize(payload, "google", memo=memo)
    assert first.payload == payload and again.payload == payload and not first.changed
    assert first.payload is not None and first.payload["contents"] is payload["contents"]


def test_a_result_rendered_for_a_local_model_is_not_repeated_to_gemini() -> None:
    """After a switch from a local model, a recall result rendered for it (local-only text,
    its markers gone) was sent to the remote one as any text: the misfit check did not
    read Gemini's ``functionResponse``."""
    policy = ProviderPolicy(local_providers=frozenset({"ollama"}))
    details = {"renderedFor": "ollama", "renderedLevels": ["normal", "local-only"],
               "renderedRedacted": False}
    text = json.dumps(details) + "\nHome is 12 Elm Street"
    payload = gemini(user({"text": "where is home?"}),
                     model({"functionCall": {"name": "memory_recall", "args": {}}}),
                     user({"functionResponse": {"name": "memory_recall",
                                                "response": {"output": text}}}))
    assert "Elm Street" in json.dumps(outgoing_payload(payload, "ollama", policy).payload)
    sent = json.dumps(outgoing_payload(payload, "google", policy).payload)
    assert "Elm Street" not in sent and "not repeated here" in sent


def test_earlier_context_persistence_calls_do_not_travel_again() -> None:
    """A Gemini conversation's earlier ``context_persistence`` calls went out as they
    were (the history guard read no ``contents``): a local-only pin a local model wrote
    went to Gemini after a switch. Guarded as the other shapes' are; the turn in progress
    (a result is not the person's turn) is left alone."""
    policy = ProviderPolicy(local_providers=frozenset({"ollama"}))
    args = {"action": "pin_add", "content": "Home is 12 Elm Street",
            "classification": "local-only"}
    call = model({"functionCall": {"name": "context_persistence", "args": args}})
    result = user({"functionResponse": {"name": "context_persistence",
                                        "response": {"output": '{"outcome":"committed"}'}}})
    earlier = gemini(user({"text": "pin my address"}), call, result, user({"text": "next"}))
    sent = outgoing_payload(earlier, "google", policy).payload
    assert sent is not None and "Elm" not in json.dumps(sent)
    assert sent["contents"][1]["parts"][0]["functionCall"]["args"]["action"] == "pin_add"
    assert "committed" in json.dumps(sent["contents"][2])
    in_progress = gemini(user({"text": "pin my address"}), call, result)
    assert "Elm" in json.dumps(outgoing_payload(in_progress, "ollama", policy).payload)


def test_the_rest_api_spelling_of_calls_and_results_is_guarded_too() -> None:
    """The sanitizer reads the REST API's ``function_call``/``function_response`` parts as
    the SDK's, and the history guard and misfit check read the SDK's alone: a local-only
    pin a local model wrote, a find result's preview and a recall result rendered for the
    local model all went to Gemini after a switch."""
    policy = ProviderPolicy(local_providers=frozenset({"ollama"}))
    args = {"action": "pin_add", "content": "Home is 12 Elm Street",
            "classification": "local-only"}
    found = json.dumps({"contract": "ds4-context-persistence-result-v1",
                        "action": "pins_find", "outcome": "ok"}) + '\nid pin_1 "Elm Street"'
    recalled = json.dumps({"renderedFor": "ollama", "renderedLevels": ["normal", "local-only"],
                           "renderedRedacted": False}) + "\nHome is 12 Elm Street"
    payload = {"contents": [
        user({"text": "pin my address"}),
        model({"function_call": {"name": "context_persistence", "args": args}}),
        user({"function_response": {"name": "context_persistence",
                                    "response": {"output": found}}}),
        user({"text": "where is home?"}),
        model({"function_call": {"name": "memory_recall", "args": {}}}),
        user({"function_response": {"name": "memory_recall",
                                    "response": {"output": recalled}}})]}
    assert "Elm" in json.dumps(outgoing_payload(payload, "ollama", policy).payload)
    sent = outgoing_payload(payload, "google", policy).payload
    assert sent is not None and "Elm" not in json.dumps(sent)
    contents = sent["contents"]
    assert contents[1]["parts"][0]["function_call"]["args"]["action"] == "pin_add"
    assert "pins_find: ok" in contents[2]["parts"][0]["function_response"]["response"]["output"]
    assert "not repeated here" in json.dumps(contents[5])


def test_a_screenshot_sent_without_words_is_the_persons_turn() -> None:
    """A user content of images alone was taken for tool results' images, so the calls
    before it stayed the turn in progress: the local-only pin a local model wrote went to
    Gemini with the person's next request, a screenshot. Pi's captioned images and a
    content of results (beside their images) are still the tool's: the turn in progress."""
    policy = ProviderPolicy(local_providers=frozenset({"ollama"}))
    args = {"action": "pin_add", "content": "Home is 12 Elm Street",
            "classification": "local-only"}
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo"}}
    result = {"functionResponse": {"name": "context_persistence",
                                   "response": {"output": '{"outcome":"committed"}'}}}
    head = [user({"text": "pin my address"}),
            model({"functionCall": {"name": "context_persistence", "args": args}})]
    screenshot = gemini(*head, user(result), user(image))
    sent = outgoing_payload(screenshot, "google", policy).payload
    assert sent is not None and "Elm" not in json.dumps(sent)
    for tools in (user(result, image), user({"text": "Tool result image:"}, image)):
        in_progress = gemini(*head, user(result), tools)  # (the call is left as it is)
        out = outgoing_payload(in_progress, "ollama", policy).payload
        assert out is not None and out["contents"][1] is in_progress["contents"][1]


def test_a_result_whose_response_is_not_an_object_is_guarded_too() -> None:
    """A ``functionResponse`` whose ``response`` is a string (another host's, or one
    written by hand for ``waymarks privacy sanitize``): the sanitizer reads it as tool
    output, and the history guard and misfit check passed it by, so a find result's
    preview and a recall result rendered for a local model went to Gemini as they were."""
    policy = ProviderPolicy(local_providers=frozenset({"ollama"}))
    found = json.dumps({"contract": "ds4-context-persistence-result-v1",
                        "action": "pins_find", "outcome": "ok"}) + '\nid pin_1 "Elm Street"'
    recalled = json.dumps({"renderedFor": "ollama", "renderedLevels": ["normal", "local-only"],
                           "renderedRedacted": False}) + "\nHome is 12 Elm Street"
    payload = gemini(
        user({"text": "find my address"}),
        model({"functionCall": {"name": "context_persistence", "args": {"action": "pins_find"}}}),
        user({"functionResponse": {"name": "context_persistence", "response": found}}),
        user({"text": "where is home?"}),
        model({"functionCall": {"name": "memory_recall", "args": {}}}),
        user({"functionResponse": {"name": "memory_recall", "response": recalled}}))
    assert "Elm" in json.dumps(outgoing_payload(payload, "ollama", policy).payload)
    sent = outgoing_payload(payload, "google", policy).payload
    assert sent is not None and "Elm" not in json.dumps(sent)
    contents = sent["contents"]
    assert "pins_find: ok" in contents[2]["parts"][0]["functionResponse"]["response"]["output"]
    assert "not repeated here" in json.dumps(contents[5])


def test_a_gemini_request_through_the_bridge(tmp_path: Path) -> None:
    """The Pi bridge's ``sanitize`` (what the extension calls before each request)."""
    payload = gemini(user({"text": f"plan {LOCAL} with {KEY}"}))
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {"provider": "google"}},
        {"id": 2, "method": "sanitize", "params": {"payload": payload, "provider": "google"}},
        {"id": 3, "method": "shutdown"}], Host())
    result = {m["id"]: m["result"] for m in out if "result" in m}[2]
    assert result["withheld"] is False, result
    sent = json.dumps(result["payload"])
    assert "SECRET-PLAN" not in sent and "AAAABBBB" not in sent and "plan" in sent
    assert result["payload"]["config"]["tools"] == TOOLS
