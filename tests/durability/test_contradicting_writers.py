"""Processes adding claims that contradict one another to one session at the same moment:
exactly one is stored, every other refused naming it.

A write analyses its claim before it takes the session lock (``write_path.analysed_ahead``)
and decides under the lock, against the projection synced with every line the others
appended: what it saw before waiting for the lock may be stale by then, and must never be
applied as it was."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks

WRITERS = 4

_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from waymarks.service.app import Waymarks

    home, project, session, port = sys.argv[1:5]
    app = Waymarks(Path(home), cwd=project, session=session)
    app.current_session()
    _ = app.projection
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("no go")
    outcome = app.remember(f"The billing API listens on port {port}.", scope="project")
    print(type(outcome).__name__, getattr(outcome, "code", ""),
          " ".join(getattr(outcome, "conflicts", ())), getattr(outcome, "id", ""), flush=True)
    app.close()
""")


@pytest.mark.slow
def test_of_contradicting_claims_written_at_once_exactly_one_is_stored(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as setup:
        setup.trust(str(project))
        session = setup.session_new().path
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(home), str(project), str(session), str(8000 + n)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for n in range(WRITERS)]
    try:
        for proc in procs:  # every one waits on its "go" with the database open
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        said = [proc.communicate(timeout=120)[0].split() for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()  # only the processes this test started, by their handles
                proc.wait()
    assert all(proc.returncode == 0 for proc in procs), said
    stored = [words for words in said if words[0] == "Committed"]
    refused = [words for words in said if words[0] != "Committed"]
    assert len(stored) == 1, said
    winner = stored[0][-1]
    assert all(words[:2] == ["Rejected", "conflict"] and winner in words for words in refused)
    with Waymarks(home, cwd=str(project)) as app:
        claims = [v for v in app.items("memory") if v.status == "active"]
        assert [v.id for v in claims] == [winner]
