"""The bridge as a hostile or broken peer meets it: the real ``waymarks bridge`` process
over pipes, with bytes and requests the extension never sends. Each gets an answer (or is
dropped as a late answer); the bridge never dies, never reads its own protocol stream as
input, and never writes a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.hosts.pi_harness import WAYMARKS_BIN


def bridge(tmp_path: Path, lines: list[bytes], *, encoding: str = "utf-8"
           ) -> tuple[list[dict[str, Any]], str]:
    """Run ``waymarks bridge`` with ``lines`` on standard input (then closed); its answers
    and standard error. ``PYTHONIOENCODING`` plays a locale whose standard streams are
    strict (macOS's en_US.UTF-8, say)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    init = json.dumps({"id": 1, "method": "initialize", "params": {"cwd": str(project)}})
    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"), "PYTHONIOENCODING": encoding}
    done = subprocess.run([str(WAYMARKS_BIN), "bridge"], input=b"\n".join(
        [init.encode(), *lines]) + b"\n", capture_output=True, cwd=project, env=env,
        timeout=60, check=False)
    answers = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    return answers, done.stderr.decode("utf-8", "replace")


def by_id(answers: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {json.dumps(a.get("id")): a for a in answers}


def test_bytes_that_are_not_utf8_and_lone_surrogates_get_answers_not_a_dead_bridge(
        tmp_path: Path) -> None:
    answers, stderr = bridge(tmp_path, [
        b'{"id":2,"method":"sy\xffnc"}',          # not UTF-8: the line is refused
        b'{"id":"\\ud800","method":"sync"}',     # an id JSON allows, UTF-8 cannot hold
        b'{"id":4,"method":"nope\\udfff"}',      # echoed in the error
        b'{"id":5,"method":"sync"}',
    ])
    seen = by_id(answers)
    assert "Traceback" not in stderr
    assert seen["2"]["error"]["code"] == "invalid_argument"
    assert "UTF-8" in seen["2"]["error"]["message"]
    assert seen['"\\ud800"']["result"] == {"entries": 0}
    assert seen["4"]["error"]["code"] == "unknown_method"
    assert seen["5"]["result"] == {"entries": 0}


def test_a_request_that_is_not_an_object_is_answered(tmp_path: Path) -> None:
    answers, stderr = bridge(tmp_path, [b'[{"id":2,"method":"sync"}]', b'"sync"',
                                        b'{"id":5,"method":"sync"}'])
    assert "Traceback" not in stderr
    refused = [a for a in answers if a["id"] is None]
    assert len(refused) == 2
    assert all(a["error"]["code"] == "invalid_argument" and "object" in a["error"]["message"]
               for a in refused)
    assert by_id(answers)["5"]["result"] == {"entries": 0}


def test_context_privacy_sanitize_never_reads_the_protocol_stream(tmp_path: Path) -> None:
    """``privacy sanitize`` reads a payload on standard input: inside the bridge that is
    Pi's requests, so it is refused there (Pi sanitizes every payload itself)."""
    answers, stderr = bridge(tmp_path, [
        json.dumps({"id": 2, "method": "command",
                    "params": {"text": "privacy sanitize --provider anthropic"}}).encode(),
        json.dumps({"id": 3, "method": "sync"}).encode()])
    seen = by_id(answers)
    assert "Traceback" not in stderr
    assert seen["2"]["result"]["exitCode"] != 0
    assert "standard input" in seen["2"]["result"]["text"]
    assert seen["3"]["result"] == {"entries": 0}
