"""Benchmark: memory evolution's job queue (seed 004, EVOLUTION G and item 82).

- ``tick``: the cost of one recovery-tick check when ``--settled`` (10,000) sources are
  settled and nothing is due (expire sweep, reconcile, candidate query) — the work a
  long-lived host process does every 15 s. Target: p50 <= 5 ms.
- ``throughput``: ``--sources`` captured sources consolidated by one process, one attempt
  per check, against a loopback fake OpenAI-compatible model on 127.0.0.1 (real HTTP,
  real SQLite with synchronous=FULL): sources settled per second and per-attempt latency.

The consolidation step is an in-memory stand-in of the port (the real step's own cost is
the other half's to measure). Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/evolution_queue.py [--settled 10000] [--sources 200]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.evolution

from bench_stats import summary
from tests.evolution.fake_provider import FakeProvider, openai_ok
from waymarks.core.model_port import ModelReply, ModelRequest, SourceRef, StepOutcome
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import route_client
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore

TARGET_TICK_MS = 5.0


class MemoryStep:
    """An in-memory ConsolidationStep: sources in a dict, applies counted."""

    def __init__(self) -> None:
        self.sources: dict[str, bool] = {}  # id -> settled
        self.applied = 0

    def unsettled(self, limit: int) -> list[SourceRef]:
        found = []
        for sid, settled in self.sources.items():
            if not settled:
                found.append(SourceRef(sid, "/bench", "normal", "2026-12-01T10:00:00.000Z"))
                if len(found) >= limit:
                    break
        return found

    def request_for(self, source_id: str) -> ModelRequest | None:
        if self.sources.get(source_id, True):
            return None
        return ModelRequest("Consolidate.", f"source {source_id}: the user prefers tabs", 256,
                            "normal")

    def apply(self, source_id: str, reply: ModelReply, at: str) -> StepOutcome:
        self.sources[source_id] = True
        self.applied += 1
        return StepOutcome("applied", 1)

    def give_up(self, source_id: str, code: str, at: str) -> None:
        self.sources[source_id] = True


def _queue(home: Path, step: MemoryStep, origin: str) -> EvolutionQueue:
    route = RouteConfig("openai", "openai", "m1", origin + "/v1")
    return EvolutionQueue(JobStore.open(home), step,
                          EvolutionConfig(primary=route, calls_per_hour=10_000),
                          ProviderPolicy.from_config({}), route_client)


def bench_tick(root: Path, settled: int, origin: str, runs: int) -> dict[str, object]:
    home = root / "tick"
    step = MemoryStep()
    store = JobStore.open(home)
    refs = [SourceRef(f"src-{n:06d}", "/bench", "normal", "2026-12-01T10:00:00.000Z")
            for n in range(settled)]
    store.add_jobs(refs, 0)
    with store.write() as db:
        db.execute("UPDATE jobs SET state = 'settled'")
    store.close()
    step.sources = {r.source_id: True for r in refs}
    queue = _queue(home, step, origin)
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        attempt = queue.run_once()
        timings.append((time.perf_counter() - started) * 1000)
        assert attempt.outcome == "idle"
    queue.store.close()
    stats = summary(timings, 3)
    return {"settled_sources": settled, **stats, "target_p50_ms": TARGET_TICK_MS,
            "met": stats["p50_ms"] <= TARGET_TICK_MS}


def bench_throughput(root: Path, sources: int, origin: str) -> dict[str, object]:
    home = root / "throughput"
    step = MemoryStep()
    step.sources = {f"src-{n:06d}": False for n in range(sources)}
    queue = _queue(home, step, origin)
    timings = []
    started = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        attempt = queue.run_once()
        if attempt.outcome == "idle":
            break
        assert attempt.outcome == "settled", attempt
        timings.append((time.perf_counter() - t0) * 1000)
    wall = time.perf_counter() - started
    queue.store.close()
    return {"sources": sources, "settled": step.applied, "wall_s": round(wall, 3),
            "sources_per_s": round(step.applied / wall, 1),
            "attempt_latency": summary(timings, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settled", type=int, default=10_000)
    parser.add_argument("--sources", type=int, default=200)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, \
            FakeProvider(default=openai_ok('{"claims": []}')) as fake:
        root = Path(tmp)
        report = {
            "benchmark": "evolution_queue",
            "python": platform.python_version(),
            "machine": platform.machine(),
            "tick": bench_tick(root, args.settled, fake.origin, args.runs),
            "throughput": bench_throughput(root, args.sources, fake.origin),
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
