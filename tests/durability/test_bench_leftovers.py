"""A benchmark's rounds start detached workers in its temporary homes (the Claude Code
helper, the hook's drainer, the embedder); ``benchmarks/claude_code_hook.py
--baseline-src DIR`` removed the folder while one still wrote there and failed at its end
("Directory not empty: 'home-baseline'"), losing its result. What runs under the folder
is now stopped first (``benchmarks/leftovers.py``), and nothing else: what carries the
mark the benchmark put in the environment of every process it started (a process of the
user's working in the folder got SIGTERM when the folder, not the mark, decided)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def running_under(root: Path) -> list[str]:
    """Command lines of the live processes that name ``root`` (none of the test's own)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = Path(entry.path, "cmdline").read_bytes().decode(errors="replace")
            state = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(root) in argv and state != "Z":
            found.append(argv.replace("\0", " ")[-200:])
    return found


WRITER = ("import os, sys, time\n"
          "os.chdir(sys.argv[1])\n"
          "for n in range(100000):\n"
          "    os.makedirs(f'd{n % 7}', exist_ok=True)\n"
          "    open(f'd{n % 7}/f{n}', 'w').close()\n"
          "    time.sleep(0.001)\n")


def test_a_detached_writer_in_the_folder_is_stopped_and_the_folder_removed(
        tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from leftovers import temporary_folder
    finally:
        sys.path.remove(str(BENCH))
    outside = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                               start_new_session=True)
    report: dict[str, object] = {}
    try:
        with temporary_folder("waymarks-leftovers-", report) as root:
            home = root / "home-baseline"
            home.mkdir()
            # detached as a hook's child is (its own session, not waited for here)
            writer = subprocess.Popen([sys.executable, "-c", WRITER, str(home)],
                                      start_new_session=True)
            while not any(home.iterdir()):
                time.sleep(0.01)
        assert not root.exists()
        assert writer.wait(timeout=30) != 0  # stopped, not left writing
        assert report["removed"] is True
        assert report["leftovers"] == {"found": 1, "terminated": 1, "killed": 0,
                                       "still_running": 0, "left_alone": 0}
        assert outside.poll() is None  # a process not under the folder is left alone
    finally:
        outside.kill()
        outside.wait()


@pytest.mark.slow
def test_the_hook_benchmark_leaves_nothing_running(tmp_path: Path) -> None:
    home = tmp_path / "user"
    env = {**os.environ, "TMPDIR": str(tmp_path), "HOME": str(home),
           "XDG_CACHE_HOME": str(home / ".cache"), "WAYMARKS_SEMANTIC": "off",
           "WAYMARKS_CLI_HELPER": "off",
           "PYTHONPATH": str(BENCH.parent / "src")}
    done = subprocess.run([sys.executable, str(BENCH / "claude_code_hook.py"),
                           "--memories", "20", "--prompts", "2", "--runs", "1",
                           "--baseline-src", str(BENCH.parent / "src")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["first_prompt_baseline"]["runs"] == 1  # (--runs 1: an IndexError before)
    assert report["context_chars"] > 0  # the printed plan's context, read after the rounds
    # every process the rounds started carried the run's mark (the helpers too: their
    # environment was a copy made at import, before the mark, and they went unmarked)
    assert report["cleanup"]["leftovers"]["left_alone"] == 0
    assert running_under(tmp_path) == []  # the helper the warm rounds started: stopped
    assert not list(tmp_path.glob("waymarks-cc-*"))


def test_a_process_naming_another_folder_that_starts_alike_is_left_alone(
        tmp_path: Path) -> None:
    """The command line was searched for the folder's path as a substring: a process of
    the user's naming ``<folder>-2/f`` (a sibling whose name starts with the folder's)
    was sent SIGTERM by ``stop_started``, though the benchmark never started it. (Since
    processes are stopped by their mark, the one in the folder is started marked; the
    sibling's is not named as working in the folder either: ``left_alone`` 0.)"""
    sys.path.insert(0, str(BENCH))
    try:
        from leftovers import marked, stop_started
    finally:
        sys.path.remove(str(BENCH))
    root = tmp_path / "waymarks-cc-ab12"
    root.mkdir()
    sibling = tmp_path / "waymarks-cc-ab12-2"
    sibling.mkdir()
    outside = subprocess.Popen(["sh", "-c", "sleep 60", f"{sibling}/f"],
                               start_new_session=True)
    with marked() as token:
        inside = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                   f"{root}/home"], start_new_session=True)
    try:
        while not running_under(root):
            time.sleep(0.01)
        report = stop_started(root, token, grace_s=0, stop_s=5)
        assert inside.wait(timeout=30) != 0  # a path in the folder: stopped
        assert report["terminated"] == 1 and report["left_alone"] == 0
        assert outside.poll() is None  # the sibling's: left running
    finally:
        for process in (inside, outside):
            process.kill()
            process.wait()


def test_a_process_of_the_user_working_in_the_folder_is_left_running(
        tmp_path: Path) -> None:
    """Any process of the user's whose working directory lay in the folder was stopped: a
    ``sleep`` a person started from a shell cd'd there got SIGTERM. Only what carries
    the benchmark's mark is stopped now; the person's is left running and counted."""
    sys.path.insert(0, str(BENCH))
    try:
        from leftovers import temporary_folder
    finally:
        sys.path.remove(str(BENCH))
    report: dict[str, object] = {}
    with temporary_folder("waymarks-leftovers-", report) as root:
        home = root / "home"
        home.mkdir()
        # the person's: started elsewhere (not with the benchmark's environment), in it
        person = subprocess.Popen(
            ["sleep", "60"], cwd=home, start_new_session=True,
            env={k: v for k, v in os.environ.items() if k != "WAYMARKS_BENCH_RUN"})
        # the benchmark's detached worker, working there too
        worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                  cwd=home, start_new_session=True)
    try:
        assert worker.wait(timeout=30) != 0  # the benchmark's own leftover: stopped
        assert person.poll() is None  # the person's: still running
        assert report["leftovers"] == {"found": 1, "terminated": 1, "killed": 0,
                                       "still_running": 0, "left_alone": 1}
    finally:
        for process in (person, worker):
            process.kill()
            process.wait()
