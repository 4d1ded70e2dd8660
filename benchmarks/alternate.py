"""Two trees (or more) measured in turns, round by round, in the same run.

A benchmark that ran the current tree's rounds first and the baseline's after measured
them in different minutes: on a machine whose load changes by the minute (two cores
shared by other jobs) that alone made gaps of 2 ms a plan that were not the code's. Here
each tree has a child process that builds its store, says it is ready and then runs one
round each time the parent gives it the turn: round 0 in the order given, round 1 in the
reverse order, and so on, so every tree is measured in the same windows and neither is
always first. The child side is :func:`turns`; the parent side :func:`in_turns`.

The turns are files in a folder the parent makes (``go-NAME-N`` given, ``done-NAME-N``
answered), named to the child by ``WAYMARKS_BENCH_TURNS=FOLDER:NAME``; a child run by
itself (no such variable) runs its rounds one after the other at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench_stats import percentile

#: ``FOLDER:NAME``: where a child's turns are given, and its name there
TURNS_ENV = "WAYMARKS_BENCH_TURNS"
#: how often a waiting side looks for its file (a stat: no load worth the name)
POLL_S = 0.005


def _wait_for(path: Path, process: subprocess.Popen[bytes] | None = None) -> None:
    while not path.exists():
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the child for {path.name} ended (status "
                               f"{process.returncode}) before it")
        time.sleep(POLL_S)


def turns(rounds: int) -> Iterator[int]:
    """In a child: ``0 .. rounds - 1``, each yielded when the parent gives this child its
    turn and told back as done when the loop asks for the next (at once, one after the
    other, without :data:`TURNS_ENV`). Call it when the store is built: the first
    ``next`` says the child is ready."""
    given = os.environ.get(TURNS_ENV)
    if not given:
        yield from range(rounds)
        return
    folder, name = given.rsplit(":", 1)
    sync = Path(folder)
    (sync / f"ready-{name}").touch()
    for number in range(rounds):
        _wait_for(sync / f"go-{name}-{number}")
        yield number
        (sync / f"done-{name}-{number}").touch()


def in_turns(children: Mapping[str, tuple[Sequence[str], Mapping[str, str]]],
             rounds: int) -> dict[str, dict[str, Any]]:
    """Run each of ``children`` (name: argv, environment) and give them their rounds in
    turns (:func:`turns`), the order reversed every other round; each child's JSON output
    by name. The children are started one after the other, each once the one before is
    ready, so no store is built while another is timed. A child that fails raises
    ``RuntimeError`` with the end of its stderr."""
    names = list(children)
    with tempfile.TemporaryDirectory(prefix="waymarks-turns-") as folder, \
            contextlib.ExitStack() as files:
        sync = Path(folder)
        processes: dict[str, subprocess.Popen[bytes]] = {}
        try:
            for name in names:
                argv, env = children[name]
                processes[name] = subprocess.Popen(
                    list(argv), stdout=files.enter_context(open(sync / f"{name}.out", "wb")),
                    stderr=files.enter_context(open(sync / f"{name}.err", "wb")),
                    env={**env, TURNS_ENV: f"{folder}:{name}"})
                _checked(sync, name, processes[name], f"ready-{name}")
            for number in range(rounds):
                for name in names if number % 2 == 0 else names[::-1]:
                    (sync / f"go-{name}-{number}").touch()
                    _checked(sync, name, processes[name], f"done-{name}-{number}")
            results = {}
            for name in names:
                if processes[name].wait() != 0:
                    raise RuntimeError(_failed(sync, name, processes[name]))
                results[name] = dict(json.loads((sync / f"{name}.out").read_text()))
            return results
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.kill()
                    process.wait()


def _checked(sync: Path, name: str, process: subprocess.Popen[bytes], file: str) -> None:
    try:
        _wait_for(sync / file, process)
    except RuntimeError:
        raise RuntimeError(_failed(sync, name, process)) from None


def _failed(sync: Path, name: str, process: subprocess.Popen[bytes]) -> str:
    err = (sync / f"{name}.err").read_text(errors="replace")[-3000:]
    return f"the {name} child failed (status {process.returncode}):\n{err}"


def share(total: int, rounds: int, number: int) -> tuple[int, int]:
    """Round ``number``'s part of ``total`` operations split evenly in ``rounds``: the
    first one's index and the one past its last."""
    return number * total // rounds, (number + 1) * total // rounds


def round_figures(wall: Sequence[float], cpu: Sequence[float]) -> dict[str, float]:
    """One round's figures: wall p50 and p99, CPU p50 and mean per operation (ms)."""
    return {"p50_ms": round(statistics.median(wall), 3),
            "p99_ms": round(percentile(wall, 99), 3),
            "cpu_p50_ms": round(statistics.median(cpu), 3),
            "cpu_mean_ms": round(statistics.mean(cpu), 3)}


def spread(rounds: Sequence[Mapping[str, float]]) -> dict[str, list[float]]:
    """Each figure of :func:`round_figures` across the rounds: ``[lowest, highest]``."""
    return {key: [min(r[key] for r in rounds), max(r[key] for r in rounds)]
            for key in rounds[0]} if rounds else {}


def gaps(current: Sequence[Mapping[str, float]],
         baseline: Sequence[Mapping[str, float]]) -> dict[str, list[float]]:
    """Round by round, current minus baseline, of each figure (ms; negative: faster)."""
    return {key: [round(c[key] - b[key], 3) for c, b in zip(current, baseline, strict=True)]
            for key in (current[0] if current else {})}


def round_gaps(current: Mapping[str, Any], baseline: Mapping[str, Any]) -> dict[str, Any]:
    """For two reports with ``rounds`` (lists of dicts of :func:`round_figures` by name):
    :func:`gaps` of each name, round by round."""
    first = current["rounds"][0] if current["rounds"] else {}
    return {key: gaps([r[key] for r in current["rounds"]],
                      [r[key] for r in baseline["rounds"]])
            for key, value in first.items() if isinstance(value, dict)}
