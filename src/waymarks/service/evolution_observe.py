"""Capture a work turn as a ``progress`` source (EVOLUTION items 37-46): the I/O around the
pure core of :mod:`waymarks.core.evolution.observations` and :mod:`.nominate`.

A host hands over the turn (:class:`~waymarks.core.evolution.observations.TurnItem`\\ s:
the person's request, tool calls, their linked results, the final reply). Capture never
calls a model. It:

1. runs the gate and the bounds (pure), finding checkout roots through ``.git`` for the
   resource hints (the only file-system reads);
2. under the evolution ledger's lock, nominates the project-state claims of the same
   origin the turn may update; **no target, no source** (and so no model call);
3. appends one source (kind ``progress``, basis ``tool_observation``) whose text is the
   redacted document with the nominated IDs; keyed by the host's turn key, so a turn
   captured twice is one source;
4. writes the decision (counts, codes, target IDs and scores: never a body) to
   ``<home>/evolution/last-capture.json`` for ``waymarks evolution learning``: the
   request's *intent* (:func:`waymarks.core.evolution.cues.intent`: explicit or natural
   statement, question, one-off, no cue…), the statements the turn gave, why there is no
   work source (no request, no observation, only inspection, an unfinished reply, no
   target), the scan counts, the completion and the targets with their reasons. A turn
   with no tool call at all is noted too (:func:`note_turn`), so the snapshot is always
   the last turn's.

One qualified work source is one model call at most; a turn that also held a statement
gives a separate statement source (captured by the statement path before this one), and
the queue runs them one after the other, each with its own authority.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from waymarks.core.evolution.model import SCHEMA_VERSION, SourceRecord, source_id
from waymarks.core.evolution.nominate import nominate
from waymarks.core.evolution.observations import Scan, TurnItem, document, observe
from waymarks.core.evolution.progress import PROGRESS_BASIS, PROGRESS_KIND
from waymarks.files.atomic import NotARegularFile, write_atomic
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_notes import last_capture_path, read_note
from waymarks.service.ports import iso

MAX_ROOT_DEPTH: Final = 64


def checkout_root(path: str) -> str | None:
    """The nearest directory at or above ``path`` holding ``.git`` (a directory or a
    worktree's file), or ``None``."""
    current = Path(path)
    for _ in range(MAX_ROOT_DEPTH):
        if (current / ".git").exists():
            return str(current)
        if current.parent == current:
            return None
        current = current.parent
    return None


def _home_relative(state: Path) -> tuple[str, ...]:
    """The ``~``-relative spelling of the state directory (``~/.waymarks``), when it is
    under the user's home: a command may name it that way."""
    try:
        user_home = Path.home()
    except (RuntimeError, KeyError):  # no home directory can be determined
        return ()
    for base, state_dir in ((user_home, state), (user_home.resolve(), state.resolve())):
        try:
            relative = state_dir.relative_to(base)
        except ValueError:
            continue
        return (f"~/{relative.as_posix()}",) if relative.parts else ("~",)
    return ()


def capture_work(evo: Evolution, origin: str, session: str, key: str,
                 items: Sequence[TurnItem], *, cwd: str | None, host: str,
                 statements: int | None = None, scan_limited: bool = False
                 ) -> dict[str, Any]:
    """Capture the work turn ``items`` end with; returns the decision (no bodies), which is
    also written as the home's last capture decision. ``statements``: how many statement
    sources the same turn gave (the host's statement capture), for the snapshot."""
    from waymarks.service.config import unmarked_level
    from waymarks.service.evolution_attempt import home_route_keys

    # a route's own key in the turn (pasted in the request, a command, its output): no
    # rule knows its shape, and the statement path redacts it; kept here, it stayed in
    # the append-only ledger in clear
    items = _without_keys(items, home_route_keys(evo.home))
    turn, scan = observe(items, cwd=cwd, state_dir=str(evo.home), root_of=checkout_root,
                         state_aliases=_home_relative(evo.home), scan_limited=scan_limited)
    decision = _decision(host, iso(evo.clock.now()), scan, statements)
    # unmarked text is at the level the person's policy gives it, as a statement's is
    # (``Evolution.capture_many``): at ``local-only`` (or a policy that cannot be read)
    # nothing of the turn is kept
    default = unmarked_level(evo.home, origin) if turn is not None else "local-only"
    if turn is not None and default == "local-only":
        decision["decision"] = "local_only"
    elif turn is not None:
        sid = source_id(origin, PROGRESS_KIND, session, key)
        decision["resources"] = len(turn.resources)
        with evo.ledger.locked():
            evo._locked_sync()
            if evo.store.view.source(sid) is not None:
                decision.update(decision="duplicate", sourceId=sid)
            else:
                claims = evo.store.claims(states=["provisional"], origin=origin)
                nominees = nominate(claims, origin, turn.request, turn.resources)
                decision["targets"] = [{"id": n.claim_id, "score": n.score,
                                        "reasons": list(n.reasons)} for n in nominees]
                if not nominees:
                    decision["decision"] = "no_target"
                else:
                    text, level, dropped = document(turn, [n.claim_id for n in nominees],
                                                    scan, default)
                    evo._append([SourceRecord(SCHEMA_VERSION, sid, origin, PROGRESS_KIND,
                                              PROGRESS_BASIS, text, level,
                                              iso(evo.clock.now()), session)])
                    decision.update(decision="captured", sourceId=sid,
                                    bytes=len(text.encode("utf-8")), droppedForBytes=dropped)
    _note(evo.home, decision)
    return decision


def _without_keys(items: Sequence[TurnItem], keys: frozenset[str]) -> Sequence[TurnItem]:
    """``items`` with each of ``keys`` replaced as capture replaces it
    (:func:`~waymarks.core.evolution.capture.without_values`), in every text and in a
    call's arguments at any depth."""
    from waymarks.core.evolution.capture import without_values
    from waymarks.core.evolution.observations import ToolCall
    from waymarks.core.records import replace

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return without_values(value, keys)
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        return value

    if not keys:
        return items
    return [replace(item, args=clean(item.args)) if isinstance(item, ToolCall)
            else replace(item, text=without_values(item.text, keys)) for item in items]


def note_turn(home: Path, items: Sequence[TurnItem], *, at: str, host: str,
              statements: int | None = None, scan_limited: bool = False,
              untrusted: bool = False, withheld: bool = False) -> dict[str, Any]:
    """The decision for a turn with no tool call (a statement, a question), written as the
    home's last capture decision like any other: the snapshot then says what this turn
    was (its intent, the statements captured), not what an older work turn was. Opens
    nothing but the decision file; the gate is the pure one (it finds no observation).
    ``untrusted``: a turn of a project the person does not trust, whose tool output is
    never captured (the decision ``untrusted`` where it would have been a work source);
    ``withheld``: the host kept none of the turn's tool calls, the project untrusted when
    they ran (``untrusted`` too: nothing is left to tell a work turn by)."""
    _turn, scan = observe(items, cwd=None, state_dir=str(home), scan_limited=scan_limited)
    decision = _decision(host, at, scan, statements)
    if untrusted and (scan.reason == "captured" or withheld):  # a work source it would be
        decision["decision"] = "untrusted"
    _note(home, decision)
    return decision


def _decision(host: str, at: str, scan: Scan, statements: int | None) -> dict[str, Any]:
    """A decision's fields (codes and counts; the targets and source come later)."""
    return {"host": host, "at": at, "scan": scan.to_json(), "targets": [], "sourceId": None,
            "decision": scan.reason, "intent": scan.intent,
            "statementsCaptured": statements}


def _note(home: Path, decision: dict[str, Any]) -> None:
    path = last_capture_path(home)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # something not a regular file in its place is never replaced, and ``evolution
    # status`` names it (before, the turn's capture failed, and was tried again, every turn)
    with contextlib.suppress(NotARegularFile):
        write_atomic(path, json.dumps(decision, ensure_ascii=False, indent=1).encode(
            "utf-8"), mode=0o600)


def last_capture(home: Path) -> dict[str, Any] | None:
    """The last capture decision (``None``: none yet, or unreadable: a FIFO in its place
    is never waited on, ``evolution status`` names it)."""
    try:
        data = read_note(last_capture_path(home))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def outcomes(home: Path) -> dict[str, Any]:
    """Processed versus changed (EVOLUTION item 46): a settled source is *processed*; it
    *changed* memory only when it wrote a claim as provisional (or refreshed a state),
    counted from that creation event, whatever became of the claim since. "Done" is not
    "learned". Counts only, by source kind; nothing is created when nothing was learned
    yet."""
    from waymarks.service.learning import has_ledger

    empty: dict[str, Any] = {"processed": 0, "changed": 0, "unchanged": 0, "byKind": {}}
    if not has_ledger(home):
        return empty
    import sqlite3

    try:
        with Evolution(home) as evo:
            evo.sync()
            writers = evo.store.changing_sources()
            sources = [s for s in evo.store.sources() if s.settled is not None]
    except sqlite3.OperationalError:  # busy or locked by another process: counts only
        return {**empty, "unavailable": "database_busy"}
    by_kind: dict[str, dict[str, int]] = {}
    for source in sources:
        slot = by_kind.setdefault(source.kind, {"processed": 0, "changed": 0})
        slot["processed"] += 1
        slot["changed"] += source.source_id in writers
    changed = sum(v["changed"] for v in by_kind.values())
    return {"processed": len(sources), "changed": changed,
            "unchanged": len(sources) - changed, "byKind": by_kind,
            # never sent: their project no longer trusted (evolution_untrust)
            "untrusted": sum(s.settled == "untrusted" for s in sources)}
