"""Durable capture requests, drained off the host's path (EVOLUTION items 10, 11; F20).

Why: capture used to run inside the ``Stop`` hook (read the transcript, classify, lock the
evolution ledger, fold, fsync): hundreds of milliseconds a turn without the helper, and a
capture that threw (``SQLITE_BUSY``, a full disk) was simply lost. Now the hook only
writes a small *capture request* here, durably, and the analysis runs where nobody waits:
the Claude Code helper after it has answered, a detached drainer, the next turn, the
recovery tick, or ``waymarks evolve``.

A request is a reference, never content: which host, which event, which session, where the
host's own durable record is (Claude Code's transcript, Pi's session file) and the project.
Nothing the person said is stored before it is sanitized; the host's file is the source of
truth and capture stays idempotent per entry ID (a turn drained twice is one source).

What must stay true:
- one file per (host, session, event), replaced atomically by the next turn's request, so
  the spool is bounded by the sessions that have not been drained (``MAX_ENTRIES`` at most:
  beyond it a request is refused and logged, never the disk filled);
- a drain that fails (any ``sqlite3.Error`` or ``OSError``) keeps the request, with its
  try count and a fixed error code, for the next turn or tick; after ``MAX_TRIES`` it is
  moved to ``failed/`` and named by ``evolution status`` (never silently dropped); a
  damaged learned ledger (``ledger_damaged``: the home's fault, not the request's) costs
  no try: the request waits until the person moves the ledger aside;
- an entry that is not a regular file (a FIFO, a directory, a link to either) is never
  opened for reading, so it cannot hold a drain and the spool's lock: it is moved to
  ``failed/`` at once and logged (``not_regular``);
- a request that was replaced while it was being drained is kept (the newer turn stands);
- drains are serialized by an exclusive ``flock`` on the spool's lock file, so a waiting
  reader (``waymarks evolve``) sees everything drained before it;
- this module imports only ``os`` at load, and the hook's lean client uses only
  :func:`write_request` and :func:`loads_object`: both go through CPython's C JSON
  functions (``_json``), because importing ``json`` pulls in ``re`` and ``enum``, which
  cost more than the whole capture budget on a loaded machine (measured: ~60 ms of a
  70 ms ``python -c pass``). Any other JSON here is imported where it is used.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the hook path: not typing's
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from waymarks.service.evolution import Evolution

SPOOL = ("evolution", "spool")
FAILED = "failed"
LOCK = ".lock"
#: a request larger than this is not ours (paths and IDs only)
MAX_REQUEST_BYTES = 16 * 1024
#: at most this many requests wait at once
MAX_ENTRIES = 256
#: a request failing this many drains in a row is set aside in ``failed/``
MAX_TRIES = 20
#: drains that wait for a ``Stop``'s turn to reach Claude Code's transcript before
#: capturing what the file holds (the detached drainer tries again a few times itself)
BEHIND_TRIES = 5
#: requests one drain handles (the rest wait for the next)
DRAIN_LIMIT = 32
#: how long a capture waits for a busy database before it is queued for retry
CAPTURE_BUSY_MS = 2000
HOSTS = ("claude-code", "pi")
#: the fixed codes a failed drain may record
ERROR_CODES = ("sqlite_busy", "sqlite_error", "disk_full", "os_error", "transcript_behind",
               "capture_error", "not_regular", "ledger_damaged")


class TranscriptBehind(Exception):
    """The transcript does not hold the turn its ``Stop`` reported yet: capture later."""


def spool_dir(home: str | os.PathLike[str]) -> str:
    return os.path.join(home, *SPOOL)


def request_name(host: str, session: str, event: str) -> str:
    """The file of a request: one per host, session and event (a later turn replaces it)."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in session)[:80]
    return f"{host}-{safe}-{event}.json"


def write_request(home: str | os.PathLike[str], host: str, event: str, session: str,
                  record: str, project: str, turn: str | None = None,
                  trusted: bool | None = None) -> bool:
    """Queue one capture request durably (written, fsync'd, renamed into place, mode
    0600). ``record``: the host's own file (Claude Code's transcript, Pi's session file).
    ``turn``: the entry IDs (space-separated) a Pi capture may take (its turn's; see
    :mod:`waymarks.service.capture_turns`). ``trusted``: the host's decision on the
    project the failed attempt went by (Pi's; ``None``: Waymarks' trust list decides,
    then as now), so the retry decides the same way. False when it was not queued (the
    spool is full, or the disk refused)."""
    directory = spool_dir(home)
    name = request_name(host, session, event)
    request: dict[str, object] = {"v": 1, "host": host, "event": event, "session": session,
                                  "record": record, "project": project, "tries": 0,
                                  "error": None}
    if turn is not None:
        request["turn"] = turn
    if trusted is not None:
        request["trusted"] = trusted
    body = dumps_request(request)
    if len(body) > MAX_REQUEST_BYTES:
        return False
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        target = os.path.join(directory, name)
        if not os.path.exists(target) and sum(
                1 for n in os.listdir(directory) if n.endswith(".json")) >= MAX_ENTRIES:
            return False  # full
        from waymarks.files.atomic import write_atomic  # imports no more than os

        write_atomic(target, body, mode=0o600)
        return True
    except OSError:
        return False


