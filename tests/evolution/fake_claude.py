"""Writes a fake ``claude`` executable (a Python script) into a directory for PATH: it
records its argv, stdin, working directory and the child marker to ``FAKE_CLAUDE_LOG`` and
answers as ``FAKE_CLAUDE_MODE`` says (ok, error-429, error-401, garbage, sleep, max-turns,
huge-usage: a token count of 2**64, flood: 64 MiB on stdout, then it holds on; status-500:
an API error status as the CLI reports it, a "success" envelope that is an error)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

SCRIPT = r'''#!{python}
import json, os, sys, time
prompt = sys.stdin.read()
with open(os.environ["FAKE_CLAUDE_LOG"], "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "stdin": prompt,
                          "child": os.environ.get("WAYMARKS_EVOLUTION_CHILD"),
                          "pid": os.getpid(), "cwd": os.getcwd()}}) + "\n")
mode = os.environ.get("FAKE_CLAUDE_MODE", "ok")
if mode == "sleep":
    time.sleep(30)
if mode == "garbage":
    print("this is not json"); sys.exit(0)
if mode.startswith("error-"):
    print(json.dumps({{"type": "result", "subtype": "error_during_execution", "is_error": True,
                      "api_error_status": int(mode[6:]), "result": "provider said nope"}}))
    sys.exit(1)
if mode.startswith("status-"):
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": True,
                      "api_error_status": int(mode[7:]), "result": "API Error: nope"}}))
    sys.exit(1)
if mode == "flood":
    for _ in range(64):
        sys.stdout.buffer.write(b"0" * (1 << 20))
    sys.stdout.flush()
    time.sleep(30)
if mode == "max-turns":
    print(json.dumps({{"type": "result", "subtype": "error_max_turns", "is_error": True}}))
    sys.exit(0)
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                  "result": os.environ.get("FAKE_CLAUDE_TEXT", '{{"claims": []}}'),
                  "usage": {{"input_tokens": 2**64 if mode == "huge-usage" else 21,
                            "output_tokens": 8}},
                  "total_cost_usd": 0.001}}))
'''


def install(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "claude"
    path.write_text(SCRIPT.format(python=sys.executable), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path
