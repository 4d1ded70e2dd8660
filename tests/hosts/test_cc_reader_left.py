"""A prompt's hook whose standard output nobody reads any more (Claude Code gave up on it,
`hook … | true` in a script) or cannot take the answer (closed, a full disk): the hook
still records the prompt and exits 0, silent. Before, the launcher's process printed a
traceback and "Exception ignored … BrokenPipeError" and exited 120 (the teardown's flush
failed again), through the helper and without it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import isolated_python
from tests.hosts.test_cc_bad_config import _session_with_a_pin
from tests.hosts.test_cc_helper_stalled import _kinds, _payload
from tests.hosts.test_cc_hook_process import ENTRY
from tests.hosts.test_cc_review_hooks import _environ, _helper


def _unread_prompt(home: Path, project: Path, sid: str, prompt: str, helper: str,
                   stdout: str) -> subprocess.CompletedProcess[bytes]:
    """The prompt hook as ``claude-code install`` runs it, its standard output a pipe
    whose reader has left (``stdout="pipe"``), closed (``"closed"``) or /dev/full."""
    event = json.dumps(_payload(sid, project, "UserPromptSubmit", prompt=prompt)).encode()
    command = [*isolated_python(), str(ENTRY), "--home", str(home), "hook", "claude-code",
               "UserPromptSubmit"]
    environ = _environ(subagent=False, WAYMARKS_CC_HELPER=helper)
    if stdout == "closed":
        return subprocess.run(["sh", "-c", '"$@" >&-', "hook", *command], input=event,
                              capture_output=False, stderr=subprocess.PIPE, timeout=120,
                              env=environ)
    if stdout == "full":
        with open("/dev/full", "wb") as full:
            return subprocess.run(command, input=event, stdout=full, stderr=subprocess.PIPE,
                                  timeout=120, env=environ)
    read, write = os.pipe()
    os.close(read)  # the reader left before the answer
    try:
        return subprocess.run(command, input=event, stdout=write, stderr=subprocess.PIPE,
                              timeout=120, env=environ)
    finally:
        os.close(write)


@pytest.mark.slow
@pytest.mark.parametrize("stdout", ["pipe", "closed", "full"])
def test_a_hook_whose_answer_cannot_be_written_records_the_prompt_and_exits_0(
        home: Path, project: Path, stdout: str) -> None:
    sid = _session_with_a_pin(home, project)
    done = _unread_prompt(home, project, sid, "tag the release", "off", stdout)
    assert (done.returncode, done.stderr.decode()) == (0, "")
    with _helper(home, _environ(subagent=False)):
        done = _unread_prompt(home, project, sid, "and push it", "on", stdout)
        assert (done.returncode, done.stderr.decode()) == (0, "")
    assert _kinds(home, sid) == ["said:tag the release", "said:and push it"]


@pytest.mark.slow
def test_a_hook_without_standard_input_is_skipped_not_a_traceback(home: Path,
                                                                  project: Path) -> None:
    """`hook … <&-` (a script that closed its input): the client read ``sys.stdin``, which
    Python leaves ``None`` then, and ended in an AttributeError traceback, exit 1. It is no
    event, as an empty input is: logged as not JSON, exit 0, silent."""
    command = [*isolated_python(), str(ENTRY), "--home", str(home), "hook", "claude-code",
               "UserPromptSubmit"]
    done = subprocess.run(["sh", "-c", '"$@" <&-', "hook", *command], capture_output=True,
                          timeout=120, env=_environ(subagent=False, WAYMARKS_CC_HELPER="off"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    logged = [json.loads(line) for line in
              (home / "logs" / "waymarks.jsonl").read_text().splitlines()]
    assert [(e["event"], e["code"]) for e in logged] == [
        ("claude_code_hook_skipped", "input_not_json")]
