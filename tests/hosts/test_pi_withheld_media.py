"""A payload whose privacy could not be checked (the bridge dead) goes out withheld: its
text replaced, its shape kept. A media part was scrubbed in place, its media type and
data made the withheld text (Gemini's ``inlineData``, Anthropic's image source, an
``image_url``, Responses' ``input_image``, Bedrock's ``format``, and Bedrock's
``modelId`` too): no provider takes that (Google answers 400 for data that is not
base64), so the request failed where its withheld text would have been answered. A media
part is now a part of text in its payload's dialect; the model is still named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hosts.test_pi_extension import run_harness

# Pi's packages from npm (installed on first use), then Node
pytestmark = pytest.mark.slow

MEDIA = """
await handlers.session_start({}, ctx);
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk";
const ask = { type: "text", text: "what is in this picture?" };
const payloads = {
  google: { model: "gemini-2.5-pro", contents: [{ role: "user", parts: [
    { text: ask.text }, { inlineData: { mimeType: "image/png", data: png } }] }] },
  anthropic: { model: "claude", messages: [{ role: "user", content: [ask,
    { type: "image", source: { type: "base64", media_type: "image/png", data: png } }] }] },
  chat: { model: "gpt", messages: [{ role: "user", content: [ask,
    { type: "image_url", image_url: { url: "data:image/png;base64," + png } }] }] },
  responses: { model: "gpt", input: [{ role: "user", content: [
    { type: "input_text", text: ask.text },
    { type: "input_image", detail: "auto", image_url: "data:image/png;base64," + png }] }] },
  bedrock: { modelId: "anthropic.claude", messages: [{ role: "user", content: [
    { text: ask.text }, { image: { format: "png", source: { bytes: new Uint8Array(8) } } }] }] },
};
const sent = {};
for (const [name, payload] of Object.entries(payloads))
  sent[name] = await handlers.before_provider_request({ payload }, ctx);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify(sent));
process.exit(0);
"""

WITHHELD = "[withheld by Waymarks: privacy could not be checked]"


def _first_parts(payload: object) -> object:
    """The parts of a payload's first message (Gemini's ``parts``, the others' ``content``)."""
    assert isinstance(payload, dict)
    for name, parts in (("contents", "parts"), ("messages", "content"), ("input", "content")):
        if name in payload:
            return payload[name][0][parts]
    raise AssertionError(payload)


def test_a_withheld_payload_s_media_part_is_a_part_of_text(tmp_path: Path) -> None:
    sent = run_harness(tmp_path, "/bin/false", scenario=MEDIA)  # exits at once: no check
    parts = {name: _first_parts(payload) for name, payload in sent.items()}
    assert parts == {
        "google": [{"text": WITHHELD}, {"text": WITHHELD}],
        "anthropic": [{"type": "text", "text": WITHHELD}] * 2,
        "chat": [{"type": "text", "text": WITHHELD}] * 2,
        "responses": [{"type": "input_text", "text": WITHHELD}] * 2,
        "bedrock": [{"text": WITHHELD}, {"text": WITHHELD}],
    }, json.dumps(sent)
    assert sent["google"]["model"] == "gemini-2.5-pro"  # type: ignore[index]
    assert sent["bedrock"]["modelId"] == "anthropic.claude"  # type: ignore[index]
