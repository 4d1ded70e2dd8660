"""Learning capture inside Pi (``agent_end``, ``session_compact``), over the bridge.

The bridge already holds Pi's session entries (fed with every request), so capture reads
them there: no session files scanned, no model call. On ``agent_end`` the person's
statements (``message`` entries with role ``user`` only: assistant, tool-result and
custom messages never become a statement) are kept by the cue rules of
:mod:`waymarks.core.evolution.cues`; on ``session_compact`` the compaction entries'
summaries are kept too (a summary source with up to 16 local claims). Sources are keyed by
Pi's entry IDs, so a turn captured twice is one source; the last 16 statements at most.

Skipped: learning off (the home's ``[evolution] learn``; a project may turn it off), a
subagent process (``PI_SUBAGENT_AGENT_ID`` non-empty), a session that is not persistent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from waymarks.core.evolution.cues import MAX_STATEMENTS, is_statement
from waymarks.ledger.entries import Compaction, Message, bodies
from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.log import SessionLog
from waymarks.service.capture_probe import unknown
from waymarks.service.learning import learning_enabled

EVENTS: Final = ("agent_end", "session_compact")
MAX_SUMMARIES: Final = 2


class PiCapture:
    """One bridge's capture; keeps its evolution state open between turns."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._evolution: Any = None

    def close(self) -> None:
        if self._evolution is not None:
            self._evolution.close()
            self._evolution = None

    def capture(self, event: str, session: SessionLog | None, cwd: str) -> dict[str, Any]:
        """Capture what ``event`` calls for; a content-free summary of what it did."""
        if event not in EVENTS:
            return {"captured": 0, "skipped": "unknown_event"}
        if os.environ.get("PI_SUBAGENT_AGENT_ID"):
            return {"captured": 0, "skipped": "subagent"}
        if session is None:
            return {"captured": 0, "skipped": "no_session"}
        origin = canonical_project_path(cwd)
        if not learning_enabled(self.home, origin):
            return {"captured": 0, "skipped": "learning_off"}
        statements: list[tuple[str, str, str]] = []
        summaries: list[tuple[str, str, str]] = []
        for body in bodies(session, ("message", "compaction")):
            if isinstance(body, Message) and body.role == "user" and is_statement(body.text):
                statements.append(("statement", body.id, body.text))
            elif isinstance(body, Compaction) and body.summary and body.summary.strip():
                summaries.append(("summary", body.id, body.summary))
        items = statements[-MAX_STATEMENTS:]
        if event == "session_compact":
            items += summaries[-MAX_SUMMARIES:]
        items = unknown(self.home, origin, session.session_id, items)
        if not items:
            return {"captured": 0}
        if self._evolution is None:
            from waymarks.service.evolution import Evolution

            self._evolution = Evolution(self.home)
        done = self._evolution.capture_many(origin, session.session_id, items)
        return {"captured": sum(1 for c in done if c is not None and c.new)}
