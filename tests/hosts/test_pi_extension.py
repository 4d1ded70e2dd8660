"""The Pi extension's own failure paths, exercised directly with Node (through the jiti
loader Pi itself uses), without a model: a dead bridge must not crash Pi, and a payload
of any shape that cannot be checked must leave with no content."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hosts.pi_harness import WAYMARKS_BIN, cache_root, copy_extension, install

# Pi's packages from npm (installed on first use), then Node for each scenario
pytestmark = pytest.mark.slow

HARNESS = """
import { createJiti } from "%(jiti)s";
const jiti = createJiti(import.meta.url);
const mod = await jiti.import("%(extension)s");
const handlers = {};
const tools = {};
const pi = { on: (e, f) => (handlers[e] = f), registerCommand() {},
             registerTool: (t) => (tools[t.name] = t),
             appendEntry() {}, sendUserMessage() {} };
mod.default(pi);
process.on("uncaughtException", (e) => { console.log(JSON.stringify({ uncaught: String(e) }));
                                         process.exit(3); });
const ctx = { cwd: %(cwd)s, hasUI: false, model: { provider: "openai" },
  sessionManager: { getSessionFile: () => undefined, getEntries: () => [],
                    getHeader: () => null, getLeafId: () => null } };
"""

#: what the extension is put through (after HARNESS, which sets up ``handlers`` and ``ctx``)
PAYLOAD = """
await handlers.session_start({}, ctx);
const context = await handlers.context(
  { messages: [{ role: "user", content: "hello", timestamp: 1 }] }, ctx);
const google = { model: "gemini-2.5-pro", contents: [{ role: "user", parts: [
  { text: "plan [ds4:local-only]SECRET-PLAN[/ds4:local-only] and key " +
          "sk-ant-api03-AAAABBBBCCCCDDDDEEEE" }]}],
  config: { systemInstruction: "system text here" }, tools: [{ functionDeclarations: [] }] };
const sent = await handlers.before_provider_request({ payload: google }, ctx);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ injected: !!context, sent }));
process.exit(0);
"""


def run_harness(tmp_path: Path, waymarks_bin: str, timeout_ms: str = "3000",
                errors: list[str] | None = None, scenario: str = PAYLOAD
                ) -> dict[str, object]:
    node_bin = Path(install("pi16")[0])
    modules = cache_root() / "pi16" / "node_modules"
    work = tmp_path / "ext"
    work.mkdir()
    copy_extension(work)
    (work / "node_modules").symlink_to(modules)  # what Pi maps "typebox" to
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    harness = work / "harness.mjs"
    harness.write_text(HARNESS % {"jiti": modules / "jiti" / "lib" / "jiti.mjs",
                                  "extension": work / "index.ts",
                                  "cwd": json.dumps(str(project))} + scenario)
    env = {**os.environ, "WAYMARKS_BIN": waymarks_bin, "WAYMARKS_HOME": str(tmp_path / "h"),
           "WAYMARKS_BRIDGE_TIMEOUT_MS": timeout_ms}
    done = subprocess.run([str(node_bin), str(harness)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    if errors is not None:
        errors.append(done.stderr)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_dead_bridge_neither_crashes_pi_nor_lets_content_out(tmp_path: Path) -> None:
    result = run_harness(tmp_path, "/bin/false")  # exits at once: EPIPE on every write
    assert result["injected"] is False
    sent = json.dumps(result["sent"])
    assert "SECRET-PLAN" not in sent and "AAAABBBB" not in sent
    assert "system text here" not in sent and "functionDeclarations" not in sent
    assert result["sent"]["model"] == "gemini-2.5-pro"  # type: ignore[index]


def test_a_gemini_payload_is_sanitized_by_a_live_bridge(tmp_path: Path) -> None:
    """Gemini's ``contents``/``parts`` was a shape the sanitizer did not read: the whole
    payload was withheld and its tools dropped. Now its text is checked and its tools kept."""
    result = run_harness(tmp_path, str(WAYMARKS_BIN))
    sent = json.dumps(result["sent"])
    assert "SECRET-PLAN" not in sent and "AAAABBBB" not in sent and "[REDACTED" in sent
    assert "plan" in sent and "system text here" in sent and "functionDeclarations" in sent


def test_a_stuck_bridge_is_waited_for_once_and_both_consequences_are_said(
        tmp_path: Path) -> None:
    """A bridge that never answers was started again by every hook, each waiting the
    whole initialize timeout (a review measured 105 s for one prompt), and the person
    was told only that memory was off, never that requests went out withheld."""
    starts = tmp_path / "starts"
    stuck = tmp_path / "stuck-waymarks"
    stuck.write_text(f"#!/bin/sh\necho started >> {shlex.quote(str(starts))}\nexec sleep 300\n")
    stuck.chmod(0o755)
    errors: list[str] = []
    result = run_harness(tmp_path, str(stuck), timeout_ms="300", errors=errors)
    assert result["injected"] is False
    assert "SECRET-PLAN" not in json.dumps(result["sent"])
    assert starts.read_text().count("started") == 1
    assert "memory is off" in errors[0] and "requests are withheld" in errors[0]


PINS_OVER = """
const ask = (text, timestamp) => handlers.context(
  { messages: [{ role: "user", content: text, timestamp }] }, ctx);
