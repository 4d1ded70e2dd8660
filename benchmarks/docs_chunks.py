"""Benchmark: reading a trusted project's engineering docs (``load_chunks``), which every
plan and Claude Code hook of the project does, with 1 and 4 large API references.

Each file is a generated ~970 KB API reference of 3,271 sections (``### METHOD /path``
and a paragraph), a few of them holding an ``[ds4:internal]`` span, and text where
``4:`` occurs (``404:``), as it does in real references. Each chunk classified the whole
file again (with a marked span in it, the markers stripped from all of it for each
chunk): one such file took 64 s, four 262 s; now 0.06 s and 0.23 s. Times ``load_chunks`` of a
project holding ``SIZE`` such files.

With ``--baseline REF`` each size also runs, right after, against the code of ``REF``
(``code_baseline.py``). Prints one JSON document.

    .venv/bin/python benchmarks/docs_chunks.py [--sizes 1,4] [--baseline REF]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import code_baseline

SECTIONS = 3_271
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
RESOURCES = ("items", "orders", "users", "invoices", "events", "webhooks", "keys")


def reference(seed: int) -> str:
    """One API reference of :data:`SECTIONS` sections, about 970 KB (a doc may have 1 MB)."""
    rng = random.Random(seed)
    parts = ["# API reference\n\nEvery endpoint of the service.\n"]
    for n in range(SECTIONS):
        method, resource = rng.choice(METHODS), rng.choice(RESOURCES)
        words = " ".join(rng.choice(("returns", "the", "resource", "page", "cursor",
                                     "filter", "limit", "field", "value", "request"))
                         for _ in range(15))
        secret = " Rotated by [ds4:internal]the ops rota[/ds4:internal]." if n % 500 == 7 \
            else ""
        parts.append(f"### {method} /v1/{resource}/{n}\n\n{words}. Errors: 400: bad input; "
                     f"404: no such {resource}; 429: too many requests.{secret} {words}.\n")
    return "\n".join(parts)


def run(size: int, seed: int) -> dict[str, Any]:
    from waymarks.personal.docs import load_chunks

    with tempfile.TemporaryDirectory(prefix="waymarks-docs-") as tmp:
        project = Path(tmp)
        docs = project / "docs" / "engineering"
        docs.mkdir(parents=True)
        for n in range(size):
            (docs / f"api-{n}.md").write_text(reference(seed + n), encoding="utf-8")
        size_bytes = sum(p.stat().st_size for p in docs.iterdir())
        started = time.perf_counter()
        chunks = len(load_chunks(project))
        took = time.perf_counter() - started
    return {"files": size, "bytes": size_bytes, "chunks": chunks,
            "load_chunks_s": round(took, 3), "load_avg": code_baseline.load()}


def main() -> int:
    parser = code_baseline.sized_parser(__doc__, "1,4")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run(args.one, args.seed)))
        return 0
    report = code_baseline.sized_report(__file__, "docs_chunks", args)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
