"""Input nested too deep for a recursive decoder (stdlib ``json`` and msgspec both raise
``RecursionError``, which is neither a ``ValueError`` nor a ``msgspec.DecodeError``) is
refused like any malformed input: a clear error, never a traceback or a dead process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from waymarks.hosts.model_limits import claude_code_limits

DEEP = "[" * 5000 + "]" * 5000


def run(home: Path, cwd: Path, *args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args], cwd=cwd,
                          env=env, input=stdin, capture_output=True, text=True, timeout=120,
                          check=False)


def test_sanitize_refuses_a_payload_nested_too_deep(home: Path, project: Path) -> None:
    payload = '{"model": "m", "messages": [{"role": "user", "content": ' + DEEP + "}]}"
    done = run(home, project, "--json", "privacy", "sanitize", "--provider", "remote",
               stdin=payload)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    answer = json.loads(done.stdout or done.stderr)
    assert "nested too deep" in json.dumps(answer)


def test_the_pi_bridge_answers_a_request_nested_too_deep_and_keeps_serving(
        home: Path, project: Path) -> None:
    lines = [json.dumps({"id": 1, "method": "initialize", "params": {"cwd": str(project)}}),
             '{"id":2,"method":"plan","params":{"prompt":' + DEEP + "}}",
             '{"method":"plan","params":' + DEEP + "}",
             json.dumps({"id": 3, "method": "shutdown", "params": {}})]
    done = run(home, project, "bridge", stdin="".join(line + "\n" for line in lines))
    assert "Traceback" not in done.stderr, done.stderr
    answers: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, None, 3]
    assert answers[1]["error"]["code"] == "invalid_argument"
    assert "nested too deep" in answers[2]["error"]["message"]
    assert "error" not in answers[3]


def test_import_refuses_a_line_nested_too_deep(home: Path, project: Path) -> None:
    done = run(home, project, "--json", "import", "-", stdin='{"a": ' + DEEP + "}\n")
    assert "Traceback" not in done.stderr, done.stderr
    answer = json.loads(done.stdout)
    assert answer["outcome"] == "rejected" and "line 1: not JSON" in answer["message"]


def test_a_transcript_line_nested_too_deep_is_passed_over(tmp_path: Path) -> None:
    transcript = tmp_path / "transcript.jsonl"
    answer = {"message": {"role": "assistant", "model": "claude-haiku-4-5",
                          "usage": {"input_tokens": 1200, "output_tokens": 30}}}
    transcript.write_text(json.dumps(answer) + "\n" + '{"a": ' + DEEP + "}\n")
    assert claude_code_limits(str(transcript), None) == (200_000, 1230)
