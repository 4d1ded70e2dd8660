"""The remember prompt's candidate text: one rule for the command line, the MCP prompt and
Pi's bridge (`personal.curation.prefill`).

Each kept a copy of the 2,000-character check, and they had drifted: the MCP prompt said
"The text has …; shorten it and ask again", the others "the text has …" without the fix;
the command line and the MCP prompt counted the spaces around the text, so a 2,000-
character lesson pasted with a line break after it was refused there and prefilled in
Pi; a blank text was a candidate of spaces there and none in Pi.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.hosts.test_bridge import Host, converse
from waymarks.cli.main import main
from waymarks.mcp.server import build_server
from waymarks.personal.curation import MAX_PREFILL_CHARS, curation_prompt
from waymarks.service.app import Waymarks


def _cli(text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["--json", "remember", text])
    return code, json.loads(capsys.readouterr().out)


def _mcp(app: Waymarks, text: str) -> str:
    from mcp import Client

    async def run() -> str:
        async with Client(build_server(app)) as client:
            got = await client.get_prompt("remember", {"text": text})
            content = got.messages[0].content
            return str(getattr(content, "text", content))

    return anyio.run(run)


def _pi(tmp_path: Path, texts: list[str]) -> list[dict[str, object]]:
    out = converse(tmp_path, [{"id": 1, "method": "initialize"},
                              *({"id": 2 + n, "method": "remember", "params": {"text": t}}
                                for n, t in enumerate(texts)),
                              {"id": 99, "method": "shutdown"}], Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    return [results[2 + n] for n in range(len(texts))]


def test_every_host_takes_the_candidate_by_one_rule(
        tmp_path: Path, app: Waymarks, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WAYMARKS_HOME", str(tmp_path / "cli-home"))
    over = "x" * (MAX_PREFILL_CHARS + 1)
    said = (f"the text has {MAX_PREFILL_CHARS + 1} characters; the limit is "
            f"{MAX_PREFILL_CHARS}. Nothing was saved; shorten it and ask again")
    code, refused = _cli(over, capsys)
    assert (code, refused["code"], refused["message"]) == (2, "too_long", said), refused
    assert _mcp(app, over) == said
    pi_over, pi_fits, pi_blank = _pi(tmp_path, [over, "x" * MAX_PREFILL_CHARS + "\n ",
                                                "  \n"])
    assert (pi_over["prompt"], pi_over["exitCode"], pi_over["message"]) == (None, 2, said)
    # the text is what is counted and prefilled, not the spaces around it: in all three
    fits = curation_prompt("x" * MAX_PREFILL_CHARS)
    code, taken = _cli("x" * MAX_PREFILL_CHARS + "\n ", capsys)
    assert code == 0 and taken["prompt"] == fits
    assert _mcp(app, "x" * MAX_PREFILL_CHARS + "\n ") == fits
    assert pi_fits["prompt"] == fits
    # a blank text is no candidate: the prompt without one
    none = curation_prompt(None)
    code, blank = _cli("  \n", capsys)
    assert code == 0 and blank["prompt"] == none
    assert _mcp(app, "  \n") == none and pi_blank["prompt"] == none