await handlers.session_start({}, ctx);
const first = await ask("fix the bug", 1);
const again = await ask("fix the other bug", 2);
const { execFileSync } = await import("node:child_process");
execFileSync(process.env.WAYMARKS_BIN, ["pin", "--scope", "project", "--", "Use tabs."],
             { cwd: ctx.cwd });
const more = await ask("and this one", 3);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ injected: [!!first, !!again, !!more] }));
process.exit(0);
"""


def test_pins_over_their_budget_are_said_once_per_reason(tmp_path: Path) -> None:
    """Pins over ``maxPinnedTokens``: every request went without pins or memory and the
    person was never told (Claude Code's hook tells them). Said once, not on every
    request; said again when the reason changes (one more pin)."""
    home, project = tmp_path / "h", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text("[context]\nmaxPinnedTokens = 120\n")
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}
    for args in (["trust", str(project)],
                 ["pin", "--scope", "project", "--", "Ünïcödé rüles ápply hére. " * 4]):
        subprocess.run([str(WAYMARKS_BIN), *args], cwd=project, env=env, check=True,
                       capture_output=True, timeout=60)
    errors: list[str] = []
    result = run_harness(tmp_path, str(WAYMARKS_BIN), errors=errors, scenario=PINS_OVER)
    assert result["injected"] == [False, False, False]
    said = [line for line in errors[0].splitlines() if "no pins or memory were added" in line]
    assert len(said) == 2, errors[0]
    assert all("pin budget (120)" in line and "maxPinnedTokens" in line for line in said)
    assert said[0] != said[1]  # one more pin: more tokens, a new reason


@pytest.mark.parametrize("cause", ["home-is-a-file", "no-such-bin"])
def test_a_bridge_that_cannot_start_is_said_with_its_reason(tmp_path: Path,
                                                            cause: str) -> None:
    """A bridge that could not start (WAYMARKS_HOME a regular file, WAYMARKS_BIN missing)
    printed the exact reason on its standard error, which the extension discarded: Pi said
    only "memory is off (the Waymarks bridge stopped)" and withheld every request's
    content, never why. Both warnings carry the bridge's last words (or the spawn error)
    and its exit status, on one line."""
    errors: list[str] = []
    if cause == "home-is-a-file":
        (tmp_path / "h").write_text("not a home\n")
        result = run_harness(tmp_path, str(WAYMARKS_BIN), errors=errors)
        why = ["exited with status 2", "WAYMARKS_HOME", "not a directory"]
    else:
        result = run_harness(tmp_path, str(tmp_path / "no-such-waymarks"), errors=errors)
        why = ["could not be started", "ENOENT"]
    assert "SECRET-PLAN" not in json.dumps(result["sent"])
    said = [line for line in errors[0].splitlines() if line.startswith("Waymarks:")]
    assert [("memory is off" in s, "requests are withheld" in s) for s in said] == [
        (True, False), (False, True)], errors[0]
    for line in said:
        assert all(part in line for part in why), line


BRIDGE_GONE = """
const { execFileSync } = await import("node:child_process");
let dismissed = false;
ctx.hasUI = true;
ctx.ui = { notify() {}, confirm: (title, message, opts) => new Promise((resolve) => {
  opts?.signal?.addEventListener("abort", () => { dismissed = true; resolve(false); });
  // the bridge that asked dies while the dialog is open
  for (const pid of execFileSync("pgrep", ["-P", String(process.pid)]).toString().split(/\\s+/))
    if (pid) process.kill(Number(pid), "SIGKILL");
}) };
await handlers.session_start({}, ctx);
const result = await tools.remember.execute("c1", { text: "I prefer tabs over spaces." },
                                            undefined, undefined, ctx);
await new Promise((resolve) => setTimeout(resolve, 300));
console.log(JSON.stringify({ dismissed, outcome: result.details?.outcome }));
process.exit(0);
"""


def test_a_dialog_whose_bridge_died_is_closed(tmp_path: Path) -> None:
    """A review: the bridge died while Pi's confirmation dialog was open; the call ended
    ``unavailable``, and the dialog stayed open: a yes confirmed nothing, and while it was
    open no later request's timer ran out (a stuck bridge then held Pi for good). The
    dialog closes when the bridge that asked is gone."""
    result = run_harness(tmp_path, str(WAYMARKS_BIN), timeout_ms="5000",
                         scenario=BRIDGE_GONE)
    assert result == {"dismissed": True, "outcome": "unavailable"}


SLASH_TURN = """
await handlers.session_start({}, ctx);
await handlers.context({ messages: [
  { role: "user", content: "/srv/app/db.env configures the staging database", timestamp: 1 },
  { role: "assistant", content: [{ type: "text", text: "Noted." }], timestamp: 2 },
  { role: "user", content: "which port does it use?", timestamp: 3 }] }, ctx);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ done: true }));