def queue_failed(home: Path, host: str, event: str, session: str, record: str,
                 project: str, exc: BaseException) -> bool:
    """A capture on a hook's path failed: the log says why (:func:`failure_code`), and it
    is queued for the next drain (:func:`write_request`: False when it could not be)."""
    _log(home, host, failure_code(exc, home))
    return write_request(home, host, event, session, record, project)


def dumps_request(request: dict[str, object]) -> bytes:
    """A flat object (str/int/bool/None values) as JSON, through the C encoder."""
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:  # not CPython
        import json

        return json.dumps(request).encode("utf-8")
    parts = []
    for key, value in request.items():
        if value is None or isinstance(value, bool):
            text = "null" if value is None else "true" if value else "false"
        elif not isinstance(value, str | int):
            raise TypeError("a capture request holds only text, integers, booleans and null")
        else:
            text = quote(value) if isinstance(value, str) else str(int(value))
        parts.append(f"{quote(key)}: {text}")
    return ("{" + ", ".join(parts) + "}").encode("ascii")


class _Context:
    """What CPython's C scanner reads from a decoder (``json.JSONDecoder``'s defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        raise ValueError("NaN and Infinity are not JSON")


def loads_object(raw: bytes) -> dict[str, object] | None:
    """A JSON object from ``raw`` (None: not UTF-8, not JSON, not an object), through the
    C scanner; same result as ``json.loads`` for valid input."""
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    try:
        from _json import make_scanner
    except ImportError:  # not CPython
        import json

        try:
            value: object = json.loads(text)
        except (ValueError, RecursionError):
            return None
    else:
        try:
            value, end = make_scanner(_Context)(text, 0)  # type: ignore[arg-type]
        except (StopIteration, ValueError, TypeError, RecursionError, SystemError):
            # SystemError: Python 3.11's scanner reports a string or an object left open
            # through json.decoder, and raises this when that module is not imported (the
            # lean hook process imports no json): '{' made the Stop hook print a traceback
            return None
        if end != len(text):
            return None
    return value if isinstance(value, dict) else None


def pending(home: str | os.PathLike[str]) -> list[str]:
    """Names of the requests waiting, oldest first (no lock; a listing only)."""
    try:
        names = [n for n in os.listdir(spool_dir(home)) if n.endswith(".json")]
    except OSError:
        return []
    directory = spool_dir(home)
    return sorted(names, key=lambda n: (_mtime(os.path.join(directory, n)), n))


def _mtime(path: str) -> float:
    """When ``path`` was last written (0: gone meanwhile)."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def set_aside(home: str | os.PathLike[str]) -> list[str]:
    """Requests that failed ``MAX_TRIES`` drains (for ``evolution status``)."""
    try:
        return sorted(os.listdir(os.path.join(spool_dir(home), FAILED)))
    except OSError:
        return []


class Drained:
    """What one drain did (counts only)."""

    __slots__ = ("captured", "done", "dropped", "errors", "kept", "set_aside")

    def __init__(self) -> None:
        self.captured = 0  # new sources stored
        self.done = 0  # requests handled and removed
        self.kept = 0  # requests that failed and wait for the next drain
        self.set_aside = 0  # requests moved to failed/
        self.dropped = 0  # requests that were not ours (malformed): removed
        #: failures by fixed code (``ERROR_CODES``): what a drain can still say when the
        #: disk refuses even the request's try count and the log line (a full disk)
        self.errors: dict[str, int] = {}

    def to_json(self) -> dict[str, object]:
        return {k: dict(getattr(self, k)) if k == "errors" else getattr(self, k)
                for k in self.__slots__}


