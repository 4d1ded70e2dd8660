"""Benchmark: reading a team ledger, and refreshing it after a pull.

Builds a trusted project whose ``.waymarks/team/`` holds ``--contributors`` files with
``--entries`` entries in all (claims with distinct keys, one in ten a pin), then
measures through the real service (``waymarks.service.team.refresh``):

- initial read: the first refresh of a fresh process (verify every chain, fold), MB/s;
- refresh with nothing changed, p50/p99;
- refresh after a pull of ``--pull`` new entries spread over every contributor (appended
  as ``git pull`` writes them; each refresh also saves the home's anchors, ``fsync``
  included), p50/p99 (target <= 20 ms);
- refresh after a pull whose entries are older than the previous pull's (the fold rewinds
  what follows them), and, once, older than everything (the fold rewinds it all: the
  worst case, a full refold).

With ``--blocks N`` it measures instead the team blocks a plan takes from ``N`` team items
(``team_views.team_blocks``, called alone and inside ``plan_request``), the person
holding 50 claims, one in five of which a team item contradicts; with ``--baseline REF``
the same case runs right after with ``REF``'s code (``code_baseline.py``), and the blocks
(their IDs, and the own claim each contradicts) must be the same.

Baselines in the same run: listing and stat-ing the files (the floor of change
detection), and reading the whole ledger again in a fresh process (what a refresh
would cost without checkpoints).

    .venv/bin/python benchmarks/team.py [--contributors 20] [--entries 100000] [--pull 100]
    .venv/bin/python benchmarks/team.py --blocks 1000 [--baseline REF]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import code_baseline
from bench_stats import summary
from waymarks.core.team import genesis, make_line
from waymarks.service import team
from waymarks.service.app import Waymarks

T0 = 1_767_225_600_000


class Contributor:
    def __init__(self, directory: Path, n: int) -> None:
        self.id = f"dev{n:02d}-{n:08x}"
        self.path = directory / f"{self.id}.jsonl"
        self.seq, self.prev, self.n = 0, genesis(self.id), n

    def lines(self, count: int, at: int) -> bytes:
        out = []
        for _ in range(count):
            self.seq += 1
            serial = self.n * 10_000_000 + self.seq
            if self.seq % 10 == 0:
                item = {"id": f"p{serial}", "text": f"Pin {serial}: run check {serial}"}
                kind = "pin"
            else:
                item = {"id": f"m{serial}", "key": f"service-{serial}",
                        "text": f"Service {serial} listens on port {1000 + serial % 60000}"}
                kind = "memory"
            line, self.prev = make_line(contributor=self.id, seq=self.seq, prev=self.prev,
                                        entry_id=f"e{serial}", at=at + self.seq,
                                        author=f"Developer {self.n}", op="add",
                                        kind=kind, item=item)  # type: ignore[arg-type]
            out.append(line)
        return b"".join(out)

    def append(self, data: bytes) -> None:
        with self.path.open("ab") as handle:
            handle.write(data)


CPU: list[float] = []  # process CPU time of each timed call (ms), beside the wall time


def timed(function) -> float:  # type: ignore[no-untyped-def]
    """Wall milliseconds of ``function()``; its CPU milliseconds go to :data:`CPU` (on a
    shared machine the wall time also holds other processes' turns)."""
    cpu = time.process_time()
    started = time.perf_counter()
    function()
    wall = (time.perf_counter() - started) * 1000
    CPU.append((time.process_time() - cpu) * 1000)
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contributors", type=int, default=20)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--pull", type=int, default=100)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--blocks", type=int, help="team items: the plan's team blocks")
    parser.add_argument("--baseline", help="with --blocks: a git ref run in the same run")
    args = parser.parse_args()
    if args.blocks is not None:
        return blocks(args)
    with tempfile.TemporaryDirectory(prefix="waymarks-team-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        directory = project / ".waymarks" / "team"
        directory.mkdir(parents=True)
        home.mkdir()
        app = Waymarks(home, cwd=str(project))
        app.trust(str(project))
        people = [Contributor(directory, n) for n in range(args.contributors)]
        each = args.entries // args.contributors
        for person in people:
            person.append(person.lines(each, T0))
        total_bytes = sum(p.path.stat().st_size for p in people)

        team.forget_process_state()
        initial_ms = timed(lambda: team.refresh(app))
        state = team.refresh(app)
        read = sum(s.count for s in state.sources.values())

        unchanged = [timed(lambda: team.refresh(app)) for _ in range(args.runs)]

        per_person = max(1, args.pull // args.contributors)
        pulled, refolds_before = [], state.fold.refolds
        CPU.clear()
        for run in range(args.runs):
            at = T0 + 10**9 + run * 10**6  # later than everything folded
            for person in people:
                person.append(person.lines(per_person, at))
            pulled.append(timed(lambda: team.refresh(app)))
        pulled_cpu = list(CPU)
        in_place = team.refresh(app).fold.refolds == refolds_before

        older = []
        rewound_before = team.refresh(app).fold.rewound
        CPU.clear()
        for run in range(args.runs):  # between the last two pulls: rewinds ~one pull
            at = T0 + 10**9 + (args.runs - 2) * 10**6 + 1000 + run * 10
            for person in people:
                person.append(person.lines(per_person, at))
            older.append(timed(lambda: team.refresh(app)))
        older_cpu = list(CPU)
        rewound = (team.refresh(app).fold.rewound - rewound_before) / args.runs
        for person in people:
            person.append(person.lines(per_person, T0 - 10**9))  # older than everything
        oldest_ms = timed(lambda: team.refresh(app))

        floor = []
        for _ in range(args.runs):
            started = time.perf_counter()
            for entry in os.scandir(directory):
                entry.stat()
            floor.append((time.perf_counter() - started) * 1000)

        def fresh_read() -> None:
            team.forget_process_state()
            team.refresh(app)

        full = [timed(fresh_read) for _ in range(3)]
        final = team.refresh(app)
        app.close()

    result = {
        "benchmark": "team",
        "contributors": args.contributors, "entries": read,
        "ledger_bytes": total_bytes,
        "initial_read": {"ms": round(initial_ms, 1),
                         "mb_per_s": round(total_bytes / 1e6 / (initial_ms / 1000), 1)},
        "refresh_unchanged": summary(unchanged),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "refresh_after_pull": {**summary(pulled), "cpu": summary(pulled_cpu),
                               "entries_per_pull":
                               per_person * args.contributors, "folded_in_place": in_place,
                               "target_ms": 20,
                               "meets_target_wall_p99": summary(pulled)["p99_ms"] <= 20,
                               "meets_target_cpu_p99": summary(pulled_cpu)["p99_ms"] <= 20},
        "refresh_after_older_pull": {**summary(older), "cpu": summary(older_cpu),
                                     "rewound_per_pull": rewound},
        "refresh_after_oldest_pull_ms": round(oldest_ms, 1),
        "baseline_stat_floor": summary(floor),
        "baseline_full_reread": summary(full),
        "items_after": len(final.fold.view.items),
    }
    print(json.dumps(result, indent=1))
    return 0


def blocks(args: argparse.Namespace) -> int:
    """The ``--blocks`` case, with the current code and, given ``--baseline``, that ref's."""
    argv = [a for a in sys.argv[1:] if a not in ("--baseline", args.baseline)]
    if os.environ.get("WAYMARKS_BENCH_CHILD"):
        print(json.dumps(blocks_case(args.blocks, min(args.runs, 10))))
        return 0
    os.environ["WAYMARKS_BENCH_CHILD"] = "1"
    report: dict[str, Any] = {"benchmark": "team_blocks",
                              "baseline": code_baseline.described(args.baseline),
                              "results": [{"current": code_baseline.child_json(
                                  __file__, argv, None)}]}
    with code_baseline.source_of(args.baseline) as source:
        if source is not None:
            report["results"][0]["baseline"] = code_baseline.child_json(__file__, argv, source)
    code_baseline.same_answers(report, "same_blocks")
    return code_baseline.print_report(report)


def blocks_case(count: int, runs: int) -> dict[str, Any]:
    """``team_blocks`` and a plan over ``count`` team items (the current code's)."""
    from waymarks.service import team_views
    from waymarks.service.planning import plan_request

    with tempfile.TemporaryDirectory(prefix="waymarks-team-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        directory = project / ".waymarks" / "team"
        directory.mkdir(parents=True)
        app = Waymarks(home, cwd=str(project))
        app.trust(str(project))
        person = Contributor(directory, 1)
        person.append(person.lines(count, T0))
        own = {}  # each own claim's text by ID (IDs differ from run to run)
        for n in range(1, 251, 5):  # "Service N listens on port P": another port
            text = f"Service {10_000_000 + n} listens on port {n}."
            own[getattr(app.remember(text, scope="project"), "id", "")] = text
        app.close()
        app = Waymarks(home, cwd=str(project))
        found = team_views.team_blocks(app)  # warm: the fold, the blame cache
        alone = [timed(lambda: team_views.team_blocks(app)) for _ in range(runs)]
        alone_cpu = list(CPU)
        CPU.clear()
        planned = [timed(lambda: plan_request(app, "which port does service 3 use?"))
                   for _ in range(runs)]
        plan_cpu = list(CPU)
        CPU.clear()
        pulled = []  # the first blocks after a pull of 10 entries, 3 of them contradicting
        for run in range(runs):
            serial = 10_000_000 + 1 + 10 * run  # (the person's file: IDs as above)
            person.append(person.lines(7, T0 + 10_000_000 + 100 * run) + b"".join(
                _contradicting(person, serial + k, T0 + 10_000_050 + 100 * run + k)
                for k in range(3)))
            pulled.append(timed(lambda: team_views.team_blocks(app)))
        after = team_views.team_blocks(app)
        app.close()
    return {"team_items": count, "own_claims": 50, "team_blocks": summary(alone),
            "team_blocks_cpu": summary(alone_cpu), "plan": summary(planned),
            "plan_cpu": summary(plan_cpu), "after_pull": summary(pulled),
            "after_pull_cpu": summary(CPU), "load_average": code_baseline.load(),
            "contradicted": sum(b.overridden_by is not None for b in found),
            "held_after_pull": 3 * runs - sum(1 for b in after if b.id.startswith("x")),
            "answers": [[[b.id, own.get(b.overridden_by or "")] for b in found],
                        [b.id for b in after]]}


def _contradicting(person: Contributor, serial: int, at: int) -> bytes:
    """A claim giving service ``serial`` another port, no key: held back."""
    person.seq += 1
    line, person.prev = make_line(
        contributor=person.id, seq=person.seq, prev=person.prev, entry_id=f"x{person.seq}",
        at=at, author="Developer 1", op="add", kind="memory",
        item={"id": f"x{person.seq}", "text": f"Service {serial} listens on port 7."})
    return line


if __name__ == "__main__":
    raise SystemExit(main())
