"""A real background embedding worker (``semantic_worker.run``) with a test embedder that
stops before its first batch until the test says go. Test-only: run as

    python -m tests.recall.paused_worker HOME BARRIER_DIR [load]

The embedder's vector of a text is a function of the text alone (so a test can tell which
text a stored vector was made from) and it writes ``paused`` in ``BARRIER_DIR`` then waits
(bounded) for ``go`` there, on its second call only: one batch is committed (and the
model's watermark moved past it) before it stops. With ``load``, it stops the same way
in the worker's load of the model instead, before the worker opens the home's
database."""

from __future__ import annotations

import hashlib
import struct
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from waymarks.recall.fusion import Calibration

DIM = 8
MODEL = "test-embedder-v1"


def vector(text: str) -> bytes:
    raw = [b - 127.5 for b in hashlib.blake2b(text.encode(), digest_size=DIM).digest()]
    norm = sum(v * v for v in raw) ** 0.5
    return struct.pack(f"<{DIM}f", *(v / norm for v in raw))


class PausedEmbedder:
    model = MODEL
    dim = DIM
    calibration = Calibration(floor=0.5, ceil=0.9, weight=0.5)

    def __init__(self, barrier: Path) -> None:
        self.barrier, self.calls = barrier, 0

    def query(self, text: str) -> bytes:
        return vector(text)

    def passages(self, texts: Sequence[str]) -> list[bytes]:
        self.calls += 1
        if self.calls == 2:
            (self.barrier / "paused").touch()
            for _ in range(1200):  # at most a minute: never hangs a test run
                if (self.barrier / "go").exists():
                    break
                time.sleep(0.05)
        return [vector(t) for t in texts]


def main(home: str, barrier: str, at: str = "") -> int:
    from waymarks import semantic
    from waymarks.service import semantic_worker

    embedder = semantic._loaded["e5"] = PausedEmbedder(Path(barrier))
    if at == "load":
        loaded = semantic_worker.load_embedder

        def load(threads: int | None = 1) -> object:
            embedder.calls = 1
            embedder.passages([])  # the pause (its next calls do not stop)
            return loaded(threads=threads)

        semantic_worker.load_embedder = load  # type: ignore[assignment]
    return semantic_worker.run(Path(home))


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