process.exit(0);
"""


def test_a_turn_starting_with_a_slash_is_in_the_plans_history(tmp_path: Path) -> None:
    """The person's turns before the prompt went to the plan without those starting with
    "/": a path ("/srv/app/db.env configures …") is the person's words, never a command
    (Pi runs an extension's command without a message, and expands a template before it
    is one), and the follow-up lost its subject."""
    said = tmp_path / "said.jsonl"
    bridge = tmp_path / "waymarks-tee"
    bridge.write_text(f'#!/bin/sh\ntee -a {shlex.quote(str(said))} | exec {WAYMARKS_BIN} "$@"\n')
    bridge.chmod(0o755)
    assert run_harness(tmp_path, str(bridge), scenario=SLASH_TURN) == {"done": True}
    plans = [json.loads(line) for line in said.read_text().splitlines()
             if '"method":"plan"' in line.replace(" ", "")]
    assert [p["params"]["history"] for p in plans] == [
        ["/srv/app/db.env configures the staging database"]], said.read_text()


BEDROCK_IMAGE = """
await handlers.session_start({}, ctx);
const png = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
const sealed = Buffer.from([1, 2, 3, 250]); // (a Buffer is a Uint8Array with a toJSON)
const image = { image: { format: "png", source: { bytes: png } } };
const bedrock = { modelId: "anthropic.claude-sonnet", messages: [
  { role: "user", content: [
    { text: "what is in this picture? key sk-ant-api03-AAAABBBBCCCCDDDDEEEE" }, image] },
  { role: "assistant", content: [
    { reasoningContent: { redactedContent: sealed } }, { text: "a cat" }] },
  { role: "user", content: [{ text: "and this one?" }, image] }],
  system: [{ text: "sys" }], inferenceConfig: { maxTokens: 100 } };
