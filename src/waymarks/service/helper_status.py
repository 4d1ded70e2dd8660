"""The Claude Code helper as ``status`` and ``health`` tell it, from the home alone (the
service imports no host adapter): the helper sockets in ``<home>/claude-code/`` (one per
setting of hybrid recall's switches, ``helper.sock``, ``helper-0.sock``...), each one a
helper answers at, one whose helper takes the connection but does not answer (stopped
with ``kill -STOP``, or stuck: each prompt waits for it, then is done in its hook), or
one left by a helper that ended (stale: the next hook starts another), and the last
problem the helpers logged, its kind and time (never content). Both said nothing of it:
a helper that could not listen ended unseen, and every prompt was then done the slow way
in its hook's own process; then a stopped helper was said to run, as status only
connected. It is asked (:func:`~waymarks.spawn.sockets.probe`, which does not count as
use: its idle end is not put off)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, Final

from waymarks.service.logs import LOG_DIR, LOG_FILE
from waymarks.spawn.sockets import probe
from waymarks.spawn.switches import IDLE_RANGE

#: the helpers' problems in the log, and how they are said
PROBLEMS: Final = {"claude_code_helper_unavailable": "could not serve",
                   "claude_code_helper_bad_idle": "was given an idle time "
                   f"(WAYMARKS_CC_HELPER_IDLE) that is not {IDLE_RANGE}, so it idles 30 "
                   "minutes",
                   "claude_code_helper_dropped": "dropped a request whose hook had gone"}
#: how much of the log's end is read for the last problem
TAIL_BYTES: Final = 256 * 1024
#: how long status waits for a helper's answer (one answers in milliseconds; a prompt's
#: hook waits 4 s: ``cc_client.ANSWER_TIMEOUT_S``)
PROBE_TIMEOUT_S: Final = 1.0


def helper_status(home: Path) -> dict[str, Any] | None:
    """``{"running": [socket names], "stalled": [...], "stale": [...], "lastProblem":
    {...} | None}``; ``None`` when no helper ever ran for the home and none logged a
    problem."""
    try:
        sockets = sorted((home / "claude-code").glob("helper*.sock"))
    except OSError:
        sockets = []
    said: dict[bool | None, list[str]] = {True: [], False: [], None: []}
    for path in sockets:
        said[probe(str(path), PROBE_TIMEOUT_S)].append(path.name)
    problem = _last_problem(home)
    if not sockets and problem is None:
        return None
    return {"running": said[True], "stalled": said[False], "stale": said[None],
            "lastProblem": problem}


def said(helper: dict[str, Any]) -> str:
    """The helper's line of ``status`` and ``health``."""
    stalled = helper.get("stalled") or []
    if helper["running"]:
        line = f"running ({', '.join(helper['running'])})"
        if stalled:
            line += "; "
    else:
        line = "" if stalled else "not running (the next hook starts one)"
    if stalled:
        line += (f"not answering ({', '.join(stalled)}: it takes the connection but says "
                 f"nothing within {PROBE_TIMEOUT_S:g} s, stopped with kill -STOP or stuck; "
                 "each prompt waits 4 s for it, then is done in its hook's own process: "
                 "resume it with kill -CONT, or end it and the next hook starts another)")
    if helper["stale"]:
        line += f"; left by one that ended: {', '.join(helper['stale'])}"
    problem = helper["lastProblem"]
    if problem is not None:
        line += (f"; last problem: it {PROBLEMS[problem['event']]}"
                 + (f" ({problem['code']})" if problem.get("code") else "")
                 + f" at {problem['at']}")
    return f"Claude Code helper: {line}"


def _last_problem(home: Path) -> dict[str, Any] | None:
    """The last helper problem in the end of the home's log (``None``: none there), which
    reaches into the log set aside before it (``waymarks.jsonl.1``) while it is short."""
    path = home / LOG_DIR / LOG_FILE
    data = _tail(path, TAIL_BYTES)
    if len(data) < TAIL_BYTES:
        data = _tail(path.with_name(f"{LOG_FILE}.1"), TAIL_BYTES - len(data)) + data
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


def _tail(path: Path, limit: int) -> bytes:
    """The last ``limit`` bytes of the file at ``path`` (none when it cannot be read)."""
    with contextlib.suppress(OSError):
        if not path.is_file():  # (a FIFO there is never opened: it would wait for ever)
            return b""
        with open(path, "rb") as log:
            log.seek(max(0, os.fstat(log.fileno()).st_size - limit))
            return log.read(limit)
    return b""
