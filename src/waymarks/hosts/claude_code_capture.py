"""Learning capture from Claude Code's own transcript (``Stop`` and ``PreCompact`` hooks).

Never a model call: capture reads the transcript Claude Code names in the hook input
(``transcript_path``), keeps what the person *said*, and stores sanitized sources in the
evolution ledger for the job queue to consolidate later.

- ``Stop`` (after each turn): the person's statements and cues (recall questions, quoted
  examples, one-off instructions and vague continuations are not captured; see
  :mod:`waymarks.core.evolution.capture`);
- ``PreCompact``: the same, plus each compaction summary the transcript holds (a summary
  source with up to 16 local claims from recognised headings).

What must stay true:
- nothing is captured while learning is off (the home's ``[evolution] learn``; a project
  may turn it off), or for a subagent's hook (``PI_SUBAGENT_AGENT_ID`` non-empty in the
  hook's process, sent to the helper with the request), or
  from a sidechain (a subagent's part of the transcript);
- only user text is read as statements: assistant text, tool calls and tool results, meta
  entries and command output never become a statement or preference;
- bounded: the last ``TAIL_BYTES`` of the transcript, the last 16 statements;
- idempotent: a source's ID is derived from the transcript entry's ``uuid`` (the same
  message or summary captured twice is one source);
- sanitized before stored (local-only spans withheld, credentials redacted);
- errors never block Claude Code: the hook logs a code (never content) and exits 0;
- off the hook's path: the ``Stop`` hook's client only queues a capture request
  (:mod:`waymarks.service.capture_spool`); the helper (after answering), a detached
  drainer, the next turn or the recovery tick does the reading and storing here. A
  capture that throws (a busy database, a full disk) is queued and retried (item 11).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

#: a long-lived process (the Claude Code helper) keeps one Evolution per home: its ledger
#: reader and projection then read only what was appended since the last turn
_WARM: dict[Path, Any] = {}


def warm_evolution(home: Path) -> Any:
    """The helper's open Evolution for ``home`` (short busy timeout: capture never waits
    long for a busy database; it is queued and retried instead)."""
    from waymarks.service.capture_spool import CAPTURE_BUSY_MS
    from waymarks.service.evolution import warm

    return warm(_WARM, home, busy_timeout_ms=CAPTURE_BUSY_MS)


def drop_warm(home: Path) -> None:
    evo = _WARM.pop(home, None)
    if evo is not None:
        evo.close()


def capture(event: str, payload: dict[str, Any], home: Path, project: str, *,
            warm: bool = False, busy_timeout_ms: int | None = None,
            subagent: bool = False) -> dict[str, Any]:
    """Capture what the transcript holds now; returns a content-free summary of what it
    did. ``warm``: this process lives on (the helper): keep the evolution state open.
    ``busy_timeout_ms``: the capture is on a hook's path (``PreCompact``, which Claude Code
    waits for): a fresh evolution state that waits at most this long for the database and
    the learned ledger's lock. A capture that fails to store is logged and queued in the
    spool for the next drain. ``subagent``: the hook runs in a subagent (its own
    environment says, never this process's: the helper's is whichever hook started it)."""
    if subagent:
        return {"captured": 0, "skipped": "subagent"}
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not os.path.isabs(path) or not os.path.isfile(path):
        return {"captured": 0, "skipped": "no_transcript"}
    import sqlite3

    from waymarks.service import capture_spool
    from waymarks.service.outcomes import LedgerDamaged

    session = str(payload.get("session_id", "")).lower()
    bounded = busy_timeout_ms is not None
    evo = warm_evolution(home) if warm and not bounded else None
    try:
        if evo is not None:
            return {"captured": capture_spool.capture_transcript(
                home, event, session, path, project, evo)}
        from waymarks.service.evolution import Evolution

        with Evolution(home, busy_timeout_ms=busy_timeout_ms if bounded
                       else capture_spool.CAPTURE_BUSY_MS) as fresh:
            return {"captured": capture_spool.capture_transcript(
                home, event, session, path, project, fresh)}
    except (sqlite3.Error, OSError, LedgerDamaged) as exc:  # damaged: kept until moved
        if evo is not None:
            drop_warm(home)  # a connection that failed is not reused
        queued = capture_spool.queue_failed(home, "claude-code", event, session, path,
                                            project, exc)
        return {"captured": 0, "queued": queued}
