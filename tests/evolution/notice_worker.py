"""A worker process for the cross-process notice test: builds the queue from the home's
``config.toml``, says it is ready, waits for the go file, runs ONE check at the given
clock and prints the attempt as JSON. Test-only (the product queue with the file-backed
step double)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tests.evolution.step_double import FileStep
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import route_client
from waymarks.service.evolution_config import load_evolution_config
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore


def main(home: str, step_dir: str, ready: str, go: str, clock_ms: int) -> None:
    queue = EvolutionQueue(JobStore.open(Path(home)), FileStep(Path(step_dir)),
                           load_evolution_config(Path(home)), ProviderPolicy.from_config({}),
                           route_client, now_ms=lambda: clock_ms, jitter=lambda: 0.5)
    Path(ready).touch()
    while not Path(go).exists():
        time.sleep(0.002)
    attempt = queue.run_once()
    print(json.dumps({**attempt.to_json(), "owner": queue.owner}), flush=True)
    queue.store.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
