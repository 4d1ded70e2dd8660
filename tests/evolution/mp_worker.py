"""A worker process for the multi-process tests: waits for the go file, then runs checks
on a shared home until nothing more is due, and prints its attempts as JSON lines.
Test-only (drives the product queue with the file-backed step double)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tests.evolution.step_double import FileStep
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import route_client
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore


def main(home: str, step_dir: str, origin: str, calls_per_hour: int, go: str,
         daily_usd: float | None = None) -> None:
    """``daily_usd``: a daily ceiling, the route priced at 1000 USD per million tokens."""
    price = None if daily_usd is None else 1000.0
    route = RouteConfig("openai", "openai", "m1", origin + "/v1",
                        input_usd_per_mtok=price, output_usd_per_mtok=price)
    queue = EvolutionQueue(JobStore.open(Path(home)), FileStep(Path(step_dir)),
                           EvolutionConfig(primary=route, calls_per_hour=calls_per_hour,
                                           daily_usd=daily_usd),
                           ProviderPolicy.from_config({}), route_client)
    while not Path(go).exists():
        time.sleep(0.005)
    quiet = 0
    while quiet < 3:
        attempt = queue.run_once()
        print(json.dumps({**attempt.to_json(), "owner": queue.owner}), flush=True)
        quiet = quiet + 1 if attempt.outcome in ("idle", "waiting", "busy") else 0
    queue.store.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5],
         float(sys.argv[6]) if len(sys.argv) > 6 else None)
