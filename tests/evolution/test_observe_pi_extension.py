"""The Pi extension's ``agent_end`` work turn, exercised directly with Node through the
jiti loader Pi itself uses (slow: Pi's packages from npm), against the real bridge: a turn
longer than 4,096 messages still hands its work request over (the extension sends the
request, an ``omitted`` entry and the newest 4,095 messages), so the gate passes and the
snapshot says the scan was limited (issue 19)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.hosts.pi_harness import WAYMARKS_BIN, cache_root, copy_extension, install
from waymarks.core.evolution.observations import MAX_SCAN

pytestmark = pytest.mark.slow

HARNESS = """
import { createJiti } from "%(jiti)s";
const jiti = createJiti(import.meta.url);
const mod = await jiti.import("%(extension)s");
const handlers = {};
const pi = { on: (e, f) => (handlers[e] = f), registerCommand() {}, registerTool() {},
             appendEntry() {}, sendUserMessage() {} };
mod.default(pi);
const header = { type: "session", version: 3, id: "51515151-5151-4151-8151-515151515151",
                 timestamp: "2026-11-30T10:00:00.000Z", cwd: %(cwd)s };
const entries = [{ type: "message", id: "u0", parentId: null,
                   timestamp: "2026-11-30T10:00:01.000Z",
                   message: { role: "user", content: [{ type: "text", text: "commit it" }] } }];
const ctx = { cwd: %(cwd)s, hasUI: false, model: { provider: "openai" },
  sessionManager: { getSessionFile: () => %(session)s, getEntries: () => entries,
                    getHeader: () => header, getLeafId: () => "u0" } };
await handlers.session_start({}, ctx);
const messages = [{ role: "assistant", content: [{ type: "text", text: "an older turn" }] },
  { role: "user", content: [{ type: "text", text: "commit the shop release" }] },
  { role: "assistant", stopReason: "toolUse", content: [{ type: "toolCall", id: "c-commit",
    name: "bash", arguments: { command: "git commit -am release" } }] },
  { role: "toolResult", toolCallId: "c-commit", isError: false,
    content: [{ type: "text", text: "[main 9f] release" }] }];
for (let k = 0; k < %(calls)d; k++) {
  messages.push({ role: "assistant", stopReason: "toolUse", content: [{ type: "toolCall",
    id: `t${k}`, name: "bash", arguments: { command: "python -m pytest -q" } }] });
  messages.push({ role: "toolResult", toolCallId: `t${k}`, isError: false,
    content: [{ type: "text", text: "3 passed" }] });
}
messages.push({ role: "assistant", stopReason: "stop",
                content: [{ type: "text", text: "Done." }] });
await handlers.agent_end({ messages }, ctx);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ messages: messages.length }));
process.exit(0);
"""


def test_a_long_pi_turn_keeps_its_request_through_the_extension(tmp_path: Path) -> None:
    node_bin = Path(install("pi16")[0])
    modules = cache_root() / "pi16" / "node_modules"
    work = tmp_path / "ext"
    work.mkdir()
    copy_extension(work)
    (work / "node_modules").symlink_to(modules)
    project = tmp_path / "shop"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    # an untrusted project's work is not captured (532c002a): the person's project
    subprocess.run([str(WAYMARKS_BIN), "--home", str(home), "trust", str(project)],
                   check=True, capture_output=True, timeout=120)
    calls = 2_500  # 5,005 messages after the older turn: more than the bound
    harness = work / "harness.mjs"
    harness.write_text(HARNESS % {"jiti": modules / "jiti" / "lib" / "jiti.mjs",
                                  "extension": work / "index.ts",
                                  "cwd": json.dumps(str(project)),
                                  "session": json.dumps(str(tmp_path / "s.jsonl")),
                                  "calls": calls})
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"WAYMARKS_BIN": str(WAYMARKS_BIN), "WAYMARKS_HOME": str(home)})
    done = subprocess.run([str(node_bin), str(harness)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["messages"] > MAX_SCAN + 1
    last = json.loads((home / "evolution" / "last-capture.json").read_text())
    # the request was found (the gate passed: no related state, so no source and no call)
    assert last["host"] == "pi" and last["decision"] == "no_target", last
    assert last["intent"] == "none"
    scan = last["scan"]
    assert scan["scanLimited"] is True and scan["scanned"] <= MAX_SCAN
    # the early commit fell out of the window with the oldest messages; the newest remain
    # (each Pi call is three items: the call, its message's text, the result)
    assert scan["linked"] == scan["calls"] and (MAX_SCAN - 1) // 3 - 1 <= scan["calls"] < calls