def drain(home: Path, evolution: Evolution, *, limit: int = DRAIN_LIMIT) -> Drained:
    """Handle the waiting requests (oldest first, at most ``limit``) under the spool lock,
    capturing with ``evolution`` (its store is closed after a failure, and reopened on
    next use: a connection that failed is not reused). One directory listing when nothing
    waits."""
    result = Drained()
    if not pending(home):
        return result
    import fcntl

    directory = spool_dir(home)
    lock = os.open(os.path.join(directory, LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name in pending(home)[:limit]:
            _one(home, os.path.join(directory, name), evolution, result)
    finally:
        os.close(lock)  # releases the flock
    return result


def _one(home: Path, path: str, evolution: Evolution, result: Drained) -> None:
    raw = _read(path)
    if raw is None:
        if _not_regular(path):  # it would be waited on, or counted as waiting, for ever
            _set_aside(home, path, None)
            result.set_aside += 1
            result.errors["not_regular"] = result.errors.get("not_regular", 0) + 1
            _log(home, "spool", "not_regular", "evolution_capture_set_aside")
        return  # else taken meanwhile
    request = _parse(raw)
    if request is None:
        _remove_if_same(path, raw)
        result.dropped += 1
        return
    import sqlite3

    from waymarks.service.outcomes import LedgerDamaged

    try:
        result.captured += capture_request(home, request, evolution)
    except Exception as exc:  # noqa: BLE001 - one request must never stop the queue
        # anything else is a defect met on this request's content: it escaped the drain,
        # which then never counted a try nor set the request aside, and every drain
        # stopped at it (oldest first) with the requests behind it waiting for ever
        if not isinstance(exc, TranscriptBehind):
            evolution.close()
        code = "transcript_behind" if isinstance(exc, TranscriptBehind) else \
            failure_code(exc, home) if isinstance(exc, sqlite3.Error | OSError
                                                   | LedgerDamaged) else "capture_error"
        result.errors[code] = result.errors.get(code, 0) + 1
        _log(home, str(request.get("host")), code)
        # a damaged learned ledger is the home's, not the request's: no drain can store
        # anything until the person moves it aside, so the wait costs the request no try
        # (20 drains would otherwise set every capture of the time aside)
        tries = int(request.get("tries") or 0) + (code != "ledger_damaged")
        if tries >= MAX_TRIES:
            _set_aside(home, path, raw)
            result.set_aside += 1
            return
        result.kept += 1
        if (request.get("error"), request.get("tries")) == (code, tries):
            return  # already says so (a damaged ledger, drain after drain): no rewrite
        if _same(path, raw):  # a newer request for the session replaced it: it stands
            import contextlib

            from waymarks.files.atomic import write_atomic

            # the disk that failed the capture may refuse this too: the request then stays
            # as it was (queued, this try uncounted), and the drain goes on
            with contextlib.suppress(OSError):
                write_atomic(path, dumps_request({**request, "tries": tries, "error": code}),
                             mode=0o600)
        return
    _remove_if_same(path, raw)
    result.done += 1


def _parse(raw: bytes) -> dict[str, Any] | None:
    if len(raw) > MAX_REQUEST_BYTES:
        return None
    request = loads_object(raw)
    if request is None or request.get("v") != 1 or request.get("host") not in HOSTS:
        return None
    for key in ("event", "session", "record", "project"):
        if not isinstance(request.get(key), str):
            return None
    if not isinstance(request.get("tries"), int) or not isinstance(
            request.get("turn", ""), str) or not isinstance(request.get("trusted", False),
                                                            bool | None):
        return None
    return request


def failure_code(exc: BaseException, home: str | os.PathLike[str]) -> str:
    """The fixed code of a failed capture (or feedback). A full disk rarely says so through
    SQLite: in WAL mode it is usually an ``SQLITE_IOERR`` (``SQLITE_IOERR_SHMSIZE`` when the
    shared memory file cannot grow, measured on a full tmpfs), so an I/O error while the
    home's file system has (almost) no space left is ``disk_full`` too. ``ledger_busy``:
    another process held the learned ledger's lock past the wait."""
    import errno
    import sqlite3

    from waymarks.files.space import nearly_full
    from waymarks.ledger.session_file import SessionBusy
    from waymarks.service.outcomes import LedgerDamaged, ServiceError

    if isinstance(exc, SessionBusy | ServiceError):
        return "ledger_busy" if isinstance(exc, SessionBusy) else "ledger_damaged" if \
            isinstance(exc, LedgerDamaged) else exc.code

    name = str(getattr(exc, "sqlite_errorname", "") or "")
    if isinstance(exc, sqlite3.OperationalError) and name in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return "sqlite_busy"
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return "sqlite_busy"  # (the message is inspected, never stored)
    if isinstance(exc, sqlite3.Error):
        if name == "SQLITE_FULL" or (name.startswith("SQLITE_IOERR") and nearly_full(home)):
            return "disk_full"
        return "sqlite_error"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "disk_full"
    return "os_error"


def _read(path: str) -> bytes | None:
    """The first bytes of the request at ``path`` (``None``: gone, or not a regular file,
    which is never opened blocking: a FIFO would wait for a writer)."""
    from waymarks.files.reading import open_regular

    try:
        with open_regular(path) as handle:
            return handle.read(MAX_REQUEST_BYTES + 1)
    except OSError:
        return None


def _not_regular(path: str) -> bool:
    """Something other than a regular file is at ``path`` (a link is followed)."""
    import stat

    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False
    except OSError:  # a dangling or looping link
        return os.path.lexists(path)


def _same(path: str, raw: bytes) -> bool:
    return _read(path) == raw


def _remove_if_same(path: str, raw: bytes) -> None:
    if _same(path, raw):
        try:  # noqa: SIM105 - contextlib costs the hook's client ~2 ms of imports
            os.unlink(path)
        except FileNotFoundError:
            pass


def _set_aside(home: Path, path: str, raw: bytes | None) -> None:
    """Move the request at ``path`` to ``failed/`` if it is still ``raw`` (``None``: an
    entry that is not a regular file, moved as it is)."""
    failed = os.path.join(spool_dir(home), FAILED)
    os.makedirs(failed, mode=0o700, exist_ok=True)
    if _same(path, raw) if raw is not None else _not_regular(path):
        target = os.path.join(failed, os.path.basename(path))
        if os.path.isdir(target) and not os.path.islink(target):
            target += f".{os.getpid()}.{int(_mtime(path) * 1000)}"  # one set aside before
        os.replace(path, target)


def _log(home: Path, kind: str, code: str, event: str = "evolution_capture_queued") -> None:
    from datetime import UTC, datetime

    from waymarks.service.logs import log_event

    log_event(home, datetime.now(UTC), event, kind=kind, code=code)


# -- what a request captures --------------------------------------------------------------


def capture_request(home: Path, request: dict[str, Any], evo: Evolution) -> int:
    """Capture what ``request`` names; the number of new sources. Raises
    ``sqlite3.Error``/``OSError`` when storing fails (the caller queues it again)."""
    if request["host"] == "claude-code":
        return capture_transcript(home, request["event"], request["session"],
                                  request["record"], request["project"], evo,
                                  patient=int(request.get("tries") or 0) < BEHIND_TRIES)
    turn = request.get("turn")
    return capture_session_file(home, request["event"], request["record"],
                                request["project"], evo,
                                turn=turn.split() if isinstance(turn, str) else None,
                                host_trust=request.get("trusted"))


def capture_transcript(home: Path, event: str, session: str, transcript: str,
                       project: str, evo: Evolution, *, patient: bool = False) -> int:
    """Claude Code (``Stop``, ``PreCompact``): the person's statements of the turn that
    ended (or of the turns since the previous ``Stop``'s capture: :mod:`waymarks.service.
    capture_turns`) and, on ``PreCompact``, compaction summaries, from the transcript's
    last ``TAIL_BYTES``.
    ``patient``: raise :class:`TranscriptBehind` when a ``Stop``'s transcript does not exist
    yet or does not hold its turn (:func:`~waymarks.core.evolution.transcript.turn_written`),
    so the request waits."""
    from waymarks.core.evolution.cues import MAX_STATEMENTS, is_statement
    from waymarks.core.evolution.transcript import (
        TAIL_BYTES,
        new_turn,
        transcript_items,
        turn_end,
        turn_entries,
        written_since,
    )
    from waymarks.ledger.identity import canonical_project_path
    from waymarks.service.capture_turns import (
        MAX_SUMMARIES,
        capture_trusted,
        last_end,
        remember_end,
        still_on_since,
        switched_at_ns,
    )

    ends = end_path(home, session)
    from waymarks.service.learning import learning_enabled

    if not os.path.isabs(project) or not os.path.isdir(project):
        return 0
    origin = canonical_project_path(project)
    if not learning_enabled(home, origin):
        return 0
    if not os.path.isabs(transcript):
        return 0
    if not os.path.isfile(transcript):
        # Claude Code (2.1.197, ``-p``) creates the file after the Stop hook has run: the
        # drainer beat it (CI's kept runs: the file was born 40 ms after the request was
        # dropped here as "nothing to capture")
        if patient and event == "Stop":
            raise TranscriptBehind
        if event == "Stop":  # waited in vain (or a direct capture found none): say so
            _log(home, "claude-code", "transcript_missing", "evolution_capture_dropped")
        return 0
    from waymarks.files.reading import open_regular

    # checked on the open descriptor: a FIFO swapped in after the ``isfile`` check would
    # hold the drain, and the spool's lock, for as long as nobody writes to it
    with open_regular(transcript) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > TAIL_BYTES:
            handle.seek(size - TAIL_BYTES)
            handle.readline()  # a partial first line
        data = handle.read(TAIL_BYTES)
    end = None
    previous = last_end(ends)
    if event == "Stop":
        end = turn_end(data)
        if patient and not new_turn(end, previous):
            raise TranscriptBehind
    statements, summaries = transcript_items(data)
    from waymarks.service.evolution_feedback import stop_feedback

    # the ended turn's prompt as feedback (item 35): the transcript's last statement may be
    # an earlier turn's (this turn's prompt a slash command or bash mode, never listed as
    # the person's words), re-applied under a new receipt after an undo or a later verdict
    # (a Stop's transcript that does not hold its turn yet holds only an earlier turn's)
    ended = turn_entries(data) if event != "Stop" or new_turn(end, previous) else set()
    stop_feedback(home, session, [s for s in statements if s[0] in ended], evo)
    # this turn's (or those since the last capture, learning on all along): an earlier
    # turn was judged at its own Stop, perhaps while learning was off
    turn = turn_entries(data, previous if still_on_since(ends, home, project) else None)
    chosen = [(key, text) for key, text in statements
              if key in turn and is_statement(text)][-MAX_STATEMENTS:]
    items = [("statement", key, text) for key, text in chosen]
    # summaries written since learning was last switched, of a project the person trusts
    if event == "PreCompact" and capture_trusted(home, origin):
        fresh = written_since(data, switched_at_ns(home, project) // 1_000_000)
        items += [("summary", key, text) for key, text in summaries
                  if key in fresh][-MAX_SUMMARIES:]
    stored = _store(home, origin, session.lower(), items, evo)
    if end and end != previous:
        remember_end(ends, end)
    return stored


def end_path(home: str | os.PathLike[str], session: str) -> str:
    """Where the session's last captured ``Stop`` turn end is kept (``ends/``)."""
    from waymarks.service.capture_turns import ENDS

    name = request_name("claude-code", session, "end").removesuffix(".json")
    return os.path.join(spool_dir(home), ENDS, name)


def queued_turn(home: str | os.PathLike[str], session: str, event: str) -> list[str]:
    """The entry IDs a Pi capture request already queued for ``session`` and ``event``
    names (a new request replaces it: its turn comes along, never lost)."""
    raw = _read(os.path.join(spool_dir(home), request_name("pi", session, event)))
    request = _parse(raw) if raw is not None else None
    turn = request.get("turn") if request is not None else None
    return turn.split() if isinstance(turn, str) else []


def capture_session_file(home: Path, event: str, path: str, project: str,
                         evo: Evolution, *, turn: list[str] | None = None,
                         host_trust: bool | None = None) -> int:
    """A Pi capture retried from Pi's own session file: ``turn``'s statements only (the
    entries the failed capture was to take); a summary as the failed capture judged the
    project (``host_trust``: Pi's decision it went by, first)."""
    from pathlib import Path as _Path

    from waymarks.ledger.identity import canonical_project_path
    from waymarks.ledger.session_file import SessionFile
    from waymarks.service.learning import learning_enabled

    origin = canonical_project_path(project)
    if not learning_enabled(home, origin) or not os.path.isfile(path):
        return 0
    from waymarks.ledger.log import SessionFileError

    try:
        session = SessionFile.open(_Path(path))
    except SessionFileError:
        return 0  # not a Pi session file (any more): nothing of it can be captured
    from waymarks.service.capture_turns import capture_trusted, session_items
    from waymarks.service.trust_held import held_decision

    host_trust = held_decision(home, origin, host_trust)  # not re-armed after an untrust
    return _store(home, origin, session.session_id, session_items(
        session, event, turn=turn, trusted=capture_trusted(home, origin, host_trust)), evo)


def _store(home: Path, origin: str, session: str, items: list[tuple[str, str, str]],
           evo: Evolution) -> int:
    from waymarks.service.capture_probe import unknown

    items = unknown(home, origin, session, items)
    if not items:
        return 0
    done = evo.capture_many(origin, session, items)
    return sum(1 for c in done if c is not None and c.new)