const sent = await handlers.before_provider_request({ payload: bedrock },
  { ...ctx, model: { provider: "amazon-bedrock" } });
await handlers.session_shutdown({}, ctx);
const view = (b) => ({ kind: Object.prototype.toString.call(b),
                       same: b instanceof Uint8Array
                             && Buffer.compare(Buffer.from(b), Buffer.from(png)) === 0,
                       length: b?.length });
const m = sent.messages;
console.log(JSON.stringify({ first: view(m[0].content[1].image.source.bytes),
  again: view(m[2].content[1].image.source.bytes),
  sealed: Array.from(m[1].content[0].reasoningContent.redactedContent ?? []),
  sealedKind: Object.prototype.toString.call(m[1].content[0].reasoningContent.redactedContent),
  text: m[0].content[0].text }));
process.exit(0);
"""


def test_bedrock_image_bytes_reach_the_model_as_bytes(tmp_path: Path) -> None:
    """Bedrock Converse carries an image as a Uint8Array: JSON has no bytes, and it came
    back from the bridge as an object of numbered keys, which the AWS SDK sent as no image
    (the model got broken image data); redacted reasoning likewise. Both go out as the
    very bytes Pi built, the text beside them still sanitized."""
    result = run_harness(tmp_path, str(WAYMARKS_BIN), scenario=BEDROCK_IMAGE)
    for name in ("first", "again"):
        assert result[name] == {"kind": "[object Uint8Array]", "same": True, "length": 4096}
    assert result["sealedKind"] == "[object Uint8Array]"
    assert result["sealed"] == [1, 2, 3, 250]
    assert "AAAABBBB" not in str(result["text"]) and "what is in this picture?" in str(
        result["text"])


LIVE_VALUES = """
await handlers.session_start({}, ctx);
const signal = new AbortController().signal, onChunk = () => 1, when = new Date(0);
const text = "plan [ds4:local-only]SECRET-PLAN[/ds4:local-only] key " +
  "sk-ant-api03-AAAABBBBCCCCDDDDEEEE";
// Pi's Google payload carries the request's AbortSignal in its config
const google = { model: "gemini-2.5-pro", contents: [{ role: "user", parts: [{ text }] }],
  config: { abortSignal: signal, systemInstruction: "system text here" } };
const chat = { model: "gpt", messages: [{ role: "user", content: text }],
  signal, extra: { onChunk, when }, stream: true };
const same = (p) => ({ signal: p.config?.abortSignal === signal || p.signal === signal,
  onChunk: p.extra ? p.extra.onChunk === onChunk : null,
  when: p.extra ? p.extra.when === when : null, text: JSON.stringify(p) });
const g = await handlers.before_provider_request({ payload: google },
  { ...ctx, model: { provider: "google" } });
const c = await handlers.before_provider_request({ payload: chat }, ctx);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ google: same(g), chat: same(c) }));
process.exit(0);
"""


@pytest.mark.parametrize("bridge", ["live", "dead"])
def test_an_abort_signal_and_other_live_values_go_out_as_pi_made_them(
        tmp_path: Path, bridge: str) -> None:
    """Pi's Google payload holds the request's AbortSignal (config.abortSignal): JSON made
    it {} on the way to the bridge, the bridge sent that back (or a withheld payload was
    scrubbed to it), and Google's SDK failed before any request ("addEventListener is not
    a function"). Such values (a signal, a function) stay in Pi and go out as they were,
    never sent to the bridge nor taken from it; the text is still checked or withheld."""
    said = tmp_path / "said"
    tee = tmp_path / "tee-waymarks"
    tee.write_text(f'#!/bin/sh\ntee -a {shlex.quote(str(said))} | exec {WAYMARKS_BIN} "$@"\n')
    tee.chmod(0o755)
    result = run_harness(tmp_path, str(tee) if bridge == "live" else "/bin/false",
                         scenario=LIVE_VALUES)
    for name in ("google", "chat"):
        sent = result[name]
        assert isinstance(sent, dict)
        assert sent["signal"] is True, sent
        assert "SECRET-PLAN" not in sent["text"] and "AAAABBBB" not in sent["text"]
    # a Date (any object but bytes, a function or a signal) goes through JSON to the
    # sanitizer as before: kept in Pi, text inside one would leave unchecked
    assert result["chat"] == {**result["chat"], "onChunk": True, "when": False}
    if bridge == "live":
        assert "[REDACTED" in result["chat"]["text"] and "plan" in result["chat"]["text"]
        lines = said.read_text()
        assert '"abortSignal":{}' not in lines.replace(" ", "")
        assert '"signal":{}' not in lines.replace(" ", "") and "1970-01-01" in lines


OLD_BRIDGE = """#!%(python)s
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    with open(%(log)r, "a") as log:
        log.write(line)
    result = ({"protocol": "waymarks-pi-bridge-v1", "persistent": False}
              if message["method"] == "initialize" else {"messages": [], "fallback": None}
              if message["method"] == "plan" else {"withheld": False})
    print(json.dumps({"id": message["id"], "result": result}), flush=True)
