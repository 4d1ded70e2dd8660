"""The file a running Pi writes, replaced or cut short under it.

A pin recorded inside Pi after its session file was replaced by another session's file
(or cut short to its header) was reported "Pinned", then lost when Pi ended: Pi appends
to whatever is at its path, and the file no longer opened as that session. Only
``/context health`` looked at the file; the bridge's ledger holds what Pi sent, so the
write check and the note every read gives never saw it. A write is refused now
(``session_replaced``, nothing appended) and a read notes it, as for a session file the
command line writes; a file Pi only grew (Pi 0.73 writes a session's lines again) is
no problem."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, PiRpc, install
from tests.hosts.test_bridge import HEADER, Host, converse, reply, user

OTHER = "22222222-2222-4222-8222-222222222222"


def _line(entry: dict[str, Any]) -> str:
    return json.dumps(entry, separators=(",", ":")) + "\n"  # as Pi's JSON.stringify


class PiLike(Host):
    """Appends each entry to the session file, as Pi does once it has saved it; after the
    first one, ``tamper`` changes the file under it (what another program did)."""

    def __init__(self, path: Path, tamper: str) -> None:
        super().__init__()
        self.path, self.tamper_with = path, tamper

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        answered = super().answer(request)
        with self.path.open("a") as file:
            file.write(_line(answered["result"]))
        header, *lines = self.path.read_text().splitlines(keepends=True)
        if len(self.entries) == 1 and self.tamper_with == "other":
            other = {**json.loads(header), "id": OTHER}
            self.path.write_text(_line(other) + _line(user("b0", None, "elsewhere")))
        elif len(self.entries) == 1 and self.tamper_with == "truncate":
            self.path.write_text(header)
        elif len(self.entries) == 1 and self.tamper_with == "grown":  # Pi 0.73's lines again
            self.path.write_text(header + "".join(lines) + header + "".join(lines))
        return answered


@pytest.mark.parametrize("tamper", ["other", "truncate", "grown"])
def test_a_pin_after_pis_file_was_replaced_is_refused_and_reads_note_it(
        tmp_path: Path, tamper: str) -> None:
    path = tmp_path / "s.jsonl"
    header = {**HEADER, "cwd": str(tmp_path / "project")}
    path.write_text("".join(_line(e) for e in (header, user("a0", None, "hi"),
                                                reply("a1", "a0", "hello"))))
    host = PiLike(path, tamper)
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": "pin -- First pin: use tabs."}},
        {"id": 3, "method": "command", "params": {"text": "pin -- Second pin: use spaces."}},
        {"id": 4, "method": "command", "params": {"text": "pins"}},
        {"id": 5, "method": "shutdown"}], host)
    results = {m["id"]: m["result"] for m in out if "result" in m}
    assert results[2]["exitCode"] == 0, results[2]
    second, listed = results[3], results[4]
    if tamper == "grown":  # Pi only wrote its lines again: nothing is lost, nothing said
        assert second["exitCode"] == 0 and len(host.entries) == 2, second
        assert "note:" not in listed["text"] and "sessionProblem" not in listed["data"]
        return
    assert second["exitCode"] == 2 and second["data"]["code"] == "session_replaced", second
    assert "nothing was written" in second["text"]
    why = f"session {OTHER} (replaced by another session's file)" if tamper == "other" \
        else "shorter than the"
    assert why in second["text"]
    assert len(host.entries) == 1  # Pi was not asked to append the second pin
    assert "First pin" in listed["text"] and "Second pin" not in listed["text"]
    assert "note: the active session cannot be read as before" in listed["text"]
    assert why in listed["data"]["sessionProblem"]


@pytest.mark.slow
def test_inside_the_real_pi_a_pin_after_its_file_was_replaced_is_refused(
        tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        pi.run("-p", "other session")
        [other] = pi.session_files()
        rpc = PiRpc(pi)
        try:
            rpc.prompt("hello")
            rpc.prompt("/context pin -- First pin: use tabs.")
            assert rpc.notices[-1].startswith("Pinned pin")
            [mine] = [p for p in pi.session_files() if p != other]
            shutil.copy(other, mine)
            rpc.prompt("/context pin -- Second pin: use spaces.")
            assert "session_replaced" in rpc.notices[-1] or \
                "replaced by another session's file" in rpc.notices[-1], rpc.notices[-1]
            assert "nothing was written" in rpc.notices[-1]
            rpc.prompt("/context pins")
            assert "cannot be read as before" in rpc.notices[-1]
        finally:
            rpc.close()
        assert b"Second pin" not in mine.read_bytes()
