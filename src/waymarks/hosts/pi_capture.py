"""Learning capture inside Pi (``agent_end``, ``session_compact``), over the bridge.

The bridge already holds Pi's session entries (fed with every request), so capture reads
them there: no session files scanned, no model call. On ``agent_end`` the person's
statements of the turn that ended (the user entries the extension names: ``users``; see
:mod:`waymarks.service.capture_turns`: an earlier turn, one made while learning was off
above all, is never taken) are kept by the cue rules of
:mod:`waymarks.core.evolution.cues` (``message`` entries with role ``user`` only:
assistant, tool-result and custom messages never become a statement); on
``session_compact``, in a project the person trusts (Pi's decision, else ``waymarks
trust``), the compaction entries' summaries are kept (a summary source with up to 16 local
claims; an untrusted repository's summary is not: :func:`~waymarks.service.capture_turns.
capture_trusted`). Sources are keyed by Pi's entry IDs, so a turn captured twice is one
source; 16 statements at most.

A capture that throws while storing (a busy database, a full disk) is not lost: a
capture request naming Pi's session file is queued (:mod:`waymarks.service.capture_spool`)
and retried at the next turn, the recovery tick or ``waymarks evolve`` (item 11).

Skipped: learning off (the home's ``[evolution] learn``; a project may turn it off), a
subagent process (``PI_SUBAGENT_AGENT_ID`` non-empty), a session that is not persistent.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Final

from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.log import SessionLog
from waymarks.service.capture_probe import unknown
from waymarks.service.capture_spool import CAPTURE_BUSY_MS, drain, queued_turn, write_request
from waymarks.service.capture_turns import capture_trusted, session_items
from waymarks.service.learning import learning_enabled
from waymarks.service.outcomes import LedgerDamaged

EVENTS: Final = ("agent_end", "session_compact")


class PiCapture:
    """One bridge's capture; keeps its evolution state open between turns."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._evolution: Any = None
        #: the cue rules' verdict per session and Pi entry ID (entries never change)
        self._judged: dict[str, dict[str, bool]] = {}

    def close(self) -> None:
        if self._evolution is not None:
            self._evolution.close()
            self._evolution = None

    def _evo(self) -> Any:
        if self._evolution is None:
            from waymarks.service.evolution import Evolution

            self._evolution = Evolution(self.home, busy_timeout_ms=CAPTURE_BUSY_MS)
        return self._evolution

    def capture(self, event: str, session: SessionLog | None, cwd: str,
                turn: list[str] | None = None, host_trust: bool | None = None
                ) -> dict[str, Any]:
        """Capture what ``event`` calls for; a content-free summary of what it did.
        ``turn``: the user entries of the turn that ended (``None``: the session's last
        user message). ``host_trust``: Pi's decision on the project (the bridge's trust
        override; ``None``: Waymarks' trust list decides)."""
        if event not in EVENTS:
            return {"captured": 0, "skipped": "unknown_event"}
        if os.environ.get("PI_SUBAGENT_AGENT_ID"):
            return {"captured": 0, "skipped": "subagent"}
        if session is None:
            return {"captured": 0, "skipped": "no_session"}
        origin = canonical_project_path(cwd)
        if not learning_enabled(self.home, origin):
            return {"captured": 0, "skipped": "learning_off"}
        retried = self._retry()
        judged = self._judged.setdefault(session.session_id, {})
        if len(judged) > 100_000:  # bounded: a very long session starts over
            judged.clear()
        trusted = event == "session_compact" and capture_trusted(self.home, origin,
                                                                 host_trust)
        items = unknown(self.home, origin, session.session_id,
                        session_items(session, event, judged, turn, trusted=trusted))
        if not items:
            return {"captured": 0, **retried}
        try:
            done = self._evo().capture_many(origin, session.session_id, items)
        except (sqlite3.Error, OSError, LedgerDamaged):  # a damaged ledger: kept until moved
            self.close()  # a connection that failed is not reused
            # the retry takes these entries (and those of a request it replaces) only
            keys = dict.fromkeys(queued_turn(self.home, session.session_id, event)
                                 + [key for _, key, _ in items])
            queued = write_request(self.home, "pi", event, session.session_id,
                                   str(session.path), cwd, turn=" ".join(keys),
                                   trusted=host_trust)
            return {"captured": 0, "queued": queued, **retried}
        return {"captured": sum(1 for c in done if c is not None and c.new), **retried}

    def _retry(self) -> dict[str, int]:
        """Captures queued by earlier turns (of any session) are retried first."""
        try:
            result = drain(self.home, self._evo())
        except (sqlite3.Error, OSError):
            self.close()
            return {}
        return {"retried": result.captured} if result.done or result.kept else {}


def turn_ended(home: Path, cwd: str, session: SessionLog, turn: object,
               captured: int | None, host_trust: bool | None = None) -> dict[str, Any]:
    """What Pi's ``agent_end`` adds to the capture's count: the turn's tool results as a
    work source (``work``: its decision; ``turn``, the extension's list of them; in a
    project the person trusts only, ``host_trust`` being Pi's decision), and
    ``memory <id> is incorrect.`` as the turn's last user message, feedback on that learned
    claim whether or not learning is on (the person's act; its counts only when there
    was some)."""
    done: dict[str, Any] = {}
    if isinstance(turn, list):
        from waymarks.hosts.work_turns import capture, pi_turn

        items, limited = pi_turn(turn)
        work = capture(home, cwd, session.session_id, items, host="pi",
                       subagent=bool(os.environ.get("PI_SUBAGENT_AGENT_ID")),
                       statements=captured, scan_limited=limited, host_trust=host_trust)
        done["work"] = work.get("decision")
    feedback = _natural_feedback(home, session)
    if any(feedback.values()):
        done.update(feedback)
    return done


def _natural_feedback(home: Path, session: SessionLog) -> dict[str, int]:
    """Feedback the turn's last user message gives. Read from the session's end until a
    user message is found (decoding every entry to keep the last took 1.6 s per turn at
    30 MB, past the call's limit further on)."""
    from waymarks.ledger.entries import recent_messages
    from waymarks.service.evolution_edits import feedback_from_turn

    users = [m for m in recent_messages(
        session, session.offset, session.entry_count + 1, first_bytes=1 << 14,
        enough=lambda found: any(m.role == "user" for m in found)) if m.role == "user"]
    return feedback_from_turn(home, [(f"pi:{session.session_id}:{b.id}", b.text)
                                     for b in users[-1:]])
