"""What the bridge writes to the extension: one line of JSON per message, UTF-8.

A sanitized payload holds the whole conversation, tens of megabytes in a long session, and
``json.dumps`` of it (every character past ASCII written as an escape) took 0.16-0.6 s of
each request; msgspec writes it in a third to a sixth of that. What must stay true is the
line: nothing in a string breaks it (the extension reads with Node's ``readline``, which
ends a line at ``\\n`` or ``\\r`` only, and Pi reads back exactly the strings it sent), and
a lone surrogate, which UTF-8 cannot hold, still goes as its escape.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from waymarks.hosts.pi_bridge import Bridge

TEXTS = ["café — 你好 😀", "a\nb\rc\r\nd", "line\u2028separator\u2029and\x85next", "tab\tnul\x00"]


def wire(tmp_path: Path, payload: dict[str, Any]) -> str:
    requests = [{"id": 1, "method": "initialize", "params": {"cwd": str(tmp_path)}},
                {"id": 2, "method": "sanitize", "params": {"payload": payload,
                                                           "provider": "openai"}},
                {"id": 3, "method": "shutdown"}]
    stdin = io.StringIO("".join(json.dumps(r) + "\n" for r in requests))
    stdout = io.StringIO()
    Bridge(tmp_path / "home", stdin, stdout).serve()
    return stdout.getvalue()


def test_text_goes_out_as_utf8_on_one_line(tmp_path: Path) -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": t} for t in TEXTS]}
    out = wire(tmp_path, payload)
    lines = out.split("\n")
    assert len(lines) == 4 and lines[-1] == "" and "\r" not in out
    answer = json.loads(lines[1])
    assert answer["id"] == 2 and answer["result"]["payload"] == payload
    assert "café — 你好 😀" in lines[1]  # as itself, not escaped


def test_a_lone_surrogate_goes_as_its_escape(tmp_path: Path) -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": "half \ud83d of it"}]}
    out = wire(tmp_path, payload)
    line = out.split("\n")[1]
    assert line.isascii() and "\\ud83d" in line
    assert json.loads(line)["result"]["payload"] == payload
    out.encode("utf-8", "surrogateescape")  # what the stream can write


class _ReaderGone(io.StringIO):
    """Standard output whose reader has left: every write is a broken pipe."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_what_pi_sent_before_it_went_away_is_still_done(tmp_path: Path) -> None:
    """Pi gone (its end of the bridge's standard output closed) after sending requests:
    the bridge stopped at the first answer it could not write, so every request behind
    it in the pipe was dropped unread (a turn's ``learn``: its capture lost). The bridge
    now does each of them, its answers to no one, then ends as a shutdown does and says
    the pipe broke. A plan stands for them here: its manifest is written."""
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import last_manifest

    (project := tmp_path / "project").mkdir()
    requests = [{"id": 1, "method": "initialize", "params": {"cwd": str(project)}},
                {"id": 2, "method": "plan", "params": {"prompt": "how do we deploy?"}}]
    stdin = io.StringIO("".join(json.dumps(r) + "\n" for r in requests))
    with pytest.raises(BrokenPipeError):
        Bridge(tmp_path / "home", stdin, _ReaderGone()).serve()
    with Waymarks(tmp_path / "home", cwd=str(project)) as app:
        assert last_manifest(app) is not None
