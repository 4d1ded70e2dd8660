"""The Claude Code helper as ``status`` and ``health`` tell it, from the home alone (the
service imports no host adapter): the helper sockets in ``<home>/claude-code/`` (one per
setting of hybrid recall's switches, ``helper.sock``, ``helper-0.sock``...), each one a
helper answers at or one left by a helper that ended (stale: the next hook starts
another), and the last problem the helpers logged, its kind and time (never content).
Both said nothing of it: a helper that could not listen ended unseen, and every prompt
was then done the slow way in its hook's own process."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, Final

from waymarks.service.logs import LOG_DIR, LOG_FILE
from waymarks.spawn.sockets import connect

#: the helpers' problems in the log, and how they are said
PROBLEMS: Final = {"claude_code_helper_unavailable": "could not serve",
                   "claude_code_helper_bad_idle": "was given an idle time that is no "
                   "number of seconds",
                   "claude_code_helper_dropped": "dropped a request whose hook had gone"}
#: how much of the log's end is read for the last problem
TAIL_BYTES: Final = 256 * 1024


def helper_status(home: Path) -> dict[str, Any] | None:
    """``{"running": [socket names], "stale": [...], "lastProblem": {...} | None}``;
    ``None`` when no helper ever ran for the home and none logged a problem."""
    try:
        sockets = sorted((home / "claude-code").glob("helper*.sock"))
    except OSError:
        sockets = []
    running, stale = [], []
    for path in sockets:
        try:  # (a connection it takes and finds empty: it answers nothing, logs nothing)
            connect(str(path), 0.5, 0.5).close()
        except OSError:  # no one listens (or not this user's): a helper that ended
            stale.append(path.name)
        else:
            running.append(path.name)
    problem = _last_problem(home)
    if not sockets and problem is None:
        return None
    return {"running": running, "stale": stale, "lastProblem": problem}


def said(helper: dict[str, Any]) -> str:
    """The helper's line of ``status`` and ``health``."""
    if helper["running"]:
        line = f"running ({', '.join(helper['running'])})"
    else:
        line = "not running (the next hook starts one)"
    if helper["stale"]:
        line += f"; left by one that ended: {', '.join(helper['stale'])}"
    problem = helper["lastProblem"]
    if problem is not None:
        line += (f"; last problem: it {PROBLEMS[problem['event']]}"
                 + (f" ({problem['code']})" if problem.get("code") else "")
                 + f" at {problem['at']}")
    return f"Claude Code helper: {line}"


def _last_problem(home: Path) -> dict[str, Any] | None:
    """The last helper problem in the end of the home's log (``None``: none there)."""
    data = b""
    path = home / LOG_DIR / LOG_FILE
    with contextlib.suppress(OSError):
        if not path.is_file():  # (a FIFO there is never opened: it would wait for ever)
            return None
        with open(path, "rb") as log:
            log.seek(max(0, os.fstat(log.fileno()).st_size - TAIL_BYTES))
            data = log.read(TAIL_BYTES)
    for line in reversed(data.splitlines()):
        if b"claude_code_helper_" not in line:
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and record.get("event") in PROBLEMS:
            return {"event": record["event"], "code": record.get("code"),
                    "at": record.get("ts")}
    return None
