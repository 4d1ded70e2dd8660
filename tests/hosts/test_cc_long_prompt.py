"""A prompt of Claude Code's largest hook input (4 MiB) was planned whole: recall reads a
prompt's first 64 KiB, but the plan's other sources (docs, named keys, learned memory,
the order of memories) analysed every word, ~4 s of plan, past the client's 4 s wait
for its helper, which then planned it again in its own process (~8 s for one prompt).
The plan reads what recall reads now; the prompt is still recorded whole, and its tokens
still count against the model's window."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.hosts.test_cc_helper_stalled import _payload
from waymarks.hosts.claude_code import MAX_INPUT_BYTES
from waymarks.service.app import Waymarks

#: the hook in this process (no helper), under a profiler: the calls it made, its output
PROFILED = """
import cProfile, pstats, sys
from pathlib import Path
from waymarks.hosts import claude_code

raw = sys.stdin.buffer.read()
profile = cProfile.Profile()
profile.runcall(claude_code.main, ["UserPromptSubmit"], Path(sys.argv[1]), raw)
sys.stdout.buffer.write(b"\\n%d\\n" % pstats.Stats(profile).total_calls)
"""


def _hook(home: Path, raw: bytes) -> tuple[str, int]:
    """What the hook printed, and how many function calls it took."""
    done = subprocess.run([sys.executable, "-c", PROFILED, str(home)], input=raw,
                          capture_output=True, timeout=300,
                          env={**os.environ, "WAYMARKS_CC_HELPER": "off"})
    assert done.returncode == 0, done.stderr.decode()
    printed, calls = done.stdout.decode().rsplit("\n", 2)[:2]
    return printed, int(calls)


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_huge_prompt_is_planned_from_what_recall_reads(home: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
    with Waymarks(home, cwd=str(project)) as app:
        app.pin("Always tag releases from main", scope="project")
    words = " ".join(f"w{n:07x}" for n in range(MAX_INPUT_BYTES // 10))
    prompt = f"how do we tag a release? {words}"
    raw = json.dumps(_payload(sid, project, "UserPromptSubmit", prompt=prompt)).encode()
    assert MAX_INPUT_BYTES - 1024 * 1024 < len(raw) <= MAX_INPUT_BYTES
    printed, calls = _hook(home, raw)
    context = json.loads(printed)["hookSpecificOutput"]["additionalContext"]
    assert "Always tag releases from main" in context
    assert calls < 3_000_000, calls  # the whole prompt analysed: over 15 million
    [ledger] = (home / "sessions").rglob(f"*_{sid}.jsonl")
    said = [json.loads(line) for line in ledger.read_text().splitlines()
            if '"role":"user"' in line]
    assert [s["message"]["content"][0]["text"] for s in said] == [prompt]  # whole
    # its tokens (~1M) still take the model's room: past a 200k window nothing is added
    (home / "config.toml").write_text("[context]\ndefaultContextWindow = 200000\n")
    assert _hook(home, raw)[0] == ""
