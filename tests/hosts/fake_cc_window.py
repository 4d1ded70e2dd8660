"""One Claude Code window, played: this process runs a hook as Claude Code does (a child
process), waits for a line on standard input, then starts the MCP server as its child
and adds a memory through it. Used to open two windows on one project.

    python fake_cc_window.py HOME PROJECT SESSION_ID CLAIM [helper]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import ElicitResult

WAYMARKS = Path(sys.executable).parent / "waymarks"


def main() -> None:
    home, project, session_id, claim = sys.argv[1:5]
    helper = "helper" in sys.argv[5:]
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CODE_SESSION_ID"}
    env.update(WAYMARKS_CC_HELPER="on" if helper else "off", WAYMARKS_CC_HELPER_IDLE="5",
               CLAUDE_PROJECT_DIR=project)
    payload = {"session_id": session_id, "transcript_path": f"{project}/t.jsonl",
               "cwd": project, "hook_event_name": "SessionStart", "source": "startup"}
    subprocess.run([str(WAYMARKS), "--home", home, "hook", "claude-code", "SessionStart"],
                   input=json.dumps(payload).encode(), env=env, check=True, timeout=60)
    print("ready", flush=True)
    sys.stdin.readline()
    print(json.dumps(memory_add_over_mcp(home, project, claim, env)), flush=True)


def memory_add_over_mcp(home: str, project: str, claim: str,
                        env: dict[str, str]) -> dict[str, Any]:
    """``context_persistence`` ``memory_add`` through ``waymarks mcp --claude-code`` started
    as a child of this process (the person accepts), with the real MCP client."""
    params = StdioServerParameters(command=str(WAYMARKS),
                                   args=["--home", home, "mcp", "--claude-code"],
                                   cwd=project, env=env)

    async def accept(context: Any, request: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"confirm": True})

    async def run() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(
                read, write, elicitation_callback=accept) as session:
            await session.initialize()
            result = await session.call_tool("context_persistence", {
                "action": "memory_add", "content": claim})
            return dict(result.structured_content or {})

    return anyio.run(run)


if __name__ == "__main__":
    main()
