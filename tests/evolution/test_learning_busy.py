"""A database another process keeps busy: learning's commands say so as every other
command does (``database_error``, exit 1, one JSON document), never with a traceback.
They crashed with ``WriterBusy`` (the writer's turn held) or SQLite's own ``database is
locked`` (a transaction held), where ``memory`` or ``status`` named the file and the fix.
Real CLI entry point, real SQLite, the lock held by a real second process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.evolution.test_aging import learn
from waymarks.cli.main import main
from waymarks.store.evolution import EvolutionStore

PAST = "2026-03-01T00:00:00.000Z"
#: the wait a command gives the other process here (the product waits 30 s)
WAIT_MS = 200

HOLD_TURN = ("import fcntl, os, sys, time\n"
             "fd = os.open(sys.argv[1] + '.lock', os.O_RDWR | os.O_CREAT)\n"
             "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)")
HOLD_DATABASE = ("import sqlite3, sys, time\n"
                 "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                 "db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(60)")


@contextmanager
def held(database: Path, how: str) -> Iterator[None]:
    holder = subprocess.Popen([sys.executable, "-c", how, str(database)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture
def run(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    defaults = EvolutionStore.__init__.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "busy_timeout_ms", WAIT_MS)

    def go(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return go


@pytest.mark.parametrize("how", [HOLD_TURN, HOLD_DATABASE], ids=["turn", "transaction"])
@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_learning_commands_report_a_busy_database_clearly(
        run: Callable[..., tuple[int, str, str]], home: Path, project: Path,
        how: str) -> None:
    claim = learn(home, str(project), {"kind": "decision", "content": "Deploys use Kamal",
                                       "searchTerms": ["deploy"]}, PAST)
    database = home / "waymarks.db"
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    commands = [["evolution", "forget", claim], ["feedback", claim, "unhelpful"],
                ["evolution", "pin", claim]]
    with held(database, how):
        if how == HOLD_TURN:  # a read with nothing left to fold takes no turn: it answers
            for command in (["learn", "status"], ["evolution", "list", "all"],
                            ["learn", "list"], ["evolve"]):
                code, out, err = run(*command)
                assert code == 0 and "Traceback" not in err, (command, err)
            assert claim in run("evolution", "list", "all")[1]
        for command in commands:
            code, out, err = run(*command)
            assert (code, out) == (1, ""), command
            assert "Traceback" not in err and f"another process kept {database} locked " \
                "for too long. Let it finish, or stop it, then retry." in err, (command, err)
        code, out, err = run("--json", *commands[0])
        document = json.loads(out)
        assert code == 1 and err == ""
        assert (document["outcome"], document["code"]) == ("error", "database_error")
        assert "locked for too long" in document["message"]
    code, out, _err = run("--json", "evolution", "show", claim)  # nothing was changed
    assert code == 0 and json.loads(out)["state"] == "provisional"
