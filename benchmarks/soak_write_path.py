"""Soak of the write path under concurrency and crashes (not a test: run it by hand).

Writers run as real subprocesses (the command line's ``memory add``, ``pin``, ``memory
supersede`` and ``import``; the Python API; MCP ``context_persistence`` over stdio, its
confirmation accepted) in two sessions of one trusted project, racing the same
texts at different levels (plain, marked whole, ``--classification``) and the same key
with different values; some are killed (SIGKILL) or stopped (SIGSTOP, then SIGCONT) at a
random moment, and ``rebuild-index`` runs between some rounds. After each round:

* every write reported committed is in a session file and in the projection;
* one text in one scope has at most one active item (markers and level aside);
* ``rebuild-index`` gives the same items, statuses and keys as the incremental projection;
* ``health`` is OK; no command printed a traceback.

    PYTHONPATH=src python benchmarks/soak_write_path.py --rounds 20
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
TEXTS = ("Deploys go through the bastion host.", "The cache TTL is 30 minutes.",
         "Logs are kept in the audit bucket.", "Never force-push to main.")
LEVELS = ("internal", "sensitive", "local-only")
MARKER = re.compile(r"\[/?ds4:[a-z-]+\]", re.IGNORECASE)


class Soak:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.home = root / "home"
        self.proj = root / "proj"
        self.proj.mkdir(parents=True)
        self.rng = random.Random(seed)
        self.env = {**os.environ, "WAYMARKS_HOME": str(self.home), "HOME": str(root),
                    "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}
        self.committed: dict[str, str] = {}  # item ID -> what was written
        self.failures: list[str] = []
        self.counts = {"writes": 0, "kills": 0, "stops": 0, "rebuilds": 0, "rounds": 0}
        self.sessions: list[str] = []

    def argv(self, *args: str, session: str | None = None) -> list[str]:
        pre = ["--cwd", str(self.proj), "--json"]
        if session:
            pre = ["--session", session, *pre]
        return [sys.executable, "-m", "waymarks.cli.main", *pre, *args]

    def run(self, *args: str, session: str | None = None) -> tuple[int, str, str]:
        done = subprocess.run(self.argv(*args, session=session), env=self.env,
                              cwd=self.proj, capture_output=True, text=True, timeout=120)
        self.check_stderr(args, done.stderr)
        return done.returncode, done.stdout, done.stderr

    def check_stderr(self, args: tuple[str, ...] | list[str], err: str) -> None:
        if "Traceback" in err:
            self.failures.append(f"traceback from {args}: {err[-800:]}")

    def setup(self) -> None:
        subprocess.run(self.argv("trust", str(self.proj)), env=self.env, cwd=self.proj,
                       capture_output=True, check=False)
        for _ in range(2):
            _, out, _ = self.run("session", "new")
            self.sessions.append(json.loads(out)["session"]["id"])

    def a_write(self) -> list[str]:
        text = self.rng.choice(TEXTS)
        form = self.rng.random()
        scope = self.rng.choice(("project", "project", "session"))
        args = ["memory", "add", "--scope", scope]
        if form < 0.3:
            body = text
        elif form < 0.7:
            level = self.rng.choice(LEVELS)
            body = f"[ds4:{level}]{text}[/ds4:{level}]"
        else:
            args += ["--classification", self.rng.choice(LEVELS)]
            body = text
        if self.rng.random() < 0.2:
            return ["memory", "add", "--scope", "project", "--key", "db-port", "--",
                    f"The database port is {self.rng.choice((5432, 5433, 5434))}."]
        if self.rng.random() < 0.15:
            level = self.rng.choice(LEVELS)
            return ["pin", "--scope", "project", "--", f"[ds4:{level}]{text}[/ds4:{level}]"
                    if self.rng.random() < 0.5 else text]
        return [*args, "--", body]

    def a_body(self) -> tuple[str, str | None]:
        """A text of the pool and the level to write it at: plain, marked whole (with a
        space or a full stop inside the tags now and then) or by classification."""
        text, roll = self.rng.choice(TEXTS), self.rng.random()
        if roll < 0.3:
            return text, None
        level = self.rng.choice(LEVELS)
        if roll < 0.7:
            pad = self.rng.choice(("", " "))
            return f"[ds4:{level}]{pad}{text}{pad}[/ds4:{level}]", None
        return text, level

    def a_writer(self, session: str) -> list[str]:
        roll = self.rng.random()
        text, level = self.a_body()
        if roll < 0.15:  # the Python API, in a process of its own
            return [sys.executable, "-c", API_WRITER, str(self.home), str(self.proj), session,
                    text, level or ""]
        if roll < 0.3:  # MCP over stdio, the confirmation accepted
            return [sys.executable, __file__, "--mcp-client", json.dumps(
                {"action": "memory_add", "content": text, "scope": "project",
                 **({"classification": level} if level else {})}),
                    *self.argv("mcp", session=session)]
        if roll < 0.34:  # a rebuild racing the writers
            return self.argv("rebuild-index", session=session)
        if roll < 0.4:
            export = self.root / f"import-{self.rng.randrange(10**9)}.jsonl"
            lines = [{"format": "waymarks-export-v1", "kind": "memory", "scope": "project",
                      "status": "active", "text": t, **({"classification": lv} if lv else {})}
                     for t, lv in (self.a_body() for _ in range(self.rng.randint(1, 3)))]
            export.write_text("".join(json.dumps(line) + "\n" for line in lines))
            return self.argv("import", str(export), session=session)
        if roll < 0.5 and self.committed:
            target = self.rng.choice(sorted(self.committed))
            return self.argv("memory", "supersede", target[:8], "--", text, session=session)
        return self.argv(*self.a_write(), session=session)

    def round(self) -> None:
        self.counts["rounds"] += 1
        procs = []
        for _ in range(self.rng.randint(3, 6)):
            argv = self.a_writer(self.rng.choice(self.sessions))
            args = argv[3:]
            procs.append((args, subprocess.Popen(
                argv, env=self.env, cwd=self.proj, start_new_session=True,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
            self.counts["writes"] += 1
        time.sleep(self.rng.uniform(0.05, 0.6))
        for _args, proc in procs:
            roll = self.rng.random()
            if roll < 0.25 and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                self.counts["kills"] += 1
            elif roll < 0.4 and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGSTOP)
                self.counts["stops"] += 1
                time.sleep(self.rng.uniform(0.05, 0.5))
                os.killpg(proc.pid, signal.SIGCONT)
        for args, proc in procs:
            out, err = proc.communicate(timeout=180)
            if proc.returncode < 0:
                continue  # killed: its write may or may not be there (never reported)
            self.check_stderr(args, err)
            if "import" in args:  # one answer per line
                try:
                    lines = json.loads(out)["lines"]
                except (ValueError, KeyError):
                    self.failures.append(f"import answered {out[-300:]} {err[-300:]}")
                    continue
                for line in lines:
                    if line.get("outcome") == "imported":
                        self.committed[line["id"]] = " ".join(args)
                continue
            try:
                answer = json.loads(out)
            except ValueError:
                self.failures.append(f"no JSON from {args}: {out[-300:]} {err[-300:]}")
                continue
            if answer.get("outcome") == "committed" and answer.get("id"):
                self.committed[answer["id"]] = " ".join(args)
        if self.rng.random() < 0.3:
            self.counts["rebuilds"] += 1
            self.run("rebuild-index")
        self.check()

    def items(self) -> dict[str, tuple[str, str, str | None, str, str]]:
        found = {}
        for session in self.sessions:
            for what in (("memory", "list"), ("pins",)):
                code, out, err = self.run(*what, session=session)
                if code != 0:
                    self.failures.append(f"{what} exit {code}: {err[-300:]}")
                    continue
                for item in json.loads(out)["items"]:
                    scope = item["scope"] if item["scope"] == "project" else \
                        f'{item["scope"]} of {item["sessionId"]}'
                    found[item["id"]] = (item["kind"], item["status"], item.get("key"),
                                         scope, item["text"])
        return found

    def check(self) -> None:
        ledger = "".join(p.read_text() for p in (self.home / "sessions").rglob("*.jsonl"))
        before = self.items()
        for item_id, what in self.committed.items():
            if item_id not in ledger:
                self.failures.append(f"committed {item_id} ({what}) not in the ledger")
            if item_id not in before:
                self.failures.append(f"committed {item_id} ({what}) not projected")
        groups: dict[tuple[str, str, str], list[str]] = {}
        for item_id, (kind, status, _key, scope, text) in before.items():
            if status == "active":
                bare = " ".join(MARKER.sub("", text).lower().split()).rstrip(" .")
                groups.setdefault((kind, scope, bare), []).append(item_id)
        for group, ids in groups.items():
            if len(ids) > 1:
                self.failures.append(f"{len(ids)} active items of one text {group}: "
                                     f"{[(before[i][4], self.committed.get(i)) for i in ids]}")
        ports = [i for i, (kind, status, key, scope, _t) in before.items()
                 if kind == "memory" and status == "active" and key == "db-port"]
        if len({before[i][3] for i in ports}) < len(ports):
            self.failures.append(f"{len(ports)} active claims under db-port: "
                                 f"{[(before[i][4], self.committed.get(i)) for i in ports]}")
        self.run("rebuild-index")
        self.counts["rebuilds"] += 1
        after = self.items()
        if after != before:
            diff = {k: (before.get(k), after.get(k)) for k in set(before) | set(after)
                    if before.get(k) != after.get(k)}
            self.failures.append(f"rebuild differs from the incremental projection: {diff}")
        code, out, _ = self.run("health")
        if code != 0:
            self.failures.append(f"health exit {code}: {out[-600:]}")


API_WRITER = """
import json, sys
from pathlib import Path
from waymarks.service.app import Waymarks
home, cwd, session, text, level = sys.argv[1:]
app = Waymarks(Path(home), cwd=cwd, session=session)
try:
    done = app.remember(text, scope="project", classification=level or None)
