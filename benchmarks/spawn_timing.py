"""Timing new processes, several variants interleaved, for the start-up benchmarks.

On a shared machine the load changes from one second to the next, so variants timed one
after the other are not comparable. Here every round runs each variant once, in turn:
``python -c pass``, the code as it is, and (``--baseline-src DIR``) the same command with
``PYTHONPATH=DIR``, another checkout's ``src`` (``git archive REV src | tar -x -C DIR``),
so "before" and "now" come from the same run. Besides wall time it reports the child's CPU
time (user + system), which the load disturbs less.

Children run with compiled bytecode, as an installation does (``PYTHONDONTWRITEBYTECODE``
is removed); one untimed warm-up round compiles whatever is missing.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bench_stats import percentile


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return {**env, **(extra or {})}


def with_src(env: Mapping[str, str], src: str | None) -> dict[str, str]:
    """``env`` importing Waymarks from ``src`` (a checkout's ``src`` folder), if given."""
    return {**env, "PYTHONPATH": str(Path(src).resolve())} if src else dict(env)


def _child_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str], env: Mapping[str, str], cwd: Path | None = None,
             stdin: bytes = b"") -> tuple[float, float]:
    """(wall ms, CPU ms) of one process; raises if it fails."""
    cpu = _child_cpu_s()
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, cwd=cwd, env=dict(env), capture_output=True)
    wall = (time.perf_counter() - started) * 1000
    if done.returncode:
        raise SystemExit(f"{argv[:6]} failed ({done.returncode}): "
                         f"{done.stderr.decode(errors='replace')[-2000:]}")
    return wall, (_child_cpu_s() - cpu) * 1000


def interleaved(variants: Mapping[str, tuple[list[str], Mapping[str, str]]], runs: int,
                cwd: Path | None = None, stdin: bytes | list[bytes] = b"",
                warmup: bool = True,
                after: Mapping[str, Callable[[], None]] | None = None
                ) -> dict[str, dict[str, Any]]:
    """Each variant ``runs`` times, round-robin; per variant: wall p50/p90/min and CPU
    p50 in milliseconds. ``stdin`` may give one input per run. ``after``: what to run,
    untimed, after each run of the variant it names (waiting for a process it left)."""
    inputs = stdin if isinstance(stdin, list) else [stdin] * (runs + 1)
    then = after or {}
    if warmup:
        for name, (argv, env) in variants.items():
            run_once(argv, env, cwd, inputs[0])
            then.get(name, _nothing)()
    walls: dict[str, list[float]] = {name: [] for name in variants}
    cpus: dict[str, list[float]] = {name: [] for name in variants}
    for n in range(runs):
        for name, (argv, env) in variants.items():
            wall, cpu = run_once(argv, env, cwd, inputs[n % len(inputs)])
            then.get(name, _nothing)()
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: {"runs": runs, "p50_ms": round(statistics.median(walls[name]), 1),
                   "p90_ms": round(percentile(walls[name], 90), 1),
                   "min_ms": round(min(walls[name]), 1),
                   "cpu_p50_ms": round(statistics.median(cpus[name]), 1)}
            for name in variants}


def _nothing() -> None:
    return None


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages (say how busy it was)."""
    return [round(x, 2) for x in os.getloadavg()]
