"""Team memory, the claims held back (:func:`waymarks.core.team.held_back`: an active
claim that contradicts an earlier one by a local write's rules) kept in the home between
processes. The check signs every active team claim: 2 s CPU of every plan at 20k of
them, in a fresh process each time (each prompt's hook), though its answer changes only
with the entries.

Derived and local, never canonical: one file per project beside the anchors
(``<project-hash>.held.json``), holding the answer with the digest of what it is for:
the fold's entries in fold order, whole (a derived removal has no line hash), and the
code that judged them (the signature's modules and the rules'). Other entries or other
code, a file that cannot be read or names an item the fold does not hold as active, and
the check runs again and the file is rewritten (atomically; one that cannot be written
is as none). A wrong digest can only cost the check, never an answer for other entries."""

from __future__ import annotations

import contextlib
import json
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.core import replay, rules
from waymarks.core import team as core_team
from waymarks.core.digests import blake2b
from waymarks.core.team import Conflict, TeamFold, held_back
from waymarks.files.atomic import write_atomic
from waymarks.service.team_anchors import anchors_path
from waymarks.store import claim_subjects
from waymarks.store.code_digest import sources_digest

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

#: the code an answer was worked out by, beside the signature's (taken at import)
_CODE: Final = sources_digest(rules, core_team, replay)


class TeamChecks(msgspec.Struct, frozen=True):
    """What a plan weighs the team items by that signing every claim tells: the
    conflicts held back, and the subject terms of each active claim's signature (by its
    text; ``None``: it has none), which the person's claims are looked up by."""

    held: list[Conflict]
    subjects: dict[str, list[str] | None]


#: the checks of each fold as it was when they were found (its state's version): a warm
#: process's plans hashed every folded entry for the kept file's digest and read it
#: again, 60 ms of every plan at 20k team claims, the fold unchanged
_FOUND: weakref.WeakKeyDictionary[TeamFold, tuple[tuple[Any, ...], TeamChecks]] = (
    weakref.WeakKeyDictionary())


def team_checks(app: Waymarks, fold: TeamFold) -> TeamChecks:
    """:func:`held_back` of ``fold`` and the claims' subjects, as this process found them
    for the fold as it is, or an earlier process kept them for the same entries and code,
    or worked out and kept."""
    version = core_team.held_version(fold)
    found = _FOUND.get(fold)
    if found is not None and found[0] == version:
        return found[1]
    checks = _checks(app, fold)
    _FOUND[fold] = (version, checks)
    return checks


def _checks(app: Waymarks, fold: TeamFold) -> TeamChecks:
    path = anchors_path(app).with_name(anchors_path(app).name.replace(
        ".anchors.jsonl", ".held.json"))
    digest = blake2b(b"".join([(claim_subjects.fingerprint() + _CODE).encode(), *(
        msgspec.json.encode(entry) for entry in fold.applied_entries())])).hexdigest()
    kept = _kept(path, digest, fold)
    if kept is not None:
        return TeamChecks(held_back(fold, kept.held), kept.subjects)
    from waymarks.core.contradiction import signature

    found = TeamChecks(held_back(fold), {})
    for state in fold.states():
        if state.kind == "memory" and state.status == "active":
            signed = signature(state.text)
            found.subjects[state.text] = None if signed is None else sorted(signed.subject)
    rows = [[c.loser.id, [w.id for w in c.winners]] for c in found.held]
    with contextlib.suppress(OSError):  # (one that cannot be kept: worked out again)
        write_atomic(path, json.dumps({"fold": digest, "held": rows,
                                       "subjects": found.subjects}), mode=0o600)
    return found


def held_back_here(app: Waymarks, fold: TeamFold) -> list[Conflict]:
    """:func:`held_back` of ``fold`` (:func:`team_checks`)."""
    if core_team.held_known(fold):  # (a warm process: no digest)
        return held_back(fold)
    return team_checks(app, fold).held


def _kept(path: Path, digest: str, fold: TeamFold) -> TeamChecks | None:
    """The checks kept at ``path`` for ``digest``, each item held back still active in
    ``fold``; ``None`` when there is no such answer."""
    try:
        data: Any = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fold") != digest or not isinstance(
            data.get("held"), list) or not isinstance(data.get("subjects"), dict):
        return None
    found = []
    for row in data["held"]:
        states = [fold.view.get(i) for i in (row[0], *row[1])] if isinstance(
            row, list) and len(row) == 2 and isinstance(row[0], str) and isinstance(
            row[1], list) and row[1] and all(isinstance(i, str) for i in row[1]) else [None]
        if any(s is None or s.status != "active" for s in states):
            return None
        found.append(Conflict(states[0], tuple(states[1:])))  # type: ignore[arg-type]
    subjects = data["subjects"]
    if not all(terms is None or (isinstance(terms, list) and all(
            isinstance(t, str) for t in terms)) for terms in subjects.values()):
        return None
    return TeamChecks(found, subjects)
