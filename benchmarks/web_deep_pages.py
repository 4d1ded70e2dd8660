"""Benchmark: a deep memory page and the timeline of the web inspector, 20,000 memories.

The store is a real session ledger (``plan.py``'s, projected with ``rebuild_index``);
each request goes through the whole ASGI application (``web_ui.py``'s ``Direct``). A
page should cost what it shows: page 300 (?memory=300, 50 claims) is timed beside page
1, and, as the baseline in the same run, beside the read the page made before it asked
the store for one page (the newest ``offset + 50`` items read, verified and decoded,
then cut to 50: ``Waymarks.items(recent=...)``). The timeline page is timed beside the
read it made before it counted its changes in the store (every item read, verified and
decoded, and dated: ``Waymarks.items`` and ``updated_at`` over all of them).

    .venv/bin/python benchmarks/web_deep_pages.py [--memories 20000] [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from plan import summary, write_ledger
from waymarks.service.app import Waymarks
from waymarks.service.provenance import updated_at
from waymarks.web.app import build_app
from waymarks.web.reads import PER_PAGE
from waymarks.web.security import Gate
from web_ui import Direct, timed


def run(memories: int, runs: int, seed: int, deep: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-web-deep-") as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        ledger = Path(tmp, "session.jsonl")
        write_ledger(ledger, str(project), memories, 50, seed)
        app = Waymarks(Path(tmp, "home"), cwd=str(project), session=str(ledger))
        app.rebuild_index()
        gate = Gate(hosts=frozenset({"testserver"}))
        client = Direct(build_app(app, gate), gate)

        def page(number: int) -> Any:
            def get() -> None:
                status, text = client.request("GET", f"/?memory={number}")
                assert status == 200 and f"page {number} of" in text, status
            return get

        def before() -> None:  # the deep page's read as it was made
            offset = (deep - 1) * PER_PAGE
            with app.begin():
                shown = app.items("memory", recent=offset + PER_PAGE)[offset:]
            assert len(shown) == PER_PAGE

        def timeline() -> None:
            status, text = client.request("GET", "/timeline")
            assert status == 200 and f"{memories + 50} changes" in text, status

        def timeline_before() -> None:  # the timeline's read as it was made
            with app.begin():
                views = app.items("memory") + app.items("pin")
                assert len(updated_at(app, views)) == memories + 50

        page(deep)()  # warm the templates and the projection
        timeline()
        results = {"first_page": summary(timed(page(1), runs)),
                   "deep_page": summary(timed(page(deep), runs)),
                   "baseline_deep_read_before": summary(timed(before, runs)),
                   "timeline_page": summary(timed(timeline, runs)),
                   "baseline_timeline_read_before": summary(timed(timeline_before, runs))}
        client.close()
        app.close()
    return {"memories": memories, "deep_page_number": deep, "runs": runs, **results}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--page", type=int, default=300)
    args = parser.parse_args()
    json.dump({"benchmark": "web_deep_pages",
               "results": [run(args.memories, args.runs, args.seed, args.page)]},
              sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
