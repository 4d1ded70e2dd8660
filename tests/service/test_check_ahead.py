"""A process's first memory write loads its contradiction check and compiles its patterns
before it takes the session lock (``core/check_ahead.py``), not while other writers wait.

Measured in a fresh interpreter (nothing imported by other tests), the session made by
another process: the modules imported and the regular expressions compiled while the
session file's lock is held, over a pin, a claim, a keyed claim and a claim stating
another value of it. Before: 3 modules (``claim_masked``, ``claim_negations``,
``claim_slots``) and 18 patterns on the first claim alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from waymarks.core import check_ahead
from waymarks.service.app import Waymarks

#: a writer process that records what is imported and compiled while it holds the session
#: file's lock: the modules, and each pattern with the Waymarks module that asked for it
_WATCHED = textwrap.dedent("""
    import contextlib, json, re, sys, traceback
    from pathlib import Path
    from waymarks.ledger import session_file
    from waymarks.service.app import Waymarks

    home, project, session = sys.argv[1:4]
    held = {"modules": [], "compiled": []}
    inside = [False]
    compile_now = re._compiler.compile

    def counted(pattern, *args, **kwargs):
        if inside[0]:
            asked = [f.filename for f in traceback.extract_stack()
                     if "/waymarks/" in f.filename and "lazy_re" not in f.filename]
            held["compiled"].append(
                (asked[-1].rsplit("/waymarks/", 1)[-1] if asked else "?", str(pattern)[:60]))
        return compile_now(pattern, *args, **kwargs)

    re._compiler.compile = counted
    exclusive = session_file.SessionFile._exclusive

    @contextlib.contextmanager
    def watched(self, *args, **kwargs):
        with exclusive(self, *args, **kwargs):
            before, inside[0] = set(sys.modules), True
            try:
                yield
            finally:
                inside[0] = False
                held["modules"] += sorted(set(sys.modules) - before)

    session_file.SessionFile._exclusive = watched
    app = Waymarks(Path(home), cwd=project, session=session)
    app.current_session()
    _ = app.projection
""")

_WRITER = _WATCHED + textwrap.dedent("""
    app.pin("Run the alpha check first.", scope="session")  # (the write path's own start)
    held["modules"], held["compiled"] = [], []
    outcomes = [app.remember("The nightly build step takes 40 minutes.", scope="project"),
                app.remember("The billing API listens on port 8080.", scope="session"),
                app.remember("The billing API port is 9090.", scope="session")]
    held["outcomes"] = [type(o).__name__ for o in outcomes]
    app.close()
    print(json.dumps(held))
""")

#: the concurrency benchmark's first four writes, what each compiled under the lock
_FIRST_WRITES = _WATCHED + textwrap.dedent("""
    outcomes, compiled = [], []
    for write in (lambda: app.pin("Writer 1 pin 0: run alpha check 1-0 first."),
                  lambda: app.remember("Writer 1 noted that build step 1-1 takes 1s"),
                  lambda: app.remember("Setting w1 n2 is value 2"),
                  lambda: app.supersede_memory(outcomes[-1].id,
                                               "Setting w1 n2 is value 3 (revised)")):
        held["compiled"] = []
        outcomes.append(write())
        compiled.append([asker for asker, _pattern in held["compiled"]])
    app.close()
    print(json.dumps({"outcomes": [type(o).__name__ for o in outcomes],
                      "operations": [getattr(o, "operation", None) for o in outcomes],
                      "compiled": compiled}))
""")


def _run_writer(tmp_path: Path, script: str) -> dict[str, Any]:
    """``script`` run in a fresh interpreter (nothing imported by other tests) on a
    trusted project's session made by this process; what it printed last."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as setup:
        setup.trust(str(project))
        session = setup.session_new().path
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": str(src), "HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "WAYMARKS_SEMANTIC": "off"}
    run = subprocess.run([sys.executable, "-c", script, str(home), str(project), str(session)],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout.splitlines()[-1]))


def test_a_first_memory_write_holds_the_lock_without_loading_the_check(tmp_path: Path) -> None:
    held = _run_writer(tmp_path, _WRITER)
    # the third contradicts the second: the check ran in full (and refused it)
    assert held["outcomes"] == ["Committed", "Committed", "Rejected"], held
    # what is left: a few small patterns of the write path and of the refusal's message
    assert len(held["compiled"]) <= 8, (len(held["compiled"]), held)
    assert not [m for m in held["modules"] if m.startswith("waymarks.core.")], held


def test_a_first_pin_and_supersession_compile_their_checks_before_the_lock(
        tmp_path: Path) -> None:
    """A process's first pin checked its text for credentials under the session lock (the
    credential rules' patterns compiled there: 3 for this text), and its first claim stating
    another value of one it wrote compiled the masks of the typed values there (10): both
    now before the lock (``write_path.pin_checked_ahead``, ``claim_masked.masked_ahead``)."""
    held = _run_writer(tmp_path, _FIRST_WRITES)
    assert held["outcomes"] == ["Committed"] * 4, held
    assert held["operations"][3] == "supersede", held
    pin, _claim, _keyed, supersession = held["compiled"]
    assert not [m for m in pin if m.startswith("core/secret")], held
    assert "core/claim_masked.py" not in supersession, held


def test_preparing_decides_nothing_and_survives_any_text() -> None:
    for text in ("", "x" * 5000, "The API port is 8080.", "缓存的过期时间是 30 分钟。",
                 "\x00\ud800 odd"):
        assert check_ahead.prepare(text) is None


def test_a_writer_that_serves_no_host_does_not_load_the_host_ledger(tmp_path: Path) -> None:
    """Whether a session is a host's (Pi's), whose entries may not be stored yet, is asked
    of every write; only a process that made a host's ledger has its module, which brought
    ``dataclasses`` and ``copy`` with it (~4.5 ms of CPU of a process's first write)."""
    held = _run_writer(tmp_path, _WATCHED + textwrap.dedent("""
        outcomes = [app.pin("Run the alpha check first."),
                    app.remember("The nightly build step takes 40 minutes.")]
        app.close()
        print(json.dumps({"outcomes": [type(o).__name__ for o in outcomes],
                          "imported": [name for name in ("waymarks.ledger.host", "dataclasses")
                                       if name in sys.modules]}))
    """))
    assert held == {"outcomes": ["Committed", "Committed"], "imported": []}


def test_a_write_starts_its_folder_watch_outside_the_session_lock(tmp_path: Path) -> None:
    """A process watches its project's session folders from its second listing of them
    (``service/source_listing.py``); a write lists them twice, before its lock and, for
    the entries appended since, under it, where the watch was started (``ctypes`` imported,
    inotify set up: ~3 ms of CPU while every other writer waited). The listing under the
    lock starts none now: a process's second write starts it, before its lock."""
    held = _run_writer(tmp_path, _WATCHED + textwrap.dedent("""
        from waymarks.files.watch import FolderWatch
        started, start = [], FolderWatch.start.__func__

        def counted(cls, *args, **kwargs):
            started.append("under the lock" if inside[0] else "outside")
            return start(cls, *args, **kwargs)

        FolderWatch.start = classmethod(counted)
        app.pin("Run the alpha check first.")
        first = list(started)
        app.remember("The nightly build step takes 40 minutes.")
        app.remember("The billing API listens on port 8080.")
        app.close()
        print(json.dumps({"first": first, "started": started, "modules": held["modules"]}))
    """))
    assert held["first"] == [], held
    assert held["started"] == ["outside"], held
    assert "ctypes" not in held["modules"], held
