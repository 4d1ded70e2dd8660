"""A detached worker runs behind what a person waits for (``spawn(..., niceness)``): its
nice value and, since it leads a session of its own, its session's nice value (Linux's
autogroup: the kernel shares CPU between sessions first, so the worker's own nice 10 gave
it as much CPU as 8 writers beside it). Read from ``/proc`` of a real child."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.spawn.test_detached import probe_dir  # noqa: F401 (its fixture)
from waymarks.service import projection_fill, semantic_backfill
from waymarks.spawn import detached

#: a module the child runs: it reports its priority as the kernel holds it, then waits
PROBE = '''
import json, os

def main(argv):
    out, gate = argv
    fields = open("/proc/self/stat").read().rpartition(")")[2].split()
    try:
        group = open("/proc/self/autogroup").read().split()
    except OSError:
        group = None
    report = {"nice": os.getpriority(os.PRIO_PROCESS, 0), "stat_nice": int(fields[16]),
              "policy": os.sched_getscheduler(0), "autogroup": group}
    with open(out + ".tmp", "w") as f:
        json.dump(report, f)
    os.rename(out + ".tmp", out)
    return 0
'''

AUTOGROUPS = Path("/proc/self/autogroup").exists()


@pytest.fixture
def priority_dir(probe_dir: Path) -> Path:  # noqa: F811 (the fixture imported)
    """The package directory of ``test_detached``'s probe, holding this module's too."""
    (probe_dir / "priority_probe.py").write_text(PROBE)
    return probe_dir


def _run(tmp_path: Path, **priority: object) -> dict[str, object]:
    out = tmp_path / "out.json"
    pid = detached.spawn("priority_probe", [str(out), str(tmp_path / "gate")],
                         **priority)  # type: ignore[arg-type]
    assert pid is not None
    assert os.waitpid(pid, 0)[1] == 0
    report: dict[str, object] = json.loads(out.read_text())
    return report


def test_a_background_child_runs_at_a_low_priority_its_session_too(
        priority_dir: Path, tmp_path: Path) -> None:
    report = _run(tmp_path, niceness=10)
    assert report["nice"] == 10 and report["stat_nice"] == 10
    assert report["policy"] == os.sched_getscheduler(0)  # not idle: it must still run
    if AUTOGROUPS:  # the value that orders it against processes of other sessions
        group = report["autogroup"]
        assert isinstance(group, list) and group[-2:] == ["nice", "10"]


def test_a_child_started_plainly_keeps_its_callers_priority(
        priority_dir: Path, tmp_path: Path) -> None:
    report = _run(tmp_path)
    assert report["nice"] == os.getpriority(os.PRIO_PROCESS, 0)
    assert report["policy"] == os.sched_getscheduler(0)
    if AUTOGROUPS:
        group = report["autogroup"]
        assert isinstance(group, list) and group[-2:] == ["nice", "0"]


def test_a_lower_priority_never_raises_a_child_already_lower(
        priority_dir: Path, tmp_path: Path) -> None:
    """A caller at nice 15 (``nice -n 15 waymarks …``) starts a fill (nice 10) at 15."""
    pid = os.fork()
    if pid == 0:  # the caller, niced, in a child of the test's own
        try:
            os.nice(15 - os.nice(0))
            report = _run(tmp_path, niceness=10)
            os._exit(0 if report["nice"] == 15 else 1)
        finally:
            os._exit(2)
    assert os.waitpid(pid, 0)[1] == 0


def test_the_embedding_worker_and_the_fill_are_started_at_low_priority(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both background starts ask for it: the embedding worker and the fill at nice 10."""
    started: list[tuple[str, dict[str, object]]] = []

    def spawned(module: str, args: list[str], **options: object) -> int:
        started.append((module, options))
        return 1

    monkeypatch.setattr(detached, "spawn", spawned)
    fd = semantic_backfill.try_lock(tmp_path)
    assert fd is not None
    try:
        semantic_backfill._spawn(tmp_path, fd)
    finally:
        os.close(fd)

    class App:
        home = tmp_path

    assert projection_fill.start_worker(App()) is None  # type: ignore[arg-type]
    assert [(m, o.get("niceness")) for m, o in started] == [
        ("waymarks.service.semantic_worker", 10),
        ("waymarks.service.projection_fill_worker", 10)]


def test_the_claude_code_background_process_lowers_its_session_too(tmp_path: Path) -> None:
    """The Claude Code hook's background process (draining captures, closing a turn's
    observations) set its own nice value only: in a session of its own (it is spawned
    detached) that ordered it against nothing. It now lowers its session's as every
    detached worker does. Run in a child, with the lowering recorded in its place (the
    child's turn has nothing to drain: no capture spool in an empty home)."""
    import subprocess
    import sys

    probe = (
        "import json, os, sys\n"
        "from waymarks.spawn import detached\n"
        "asked = []\n"
        "detached.lower_priority = asked.append\n"
        "os.nice = lambda n: asked.append(('os.nice', n))\n"
        "from waymarks.hosts import cc_helper\n"
        "cc_helper._background([sys.argv[1], '-'])\n"
        "print(json.dumps(asked))\n")
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run([sys.executable, "-c", probe, str(home)], capture_output=True,
                          text=True, timeout=120, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [10], done.stdout