"""

CHAT = """
await handlers.session_start({}, ctx);
const chat = { model: "gpt-4.1", messages: [
  { role: "user", content: "plan [ds4:local-only]SECRET-PLAN[/ds4:local-only] now" }] };
const sent = await handlers.before_provider_request({ payload: chat }, ctx);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ sent }));
process.exit(0);
"""


def test_a_bridge_that_takes_no_tail_gets_it_whole_and_no_payload_is_no_check(
        tmp_path: Path) -> None:
    """A bridge whose initialize does not say it takes a conversation's tail (an older
    one) is sent each payload whole; an answer with no payload in it withholds the
    request's content, where undefined let Pi send its own payload unchecked."""
    log = tmp_path / "lines"
    bridge = tmp_path / "old-bridge"
    bridge.write_text(OLD_BRIDGE % {"python": sys.executable, "log": str(log)})
    bridge.chmod(0o755)
    result = run_harness(tmp_path, str(bridge), scenario=CHAT)
    assert "SECRET-PLAN" not in json.dumps(result["sent"])
    assert result["sent"]["model"] == "gpt-4.1"  # type: ignore[index]
    [sanitize] = [json.loads(line) for line in log.read_text().splitlines()
                  if json.loads(line)["method"] == "sanitize"]
    assert "conversation" not in sanitize["params"] and "tail" not in sanitize["params"]
    assert "SECRET-PLAN" in sanitize["params"]["payload"]["messages"][0]["content"]


COUNTED = """
let visits = 0;
const codePointAt = String.prototype.codePointAt;
String.prototype.codePointAt = function (i) { visits++; return codePointAt.call(this, i); };
await handlers.session_start({}, ctx);
const words = "plain ascii words, 数据库端口, Кириллица, emoji 🎉🚀, a lone \\ud800 half ";
const messages = [];
for (let n = 0; n < 400; n++) messages.push(
  { role: n % 2 ? "assistant" : "user", content: `${n}: ${words.repeat(3)}`, timestamp: n });
messages.push({ role: "user", content: "and the port? 端口", timestamp: 999 });
await handlers.context({ messages }, ctx);
const counted = visits;
String.prototype.codePointAt = codePointAt;
await handlers.session_shutdown({}, ctx);
const { writeFileSync } = await import("node:fs");
writeFileSync("conversation.json", JSON.stringify({ text: JSON.stringify(messages) }));
console.log(JSON.stringify({ visits: counted }));
process.exit(0);
"""


