"""Which of a host's entries a capture may take: the turn that just ended, never an earlier
one (EVOLUTION item 10).

Why: capture used to take the last 16 statements of the whole session (Pi) or transcript
tail (Claude Code) at every turn's end, so a statement made while learning was off, or
before it was ever turned on, was captured, and sent to the learning model, at the first
turn after ``waymarks learn on``: learning off did not stop capture. Each turn is judged at
its own end, under the switch in force then:

- Pi: the extension names the user entries that turn added (``users``: those it had not
  seen at an earlier ``agent_end`` or at session start, whatever learning said then); a
  caller that names none gets the session's last user message only. A capture that must be
  retried carries those IDs in its spool request (``turn``), so the retry takes no other.
- Claude Code: the transcript's last turn (:func:`~waymarks.core.evolution.transcript.
  turn_entries`), or the turns since the end the session's previous ``Stop`` captured,
  while that end is newer than every configuration file that could have turned learning
  off and on again since (the home's and the project's ``config.toml``): a ``Stop`` whose
  request was replaced by the next turn's before it was drained is not lost.

This module imports only ``os`` at load (it runs in the spool's drain, off the hook's path,
but the spool's own module promises as much).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

#: where the turn end each session's last ``Stop`` capture found is kept (in the spool)
ENDS = "ends"
#: a turn end (a transcript entry's ID) longer than this is not kept
MAX_END_BYTES = 256
#: the sessions whose last captured turn end is remembered: past it, the oldest half is
#: forgotten (a forgotten session's next ``Stop`` takes its last turn only)
MAX_ENDS = 512
#: compaction summaries captured per request, newest last
MAX_SUMMARIES = 2
#: the user entries one Pi turn may name (a longer list is not the extension's)
MAX_TURN_ENTRIES = 64
MAX_ENTRY_ID = 128


def turn_ids(value: object) -> list[str] | None:
    """The entry IDs a Pi ``learn`` request names for its turn (``None``: none named, or
    not a list of short strings: the caller's fallback applies)."""
    if not isinstance(value, list) or len(value) > MAX_TURN_ENTRIES or not all(
            isinstance(v, str) and 0 < len(v) <= MAX_ENTRY_ID and v.split() == [v]
            for v in value):  # no space in one: a queued request lists them by spaces
        return None
    return list(value)


def session_items(session: Any, event: str, judged: dict[str, bool] | None = None,
                  turn: list[str] | None = None, *, trusted: bool = False
                  ) -> list[tuple[str, str, str]]:
    """Pi (``agent_end``, ``session_compact``): the person's statements among ``turn``'s
    user entries (``message`` entries with role ``user`` only; ``None``: the session's
    last user message) and, on ``session_compact`` in a ``trusted`` project, compaction
    summaries (its statements were judged at their own ``agent_end``; an untrusted
    project's summary is not the person's: :func:`capture_trusted`), as (kind, entry
    ID, text). ``judged``: a long-lived caller's memo of the cue rules' verdict per entry
    ID (an entry never changes)."""
    from waymarks.core.evolution.cues import MAX_STATEMENTS, is_statement
    from waymarks.ledger.entries import Compaction, Message, bodies

    users: list[Message] = []
    summaries: list[tuple[str, str, str]] = []
    for body in bodies(session, ("message", "compaction")):
        if isinstance(body, Message) and body.role == "user":
            users.append(body)
        elif isinstance(body, Compaction) and body.summary and body.summary.strip():
            summaries.append(("summary", body.id, body.summary))
    if event == "session_compact":  # the compaction this event added: an earlier one's
        # summary was judged at its own, perhaps while learning was off
        return summaries[-1:] if trusted else []
    wanted = set(turn) if turn is not None else {u.id for u in users[-1:]}
    memo = judged if judged is not None else {}
    statements = []
    for body in users:
        if body.id not in wanted:
            continue
        verdict = memo.get(body.id)
        if verdict is None:
            verdict = memo[body.id] = is_statement(body.text)
        if verdict:
            statements.append(("statement", body.id, body.text))
    return statements[-MAX_STATEMENTS:]


def capture_trusted(home: Path | str, origin: str, host: bool | None = None) -> bool:
    """Whether what the model wrote or the tools showed in a session in ``origin`` (a
    compaction summary, a work turn's tool calls and output) may be captured: only in a
    project the person trusts (``waymarks trust``). Such text is the repository's, not the
    person's, and learned memory is recalled in every project: an untrusted repository's
    would plant its words everywhere. ``host``: the host's own decision (Pi's, the bridge's
    trust override), which comes first; a trust list that cannot be read trusts nothing
    (it may only tighten)."""
    from pathlib import Path as _Path

    if host is not None:
        if host:  # kept: the model step holds the text to the decision it was taken under
            from waymarks.service.trust_held import record_host_trust

            record_host_trust(_Path(home), origin)
        return host

    from waymarks.service.outcomes import ServiceError
    from waymarks.service.trust import TrustStore

    try:
        return origin in TrustStore(_Path(home)).projects()
    except ServiceError:
        return False


def last_end(path: str) -> str | None:
    """The turn end kept at ``path`` (the session's previous ``Stop`` capture found it;
    ``None``: none kept)."""
    from waymarks.files.reading import read_regular

    try:  # never waits on a FIFO put there, holding the spool's lock
        raw = read_regular(path, limit=MAX_END_BYTES)
        return raw.decode("utf-8") if raw else None
    except (OSError, UnicodeDecodeError):
        return None


def still_on_since(path: str, home: Path | str, project: str) -> bool:
    """Whether the turn end kept at ``path`` is newer than the home's and ``project``'s
    configuration: else learning may have been off meanwhile (``learn off`` and ``learn
    on`` write it), and the turns since that end are not all a capture's to take."""
    try:
        kept = os.stat(path).st_mtime_ns
    except OSError:
        return False
    return switched_at_ns(home, project) < kept


def switched_at_ns(home: Path | str, project: str) -> int:
    """When the home's or ``project``'s configuration last changed (epoch ns; 0: neither
    exists): learning may have been off before then (``learn off`` / ``on`` write it)."""
    latest = 0
    for config in (os.path.join(home, "config.toml"),
                   os.path.join(project, ".waymarks", "config.toml")):
        try:
            latest = max(latest, os.stat(config).st_mtime_ns)
        except OSError:
            continue  # none: nothing turned learning off there
    return latest


def remember_end(path: str, end: str) -> None:
    """Keep the turn end this ``Stop`` capture found at ``path``, for the session's next
    one. Best effort: without it the next ``Stop`` takes its own turn only."""
    if len(end.encode("utf-8")) > MAX_END_BYTES:
        return
    from waymarks.files.atomic import write_atomic

    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if not os.path.exists(path):
            _forget_old_ends(directory)
        write_atomic(path, end, mode=0o600)
    except OSError:
        pass


def _forget_old_ends(directory: str) -> None:
    names = os.listdir(directory)
    if len(names) < MAX_ENDS:
        return

    def written(name: str) -> float:
        try:
            return os.stat(os.path.join(directory, name)).st_mtime
        except OSError:
            return 0.0

    for name in sorted(names, key=written)[:len(names) - MAX_ENDS // 2]:
        try:  # noqa: SIM105 - as the spool's own removals
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass
