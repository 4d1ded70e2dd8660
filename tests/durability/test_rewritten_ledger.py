"""An entry changed in place before the checkpoint (an edit of the same length, a line
overwritten with NUL bytes by a crash or bit rot) went unnoticed: the checkpoint's
fingerprint covers only the bytes before where reading stopped, so the old pin kept
being served and `health` said OK until someone ran `rebuild-index`. `health`, the whole
check, reads the active session again from its start and names what changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks


def _run(home: Path, project: Path, *args: str) -> tuple[int, Any]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("damage", ["same-length edit", "NUL bytes"])
def test_health_reads_the_active_session_again(home: Path, project: Path,
                                               damage: str) -> None:
    _run(home, project, "pin", "--", "Pin one.")
    _run(home, project, "memory", "add", "--", "The alpha service listens on port 8011.")
    [session] = list((home / "sessions").glob("*/*.jsonl"))
    assert _run(home, project, "health")[1]["ok"] is True
    lines = session.read_bytes().split(b"\n")
    if damage == "NUL bytes":
        lines[1] = b"\0" * len(lines[1])
    else:
        lines[1] = lines[1].replace(b"Pin one.", b"Pin XXX.")
    session.write_bytes(b"\n".join(lines))
    code, report = _run(home, project, "health")
    assert code == 1 and report["ok"] is False
    said = report["activeSessionProblem"]
    assert said.startswith(f"{session}: read again from its start, 1 "), said
    assert ("1 entry changed" if damage != "NUL bytes" else "1 no longer readable") in said
    assert "rebuild-index" in said
    _run(home, project, "rebuild-index")
    code, report = _run(home, project, "health")
    assert code == 0 and report["activeSessionProblem"] is None
    pins = [i["text"] for i in _run(home, project, "pins")[1]["items"]]
    assert pins == ([] if damage == "NUL bytes" else ["Pin XXX."])