def test_the_conversation_is_counted_in_tokens_without_visiting_each_character(
        tmp_path: Path) -> None:
    """What Pi sends anyway is counted in tokens before every model call (the planner's
    hard limit): the extension visited the conversation's JSON a character at a time,
    0.6 s at 28 MB before each call of a long session. The count is the planner's
    (waymarks.core.tokens) still, for every script, emoji and a lone surrogate."""
    from waymarks.core.tokens import estimate_tokens

    log = tmp_path / "lines"
    bridge = tmp_path / "bridge"
    bridge.write_text(OLD_BRIDGE % {"python": sys.executable, "log": str(log)})
    bridge.chmod(0o755)
    result = run_harness(tmp_path, str(bridge), scenario=COUNTED)
    [plan] = [json.loads(line)["params"] for line in log.read_text().splitlines()
              if json.loads(line)["method"] == "plan"]
    text = json.loads((tmp_path / "ext" / "conversation.json").read_text())["text"]
    assert plan["fixed"]["messagesTokens"] == estimate_tokens(text) - estimate_tokens(
        "and the port? 端口")
    assert plan["fixed"]["messagesChars"] == len(text.encode("utf-16-le", "surrogatepass")
                                                 ) // 2 - len("and the port? 端口")
    assert int(str(result["visits"])) < 100  # (the conversation has 100,000 characters)


LATER_HOOK = """
await handlers.session_start({}, ctx);
const said = [{ role: "user", content: "fix the failing test" },
              { role: "assistant", content: "Done: the fixture was stale." }];
const ask = (n) => handlers.before_provider_request(
  { payload: { model: "gpt-4.1", messages: structuredClone(said.slice(0, n)) } }, ctx);
await ask(1);  // (whole: the bridge's initialize has not answered yet)
await ask(1);  // held from here on
const given = await ask(2);
const threw = [];
for (const change of [() => { given.messages[0].content = "LATER-HOOK-TEXT"; },
                      () => { given.messages[1].role = "system"; },
                      () => { given.messages.splice(0, 1, { role: "user",
                                                            content: "LATER-HOOK-SWAP" }); }]) {
  try { change(); } catch (e) { threw.push(String(e)); }
}
said.push({ role: "user", content: "and the other one?" });
const next = await ask(3);
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ next, threw }));
process.exit(0);
"""


def test_a_later_hook_changing_the_payload_in_place_does_not_reach_the_next_request(
        tmp_path: Path) -> None:
    """A provider request's answer leaves out the checked messages answered last time, and
    the extension puts back those it gave Pi then: Pi hands that very payload to the hooks
    of extensions loaded after Waymarks, and one that changed a message in place (Pi's docs
    let a hook change or replace the payload) had its change sent again with every later
    request, as checked text though Waymarks never saw it, where a whole request sends
    the conversation as it is. The next request is what a whole one is answered."""
    result = run_harness(tmp_path, str(WAYMARKS_BIN), scenario=LATER_HOOK)
    assert "LATER-HOOK" not in json.dumps(result["next"])
    assert result["next"] == {"model": "gpt-4.1", "messages": [
        {"role": "user", "content": "fix the failing test"},
        {"role": "assistant", "content": "Done: the fixture was stale."},
        {"role": "user", "content": "and the other one?"}]}
    # the changes in place fail as the hook makes them (Pi reports a hook that throws)
    assert [str(e).split(":")[0] for e in result["threw"]] == ["TypeError", "TypeError"]  # type: ignore[union-attr]


STALE_CTX = """
await handlers.session_start({}, ctx);
// Pi's ctx after its session was replaced or reloaded: every getter throws
const stale = new Proxy({}, { get() { throw new Error("This extension ctx is stale"); } });
const payload = { model: "gpt-4.1", messages: [{ role: "user", content: "STALE-SECRET-TEXT" }] };
const out = {};
try { out.sent = await handlers.before_provider_request({ payload }, stale); }
catch (e) { out.sentThrew = String(e); }
const preparation = { messagesToSummarize: [{ role: "user", content: "STALE-SECRET-TEXT" }] };
try { out.compact = await handlers.session_before_compact({ preparation }, stale); }
catch (e) { out.compactThrew = String(e); }
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify(out));
process.exit(0);
"""


