"""A screenshot in a Pi conversation (the REAL Pi 1.6 from npm, a loopback fake provider).

The extension tells the planner what Pi sends anyway, the conversation included, so the
model's context window stays the hard limit. It counted the conversation as its JSON, an
image as the characters of its base64 data: one screenshot of a megabyte took a 200k
window whole, and the person's pins were left out of every later request, without a word
(a fallback for the model's own limit is silent). An image counts as Pi counts one.

And a tool result's images, which Pi sends to a Chat Completions model in a user message
of their own, were taken for the person's next turn: the turn's own ``context_persistence``
results lost their previews. And a message of images alone got no pins at all (the plan
was skipped for want of text)."""

from __future__ import annotations

import base64
import json
import os
import struct
import zlib
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text, reply_tools
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"
WINDOW = 100_000


def noise_png(side: int) -> bytes:
    """A PNG of random pixels (it does not compress: ~3 bytes a pixel, as a photo)."""
    rows = b"".join(b"\x00" + os.urandom(side * 3) for _ in range(side))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2,
                                                              0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))


def pinned(body: dict[str, object]) -> bool:
    return PIN_BEGIN in json.dumps(body["messages"], ensure_ascii=False)


def _takes_images(pi: PiHome, **limits: int) -> None:
    """The fake provider's one model takes images as well as text (and ``limits``)."""
    models = json.loads((pi.agent / "models.json").read_text())
    models["providers"]["fake"]["models"] = [
        {"id": "fake-model", "input": ["text", "image"], **limits}]
    (pi.agent / "models.json").write_text(json.dumps(models))


def _pin_the_linters(rpc: PiRpc) -> None:
    """A first prompt, then the person pins "Always run the linters" with /context."""
    rpc.prompt("hello")
    rpc.prompt("/context pin -- Always run the linters")


def _prompt_with_image(rpc: PiRpc, message: str, image: str) -> None:
    """Send a prompt of ``message`` with a PNG (``image``, base64) and wait for its end."""
    rpc.send({"id": "shot", "type": "prompt", "message": message,
              "images": [{"type": "image", "data": image, "mimeType": "image/png"}]})
    rpc._until(60, lambda e: e.get("type") == "agent_end")


def test_a_screenshot_does_not_take_the_pins_out_of_later_requests(tmp_path: Path) -> None:
    image = base64.b64encode(noise_png(400)).decode()
    assert len(image) // 4 > WINDOW  # as characters, more than the whole window
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        _takes_images(pi, contextWindow=WINDOW)
        rpc = PiRpc(pi)
        try:
            _pin_the_linters(rpc)
            assert rpc.notices[-1].startswith("Pinned pin")
            _prompt_with_image(rpc, "what does this show?", image)
            with_image = fake.bodies[-1]
            rpc.prompt("and now?")
            later = fake.bodies[-1]
        finally:
            rpc.close()
    assert image in json.dumps(with_image)  # the image went, as Pi sends it
    assert pinned(with_image) and pinned(later)


def test_a_turn_that_reads_an_image_keeps_its_own_pin_previews(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        _takes_images(pi)
        (pi.project / "shot.png").write_bytes(noise_png(16))
        rpc = PiRpc(pi)
        try:
            _pin_the_linters(rpc)
            fake.script = [reply_tools(("context_persistence", {"action": "pins_find",
                                                                "query": "linters"}),
                                       ("read", {"path": "shot.png"})), reply_text("done")]
            rpc.prompt("find my linter pin and look at shot.png")
        finally:
            rpc.close()
    messages = fake.bodies[-1]["messages"]
    assert "Attached image(s) from tool result:" in json.dumps(messages[-1])  # Pi's shape
    [found] = [m for m in messages if m["role"] == "tool"
               and "context_persistence pins_find" in m["content"]]
    assert 'preview 1: "Always run the linters"' in found["content"]
    calls = [c["function"] for m in messages if m["role"] == "assistant"
             for c in m.get("tool_calls") or ()]
    assert {"action": "pins_find", "query": "linters"} in [  # the call as the model made it
        json.loads(c["arguments"]) for c in calls if c["name"] == "context_persistence"]


def test_a_message_of_images_alone_gets_the_pins(tmp_path: Path) -> None:
    image = base64.b64encode(noise_png(8)).decode()
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        _takes_images(pi)
        rpc = PiRpc(pi)
        try:
            _pin_the_linters(rpc)
            _prompt_with_image(rpc, "", image)
        finally:
            rpc.close()
    sent = fake.bodies[-1]
    assert image in json.dumps(sent)  # the request of the image alone
    assert pinned(sent)
    assert "images without text" not in json.dumps(sent)  # what was planned for, not sent
