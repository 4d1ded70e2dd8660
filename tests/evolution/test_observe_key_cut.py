"""A private key the cut of a long tool output falls inside leaves no part of itself behind.

The credential rules find a PEM block by its BEGIN line (and redact to its END line, or to
the end of a text cut inside it); the tail part of an output cut inside a key holds its
END line and none of its BEGIN line, so the rest of the key was stored in the session
ledger's observation record (Claude Code) and sent in a work source's preview (Pi)."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from tests.evolution.test_observe_hosts import SESSION
from tests.inprocess import waymarks
from waymarks.core.evolution.observations import _RAW_TAIL, preview
from waymarks.hosts.work_turns import RECORD_OUTPUT_BYTES


def _key(size: int) -> tuple[str, list[str]]:
    """A PEM private key block of ``size`` bytes of key material, and its base64 lines."""
    material = b"".join(hashlib.sha256(bytes([n % 256, n // 256])).digest()
                        for n in range(size // 32))
    lines = base64.encodebytes(material).decode().splitlines()
    return ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines)
            + "\n-----END OPENSSH PRIVATE KEY-----\n"), lines


def _around(key: str, cut_from_end: int, after: str) -> str:
    """``key`` placed so that a tail of ``cut_from_end`` bytes starts inside it."""
    before = "build step ok\n" * ((30_000 - len(key)) // 14)
    output = before + key + after
    start = len(output.encode()) - cut_from_end
    assert output.index("-----BEGIN") < start < output.index("-----END")
    return output


def _here(home: Path, project: Path, *args: str, hook: dict[str, object] | None = None) -> None:
    """``waymarks --home HOME ARGS``, the real entry point in this process; ``hook``: the
    event Claude Code sends on standard input (a tool hook answers nothing)."""
    done = waymarks("--home", str(home), *args, cwd=project,
                    env={"CLAUDE_PROJECT_DIR": str(project)},
                    input=None if hook is None else json.dumps(hook))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert hook is None or done.stdout == "", done.stdout


def test_a_claude_code_record_cut_inside_a_key_keeps_none_of_it(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    _here(home, project, "learn", "on")
    _here(home, project, "trust", str(project))  # an untrusted one's output is not kept
    key, lines = _key(2_400)  # an RSA 4096 key's size
    output = _around(key, (2 * RECORD_OUTPUT_BYTES) // 3,
                     "deploy finished\n" * ((2 * RECORD_OUTPUT_BYTES // 3 - 1_600) // 16))
    _here(home, project, "hook", "claude-code", "PostToolUse", hook={
        "hook_event_name": "PostToolUse",
        "session_id": SESSION, "cwd": str(project), "tool_name": "Bash", "tool_use_id": "t1",
        "tool_input": {"command": "./deploy.sh"},
        "tool_response": {"stdout": output, "stderr": "", "interrupted": False}})
    [ledger] = list((home / "sessions").rglob("*.jsonl"))
    stored = ledger.read_text()
    [record] = [json.loads(line)["data"] for line in stored.splitlines()
                if "waymarks-tool-observation-v1" in line]
    assert not [line for line in lines if line in stored]
    assert record["output"].endswith("deploy finished")  # the record was made, and cut
    assert "[REDACTED:private-key]" in record["output"]


def test_a_pi_preview_cut_inside_a_key_keeps_none_of_it() -> None:
    key, lines = _key(13_000)
    output = _around(key, _RAW_TAIL, "done\n")
    shown, _level = preview(output)
    assert shown.endswith("done\n") or shown.endswith("done")
    assert not [line for line in lines if line in shown]
