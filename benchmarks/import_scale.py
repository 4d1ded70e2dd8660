"""Benchmark: `waymarks import` of 1,000 / 2,000 / 4,000 / 10,000 exported claims.

An import decides every line before it writes one (a dry run over an overlay of what the
lines before it would write, ``service/write_path.dry_run_all``): duplicates, conflicts
and contradictions of each line against the store and the earlier lines. The overlay
answered "which claims may this one contradict" by reading and sorting every claim the
earlier lines added, for every line: a 10,000-line import took 1 min 47 s before a byte
was written. Each size writes an export file of distinct session claims (varied
subjects, as a person's claims are), then times, in a fresh home each:

- ``dry_run_s``: ``import --dry-run FILE`` (the check alone), in the process;
- ``import_s``: ``import FILE`` (the check, then every line written and projected);
- ``dry_run_peak_rss_mb``, ``import_peak_rss_mb``: the process's peak resident memory
  after each (the import runs after the dry run, in the same process); a size over the
  line cap is refused by the dry run (``refused_exit``) and not imported.

With ``--baseline REF`` each size also runs, right after, against the code of ``REF``
(``code_baseline.py``). Prints one JSON document.

    .venv/bin/python benchmarks/import_scale.py [--sizes 1000,2000,4000,10000]
        [--baseline REF]
"""

from __future__ import annotations

import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import code_baseline
from bench_stats import steal_during, steal_s

SUBJECTS = ("cache", "queue", "worker", "gateway", "index", "scheduler", "mailer", "ledger",
            "proxy", "store", "billing", "search")
ATTRIBUTES = ("port", "timeout", "owner", "region", "retry limit", "log level", "host")


def export_file(path: Path, size: int, seed: int) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for n in range(size):
            subject = f"{rng.choice(SUBJECTS)}-{n}"
            claim = f"The {subject} {rng.choice(ATTRIBUTES)} is {rng.randint(1, 99_999)}."
            out.write(json.dumps({"format": "waymarks-export-v1", "kind": "memory",
                                  "scope": "session", "status": "active",
                                  "text": claim}) + "\n")


def run(size: int, seed: int) -> dict[str, Any]:
    from waymarks.cli.main import main as waymarks

    # (a worker the writes woke may still be leaving its files as it is removed)
    with tempfile.TemporaryDirectory(prefix="waymarks-import-", ignore_cleanup_errors=True) as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        source = Path(tmp, "export.jsonl")
        export_file(source, size, seed)
        timings: dict[str, Any] = {}
        load_before, steal_before = code_baseline.load(), steal_s()
        for name, extra in (("dry_run_s", ["--dry-run"]), ("import_s", [])):
            home = Path(tmp, f"home-{name}")
            started = time.perf_counter()
            code = waymarks(["--home", str(home), "--cwd", str(project), "--json", "import",
                             *extra, str(source)])
            timings[name] = round(time.perf_counter() - started, 2)
            # the process's peak so far (the import runs after the dry run, in it)
            timings[name.replace("_s", "_peak_rss_mb")] = round(
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
            if code == 2 and name == "dry_run_s":  # refused (over the line cap): no import
                timings["refused_exit"] = code
                break
            if code != 0:
                raise SystemExit(f"{name}: import exited {code}")
    return {"lines": size, **timings, "load_avg_before_after": [load_before,
                                                                 code_baseline.load()],
            "steal_s": steal_during(steal_before)}


def main() -> int:
    parser = code_baseline.sized_parser(__doc__, "1000,2000,4000,10000")
    args = parser.parse_args()
    if args.one is not None:
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):  # the import's own JSON
            result = run(args.one, args.seed)
        print(json.dumps(result))
        return 0
    report = code_baseline.sized_report(__file__, "import_scale", args)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