finally:
    app.close()
print(json.dumps({"outcome": done.outcome, "id": getattr(done, "id", None)}))
"""


def mcp_client(arguments: str, server: list[str]) -> int:
    """One ``context_persistence`` call to a server started here, its question accepted;
    prints ``{"outcome", "id"}`` as the command line's --json does."""
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()

    send({"id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "soak", "version": "1"}}})
    proc.stdout.readline()
    send({"method": "notifications/initialized"})
    send({"id": 2, "method": "tools/call", "params": {
        "name": "context_persistence", "arguments": json.loads(arguments)}})
    for line in proc.stdout:
        message = json.loads(line)
        if message.get("method") == "elicitation/create":
            send({"id": message["id"], "result": {"action": "accept",
                                                   "content": {"confirm": True}}})
        elif message.get("id") == 2:
            result = message.get("result", {}).get("structuredContent") or {}
            print(json.dumps({"outcome": result.get("outcome"), "id": result.get("id"),
                              "raw": result}))
            break
    proc.stdin.close()
    return proc.wait()


def main() -> int:
    if sys.argv[1:2] == ["--mcp-client"]:
        return mcp_client(sys.argv[2], sys.argv[3:])
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        soak = Soak(Path(root), args.seed)
        soak.setup()
        for _ in range(args.rounds):
            soak.round()
            seen = len(soak.failures)
            if seen:
                break
        print(json.dumps({**soak.counts, "committed": len(soak.committed),
                          "failures": soak.failures}, indent=1))
        return 1 if soak.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
