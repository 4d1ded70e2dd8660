"""Benchmark: a long session's provider requests through the real bridge process.

Pi sends every earlier turn again with each request, and the bridge's ``sanitize`` reads
the line, guards the history, sanitizes, and writes the payload back. Here the bridge runs
as Pi starts it (``waymarks bridge``, a child process, line-delimited JSON on its pipes),
no Pi and no model: a ``--messages``-message conversation of each shape (the generator of
``sanitize.py``), then ``--requests`` requests each one turn longer. Reported per shape and
code: the round trip of the first request and the best and median of the later ones
(write the line, read the answer and decode it), as the extension would see them.
``current`` is sent each payload whole, as the extension did before issue 15's
protocol; ``tail`` (the same code) only the messages after those it holds
(``hosts/pi_conversation.py``, the line built as the extension builds it, before the clock
starts for both), and answered without those it answered unchanged (put back as the
extension does, timed); ``rss_mb``: each bridge's resident memory at the end (the tail
bridge holds the conversation). With ``--baseline REF`` that ref's code runs a bridge of
its own, sent whole payloads. Each request goes to every bridge in turn (the same load on
all); their answers are checked to be the same JSON.

    .venv/bin/python benchmarks/pi_bridge_sanitize.py [--messages 100000] [--requests 4]
        [--baseline REF]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import sanitize as payloads
from code_baseline import described, env_with, load, source_of
from waymarks.hosts.pi_conversation import SentConversation


class Bridge:
    """A ``waymarks bridge`` child with ``source``'s code (``None``: the current code)."""

    def __init__(self, home: Path, source: Path | None) -> None:
        home.mkdir(parents=True)
        env = env_with(source)
        env.update(WAYMARKS_HOME=str(home), HOME=str(home))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "waymarks.cli.main", "bridge"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=home)
        self.next = 0
        self.call("initialize", {"cwd": str(home)})

    def call(self, method: str, params: dict[str, Any]) -> tuple[float, bytes]:
        self.next += 1
        return self.send(json.dumps({"id": self.next, "method": method, "params": params}))

    def send(self, line: str) -> tuple[float, bytes]:
        """The round trip of one request line: written, its answer read."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        data = line.encode()
        started = time.perf_counter()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        return (time.perf_counter() - started) * 1000, answer

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return round(int(next(line.split()[1] for line in status.splitlines()
                              if line.startswith("VmRSS:"))) / 1024, 1)

    def close(self) -> None:
        self.call("shutdown", {})
        self.proc.wait(timeout=60)


def shape_figures(key: str, first: dict[str, Any], requests: int,
                  bridges: dict[str, Bridge]) -> dict[str, Any]:
    times: dict[str, list[float]] = {name: [] for name in bridges}
    history = list(first[key])
    sent = SentConversation()
    for n in range(requests):
        payload = {**first, key: history}
        params = {"payload": payload, "provider": "anthropic"}
        texts = [json.dumps(m) for m in history]
        answers = {}
        for name, bridge in bridges.items():
            if name == "tail":
                ms, answer = bridge.send(sent.line(n + 1, params, key, texts))
            else:
                ms, answer = bridge.call("sanitize", params)
            started = time.perf_counter()  # (and decoded, as the extension parses it)
            result = json.loads(answer)["result"]
            answers[name] = sent.answered(result, key, texts) if name == "tail" else result
            times[name].append(ms + (time.perf_counter() - started) * 1000)
        decoded = [{k: v for k, v in a.items() if k != "held"} for a in answers.values()]
        # as JSON: key order and a number's type count (``==`` takes 1, 1.0, true alike)
        assert len({json.dumps(d) for d in decoded}) == 1, "the codes' answers differ"
        assert decoded[0]["withheld"] is False
        history = [*history, {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"and now step {n}"}]} if key == "input"
            else {"role": "user", "content": f"and now step {n}"}]
    size = len(json.dumps({**first, key: history}))
    return {"payload_mb": round(size / 1e6, 1), **{
        name: {"first_ms": round(ms[0]), "next_best_ms": round(min(ms[1:])),
               "next_median_ms": round(statistics.median(ms[1:])),
               "rss_mb": bridges[name].rss_mb()}
        for name, ms in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=4)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--baseline", metavar="REF", default=None)
    args = parser.parse_args()
    if args.requests < 2:
        parser.error("--requests must be at least 2 (the first, then the later ones)")
    payloads.MESSAGES = args.messages
    rng = random.Random(args.seed)
    shapes = {"chat": ("messages", payloads.chat_payload(rng)),
              "responses": ("input", payloads.responses_payload(rng)),
              "anthropic": ("messages", payloads.anthropic_payload(rng))}
    report: dict[str, Any] = {}
    with source_of(args.baseline) as baseline, \
            tempfile.TemporaryDirectory(prefix="waymarks-bridge-sanitize-") as tmp:
        for shape, (key, first) in shapes.items():
            bridges = {"current": Bridge(Path(tmp, shape, "current"), None),
                       "tail": Bridge(Path(tmp, shape, "tail"), None)}
            if baseline is not None:
                bridges["baseline"] = Bridge(Path(tmp, shape, "baseline"), baseline)
            try:
                report[shape] = shape_figures(key, first, args.requests, bridges)
            finally:
                for bridge in bridges.values():
                    bridge.close()
    json.dump({"benchmark": "pi_bridge_sanitize", "python": sys.version.split()[0],
               "messages": args.messages, "requests": args.requests, "load": load(),
               "baseline_code": described(args.baseline), "shapes": report},
              sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
