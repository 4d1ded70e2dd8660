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
is as none). A wrong digest can only cost the check, never an answer for other entries.
For other entries and the same code, the claims each was found to contradict, kept
beside (``<project-hash>.held-hits.json``, by the claim's fingerprint), are reused
where no claim new, changed or gone may bear on them (:func:`_hits`): a pull checks
what it brought, not every claim again."""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.core import (
    claim_descriptions,
    claim_done,
    claim_masked,
    claim_negations,
    claim_slots,
    replay,
    rules,
)
from waymarks.core import team as core_team
from waymarks.core.bulk import gc_paused
from waymarks.core.claim_negations import kept_words, opposite_norms
from waymarks.core.contradiction import parts, whole
from waymarks.core.rules import ItemState
from waymarks.core.team import Conflict, TeamFold, held_back
from waymarks.service.team_anchors import anchors_path
from waymarks.service.team_held_live import Digest, Live, fingerprint, signed
from waymarks.store import claim_subjects
from waymarks.store.code_digest import sources_digest

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

#: the code an answer was worked out by, beside the signature's (a test holds it, with
#: :data:`~waymarks.store.claim_subjects.SIGNATURE_CODE`, to every ``core.claim_*``
#: module the team's check loads)
HELD_CODE: Final = (claim_descriptions, claim_done, claim_masked, claim_negations, claim_slots,
                    core_team, replay, rules)
#: taken at import, with the code it stands for
_CODE: Final = sources_digest(*HELD_CODE)


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
    for the fold as it is, or brought up to date from what it found before
    (:mod:`~waymarks.service.team_held_live`: what the fold changed since), or an earlier
    process kept them for the same entries and code, or worked out and kept."""
    version = core_team.held_version(fold)
    found = _FOUND.get(fold)
    if found is not None and found[0] == version:
        return found[1]
    checks = _advanced(app, fold)
    if checks is None:
        checks = _checks(app, fold)
    _FOUND[fold] = (version, checks)
    return checks


#: what this process found of each fold, kept up to date from its changes
_LIVE: weakref.WeakKeyDictionary[TeamFold, Live] = weakref.WeakKeyDictionary()


def _paths(app: Waymarks) -> tuple[Path, Path]:
    """The kept answer's file and the kept hits' file of ``app``'s project."""
    path = anchors_path(app).with_name(anchors_path(app).name.replace(
        ".anchors.jsonl", ".held.json"))
    return path, path.with_name(path.name.replace(".held.json", ".held-hits.json"))


def _advanced(app: Waymarks, fold: TeamFold) -> TeamChecks | None:
    """The checks of ``fold`` from those this process found for it before, brought up to
    date and kept (``None``: none found here, or so much changed a whole check runs)."""
    live = _LIVE.get(fold)
    if live is None or live.code != claim_subjects.fingerprint() + _CODE or (
            live.paths != _paths(app)):
        return None
    with gc_paused():  # (what it allocates is no cycle: no collection over the fold)
        advanced = live.advance(fold)
        if advanced is None:
            del _LIVE[fold]
            return None
        held, subjects = advanced
        live.keep(fold, _rows(held))
        return TeamChecks(held, dict(subjects))


def _rows(held: list[Conflict]) -> list[list[Any]]:
    return [[c.loser.id, [w.id for w in c.winners]] for c in held]


def _checks(app: Waymarks, fold: TeamFold) -> TeamChecks:
    path, hits_path = _paths(app)
    code = claim_subjects.fingerprint() + _CODE
    digest = Digest(fold, code)
    data = _read(path)
    kept = _kept(data, digest.of(fold), fold)
    if kept is not None:
        return TeamChecks(held_back(fold, kept.held), kept.subjects)
    # each claim's hits apart: read only when the entries changed (a fresh process's
    # plan of an unchanged ledger reads the answer alone)
    before = data if data.get("code") == code else {}
    earlier = _read(hits_path)
    subjects, claims = _signed(fold, before.get("subjects"))
    hits = _hits(fold, claims, earlier.get("claims") if earlier.get("code") == code
                 else None, subjects)
    found = TeamChecks(held_back(fold, hits=hits), subjects)
    live = _LIVE[fold] = Live(fold, code, claims, hits, subjects, (path, hits_path), digest)
    live.keep(fold, _rows(found.held))
    return found


def _signed(fold: TeamFold, before: object) -> tuple[dict[str, list[str] | None],
                                                     dict[str, str]]:
    """The subject terms of each active claim's signature by its text (those an earlier
    check kept for the same code reused), and each active claim's fingerprint: what
    :func:`~waymarks.core.team.claim_hits` reads of the claim itself."""
    known = before if isinstance(before, dict) and _subjects_ok(before) else {}
    subjects: dict[str, list[str] | None] = {}
    claims: dict[str, str] = {}
    for state in fold.states():
        if state.kind != "memory" or state.status != "active":
            continue
        claims[state.id] = fingerprint(state)
        if state.text not in subjects:
            subjects[state.text] = known[state.text] if state.text in known else signed(
                state.text)
    return subjects, claims


def _hits(fold: TeamFold, claims: dict[str, str], before: object,
          subjects: dict[str, list[str] | None]) -> dict[str, tuple[str, ...]]:
    """:func:`~waymarks.core.team.claim_hits` of each active claim (``claims``: their
    fingerprints). Checked anew: a claim new or changed since the check kept (``before``:
    each claim's fingerprint and hits then), one whose hits then include a claim gone or
    changed since, and one a new or changed claim may be found by (under a norm, key or
    polarity base the claim asks by, or a subject :func:`_subject_met`); the others' are
    reused (2-4 s of the first plan after a pull at 20k team claims, each claim checked
    again)."""
    from waymarks.core.team import claim_hits

    then: dict[str, tuple[str, ...]] = {}
    if isinstance(before, dict):
        for item_id, row in before.items():
            if isinstance(row, list) and len(row) == 2 and isinstance(row[1], list) and all(
                    isinstance(i, str) for i in row[1]) and claims.get(item_id) == row[0]:
                then[item_id] = tuple(row[1])
    gone = {i for i in (before if isinstance(before, dict) else ()) if i not in then}
    new = [fold.view.items[i] for i in claims if i not in then]
    found = set().union(*(_found_by(s) for s in new)) if new else set()
    subjects_new = [frozenset(subjects.get(s.text) or ()) for s in new]
    by_term: dict[str, list[frozenset[str]]] = {}
    for subject in subjects_new:
        for term in subject:
            by_term.setdefault(term, []).append(subject)
    wholes = {whole(subject) for subject in subjects_new if subject}
    words = _Words(new)
    hits: dict[str, tuple[str, ...]] = {}
    for item_id in claims:
        state = fold.view.items[item_id]
        said = then.get(item_id)
        if said is None or gone.intersection(said) or (new and (
                found & _asks(state, words) or _subject_met(
                    frozenset(subjects.get(state.text) or ()), by_term, wholes))):
            said = claim_hits(fold, state)
        hits[item_id] = said
    return hits


class _Words:
    """The new claims' norms by their kept words (:func:`kept_words`), to tell which
    claims' negations (:func:`opposite_norms`, 2 s at 20k claims) may be one of them."""

    def __init__(self, new: list[ItemState]) -> None:
        self.by_word: dict[str, list[frozenset[str]]] = {}
        self.few: list[frozenset[str]] = []  # of fewer than two words: compared with all
        for state in new:
            kept = kept_words(state.norm)
            if kept is None:
                continue  # (a Chinese claim: an English one's negation is none)
            for word in kept:
                self.by_word.setdefault(word, []).append(kept)
            if len(kept) < 2:
                self.few.append(kept)

    def may_deny(self, norm: str) -> bool:
        """Whether a new claim's norm may be a negation of ``norm``."""
        mine = kept_words(norm)
        if mine is None:
            return True
        if len(mine) >= 2:  # (one holds all of its words but one: one of any two)
            two = sorted(mine, key=lambda w: len(self.by_word.get(w, ())))[:2]
            theirs = [*self.few, *(k for w in two for k in self.by_word.get(w, ()))]
        else:
            theirs = [k for ks in self.by_word.values() for k in ks]
        return any(len(mine - k) <= 1 and len(k - mine) <= 1 for k in theirs)


def _found_by(state: ItemState) -> set[str]:
    """What a claim is found under by another's check beside its subject (the view's
    norm, key and polarity indexes)."""
    return {"n:" + state.norm, *(("k:" + state.key,) if state.key is not None else ()),
            *(("p:" + state.polarity_base,) if state.polarity_base is not None else ())}


def _asks(state: ItemState, words: _Words) -> set[str]:
    """What a claim's check looks others up under (:func:`_found_by`'s keys): its norm
    and its negations' (those a new claim may be), its key and polarity base."""
    return {"n:" + state.norm, *("n:" + o for o in (
                opposite_norms(state.norm) if words.may_deny(state.norm) else ())),
            *(("k:" + state.key,) if state.key is not None else ()),
            *(("p:" + state.polarity_base,) if state.polarity_base is not None else ())}


def _subject_met(subject: frozenset[str], by_term: dict[str, list[frozenset[str]]],
                 wholes: set[str]) -> bool:
    """Whether a new claim's subject may make its signature contradict one of
    ``subject`` (:func:`~waymarks.core.contradiction.contradicts`: the same subject, one
    containing it, or one of its parts), whatever term the check looks it up by."""
    if not subject:
        return False
    return any(subject <= theirs for theirs in by_term.get(min(subject), ())) or bool(
        wholes and wholes.intersection(parts(subject)))


def held_back_here(app: Waymarks, fold: TeamFold) -> list[Conflict]:
    """:func:`held_back` of ``fold`` (:func:`team_checks`)."""
    if core_team.held_known(fold):  # (a warm process: no digest)
        return held_back(fold)
    return team_checks(app, fold).held


def _read(path: Path) -> dict[str, Any]:
    """The checks kept at ``path`` as JSON (empty: none, or not readable)."""
    try:
        data: Any = msgspec.json.decode(path.read_bytes())
    except (OSError, ValueError, msgspec.DecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _subjects_ok(subjects: dict[Any, Any]) -> bool:
    return all(terms is None or (isinstance(terms, list) and all(
        isinstance(t, str) for t in terms)) for terms in subjects.values())


def _kept(data: dict[str, Any], digest: str, fold: TeamFold) -> TeamChecks | None:
    """The checks kept (``data``) for ``digest``, each item held back still active in
    ``fold``; ``None`` when there is no such answer."""
    if data.get("fold") != digest or not isinstance(
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
    if not _subjects_ok(subjects):
        return None
    return TeamChecks(found, subjects)