def test_a_warning_that_cannot_be_shown_does_not_let_unchecked_content_out(
        tmp_path: Path) -> None:
    """A hook that could not check what goes to a model withholds it and warns: when the
    warning itself failed (Pi's ctx throws from every getter once its session was replaced
    or reloaded), the hook threw instead, and Pi, which keeps the payload a throwing hook
    did not replace and runs a compaction no hook cancelled, sent the request's content
    and the summary's input unchecked. Both fail closed still."""
    result = run_harness(tmp_path, "/bin/false", scenario=STALE_CTX)
    assert "sentThrew" not in result and "compactThrew" not in result, result
    assert "STALE-SECRET-TEXT" not in json.dumps(result["sent"])
    assert result["compact"] == {"cancel": True}


#: a bridge that is the real one when first started, and an older release (one that takes
#: no tail: it checks the payload it is given, as it is) every time after
REPLACED_BRIDGE = """#!%(python)s
import json, os, sys
count = %(count)r
starts = int(open(count).read()) if os.path.exists(count) else 0
open(count, "w").write(str(starts + 1))
if starts == 0:
    os.execv(%(real)r, [%(real)r, *sys.argv[1:]])
for line in sys.stdin:
    message = json.loads(line)
    params = message.get("params", {})
    result = ({"protocol": "waymarks-pi-bridge-v1", "persistent": False}
              if message["method"] == "initialize" else {"withheld": False, "payload":
              params.get("payload")} if message["method"] == "sanitize" else {})
    print(json.dumps({"id": message["id"], "result": result}), flush=True)
"""

REPLACED = """
await handlers.session_start({}, ctx);
const said = [{ role: "user", content: "fix the failing test", timestamp: 1 }];
await handlers.context({ messages: said }, ctx);  // (the bridge has answered initialize)
const ask = () => handlers.before_provider_request(
  { payload: { model: "gpt-4.1", messages: [{ role: "user", content: "fix the failing test" },
                                            { role: "assistant", content: "Done." }] } }, ctx);
const first = await ask();
await handlers.session_shutdown({}, ctx);  // the bridge ends; the next call starts another
const next = await ask();
console.log(JSON.stringify({ first, next }));
process.exit(0);
"""


def test_a_bridge_started_again_as_an_older_release_is_sent_the_whole_payload(
        tmp_path: Path) -> None:
    """Whether a request sends its conversation's tail was decided by what the bridge
    before said it takes, before the call started the next one: a bridge that ended and
    came back as an older release (one that takes no tail) was sent the payload with its
    conversation emptied, checked that, and the model got a request without the
    conversation. It is decided by the bridge the request goes to."""
    bridge = tmp_path / "bridge"
    bridge.write_text(REPLACED_BRIDGE % {"python": sys.executable, "real": str(WAYMARKS_BIN),
                                         "count": str(tmp_path / "starts")})
    bridge.chmod(0o755)
    result = run_harness(tmp_path, str(bridge), scenario=REPLACED)
    assert (tmp_path / "starts").read_text() == "2"
    assert result["first"] == result["next"]
    assert len(result["next"]["messages"]) == 2  # type: ignore[index]


def test_a_turns_end_with_a_stale_context_does_not_throw_into_pi(tmp_path: Path) -> None:
    """Pi's ``ctx`` throws from its session manager once its session is replaced (`/new`,
    `/resume` while a turn ends). The learning ``agent_end`` handler read the turn's
    entries before its ``try``, so that throw left the handler into Pi; every other hook
    of the extension catches it. Nothing is learned from such a turn; nothing is thrown."""
    scenario = """
await handlers.session_start({}, ctx);
const stale = { ...ctx, sessionManager: { ...ctx.sessionManager,
  getEntries: () => { throw new Error("stale ctx: the session was replaced"); } } };
let threw = null;
try {
  await handlers.agent_end({ messages: [] }, stale);
} catch (e) {
  threw = String(e);
}
await handlers.session_shutdown({}, ctx);
console.log(JSON.stringify({ threw }));
process.exit(0);
"""
    assert run_harness(tmp_path, "/bin/false", scenario=scenario) == {"threw": None}
