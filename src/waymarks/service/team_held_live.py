"""Team memory, the claims held back (:mod:`waymarks.service.team_held`) brought up to
date in a process that found them before, from what the fold changed since
(:meth:`~waymarks.core.team.TeamFold.changed_since`): a warm process's first plan after
a pull fingerprinted every active claim, read both kept files, asked every claim whether
a new one may bear on it and wrote both files with ``json`` (1.2 s CPU at 20k team
claims, for a pull of ten).

The question is asked the other way round: which claims a new, changed or gone claim may
bear on, looked up in indexes of the claims by norm, key, polarity base, kept words
(:func:`~waymarks.core.claim_negations.kept_words`: whose negations may be a new
claim's) and subject terms, built the first time and kept up to date. What
:func:`~waymarks.service.team_held._hits` checks again is checked again here, no claim
fewer: the claims whose hits include one gone or changed, those a new claim is found
under (its norm, key or polarity base, or a negation of theirs), and those whose subject
a new claim's contains or is a part of. The kept files are written as ever (the next
fresh process reads them), encoded by ``msgspec``; the fold's digest goes on from the
one kept while the fold only grew."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from itertools import combinations
from pathlib import Path
from typing import Any, Final

import msgspec

from waymarks.core import team as core_team
from waymarks.core.claim_about import MAX_EXTRA_TERMS, MIN_CONTAINED_TERMS
from waymarks.core.claim_negations import kept_words, opposite_norms
from waymarks.core.contradiction import parts, whole
from waymarks.core.digests import blake2b
from waymarks.core.rules import ItemState
from waymarks.core.team import Conflict, TeamFold, held_back
from waymarks.files.atomic import write_atomic

#: a subject of more terms than this is compared with every other, not looked up by its
#: parts (2 ** terms lookups)
MAX_LOOKED_UP: Final = 10
#: the entries between two kept states of the fold's digest
SNAPSHOT_EVERY: Final = 512
#: a change past this share of the claims is checked as a fresh process would
WHOLE_FROM: Final = 0.5


def fingerprint(state: ItemState) -> str:
    """What :func:`~waymarks.core.team.claim_hits` reads of the claim itself."""
    return blake2b(msgspec.json.encode([
        state.item, state.key, state.norm, state.polarity_base, state.polarity_sign,
        state.partition])).hexdigest()[:16]


def signed(text: str) -> list[str] | None:
    """The subject terms of ``text``'s signature (``None``: it has none)."""
    from waymarks.core.contradiction import signature

    found = signature(text)
    return None if found is None else sorted(found.subject)


class Live:
    """The checks found for one fold in this process: each active claim's fingerprint
    and hits, the subjects of their texts, and the fold's change mark and digest then."""

    def __init__(self, fold: TeamFold, code: str, claims: dict[str, str],
                 hits: dict[str, tuple[str, ...]], subjects: dict[str, list[str] | None],
                 paths: tuple[Path, Path], digest: Digest) -> None:
        self.code, self.paths = code, paths
        self.claims, self.hits = dict(claims), dict(hits)
        #: each claim's state when its fingerprint was taken (the index is built of
        #: these: the fold may have changed since)
        self.states = {i: fold.view.items[i] for i in claims}
        self.subjects = {fold.view.items[i].text: subjects.get(fold.view.items[i].text)
                         for i in claims}
        self.texts: dict[str, int] = {}  # how many active claims say each text
        for item_id in claims:
            text = fold.view.items[item_id].text
            self.texts[text] = self.texts.get(text, 0) + 1
        self.mark = fold.change_mark()
        self.digest = digest  # (the fold's, as the kept answer's was found)
        self.hit_by: dict[str, set[str]] = {}  # a claim -> the claims whose hits hold it
        for item_id, said in self.hits.items():
            for other in said:
                self.hit_by.setdefault(other, set()).add(item_id)
        self._index: _Index | None = None

    def advance(self, fold: TeamFold) -> tuple[list[Conflict], dict[str, list[str] | None]] | None:
        """The held-back rows and subjects for ``fold`` as it is now; ``None`` when so
        much changed that a whole check is cheaper (the caller runs it)."""
        changed = fold.changed_since(self.mark)
        if len(changed) > WHOLE_FROM * max(len(self.claims), 64):
            return None
        index = self._index or _Index(self)
        self._index = index
        items = fold.view.items
        new: dict[str, ItemState] = {}
        gone: set[str] = set()
        for item_id in changed:
            state = items.get(item_id)
            was = self.claims.get(item_id)
            now = fingerprint(state) if state is not None and state.kind == "memory" and (
                state.status == "active") else None
            if now == was:
                continue
            if was is not None:
                gone.add(item_id)
                self._drop(item_id, index)
            if state is not None and now is not None:
                new[item_id] = state
                self._add(item_id, state, now, index)
        again = set(new)
        for item_id in gone:
            again |= self.hit_by.get(item_id, set())
        again |= index.bearing(list(new.values()), self.subjects)
        for item_id in again:
            if item_id in self.claims:
                self._hit(item_id, core_team.claim_hits(fold, items[item_id]))
        self.mark = fold.change_mark()
        return held_back(fold, hits=self.hits), self.subjects

    def _add(self, item_id: str, state: ItemState, print_: str, index: _Index) -> None:
        self.claims[item_id] = print_
        self.states[item_id] = state
        text = state.text
        self.texts[text] = self.texts.get(text, 0) + 1
        if text not in self.subjects:
            self.subjects[text] = signed(text)
        index.add(item_id, state, self.subjects[text])

    def _drop(self, item_id: str, index: _Index) -> None:
        del self.claims[item_id], self.states[item_id]
        self._hit(item_id, ())
        del self.hits[item_id]
        text = index.drop(item_id)
        if text is not None:
            self.texts[text] -= 1
            if not self.texts[text]:
                del self.texts[text], self.subjects[text]

    def _hit(self, item_id: str, said: tuple[str, ...]) -> None:
        for other in self.hits.get(item_id, ()):
            self.hit_by.get(other, set()).discard(item_id)
        self.hits[item_id] = tuple(said)
        for other in said:
            self.hit_by.setdefault(other, set()).add(item_id)

    def keep(self, fold: TeamFold, rows: list[list[Any]]) -> None:
        """Write the kept files for ``fold`` (as :func:`team_held._checks` does; one that
        cannot be written is as none)."""
        path, hits_path = self.paths
        with contextlib.suppress(OSError):
            write_atomic(hits_path, msgspec.json.encode({"code": self.code, "claims": {
                i: [self.claims[i], list(h)] for i, h in self.hits.items()}}), mode=0o600)
            write_atomic(path, msgspec.json.encode({
                "fold": self.digest.of(fold), "code": self.code, "held": rows,
                "subjects": self.subjects}), mode=0o600)


class Digest:
    """The digest of the fold's entries (``team_held._checks``'s), carried on from the
    one taken before: entries applied in place extend it; a rewind goes back to the
    hasher as it was before the rewind's first entry (one kept every
    :data:`SNAPSHOT_EVERY` entries) and goes on from there (a pull of a teammate's older
    entries hashed all 20k entries again)."""

    def __init__(self, fold: TeamFold, code: str) -> None:
        self.snapshots = [blake2b(code.encode())]  # the hasher after n * SNAPSHOT_EVERY
        self.hasher = self.snapshots[0].copy()
        self.count = 0
        self.cuts = fold.cuts_since(0)[0]
        self._extend(fold)

    def _extend(self, fold: TeamFold) -> None:
        for entry in fold.applied_entries_from(self.count):
            self.hasher.update(msgspec.json.encode(entry))
            self.count += 1
            if self.count % SNAPSHOT_EVERY == 0:
                self.snapshots.append(self.hasher.copy())

    def of(self, fold: TeamFold) -> str:
        self.cuts, cut = fold.cuts_since(self.cuts)
        if cut is not None and cut < self.count:
            del self.snapshots[cut // SNAPSHOT_EVERY + 1:]
            self.hasher = self.snapshots[-1].copy()
            self.count = (len(self.snapshots) - 1) * SNAPSHOT_EVERY
        self._extend(fold)
        return str(self.hasher.hexdigest())


class _Index:
    """The active claims by what a new claim's check may find them under, or they it."""

    def __init__(self, live: Live) -> None:
        self.facets: dict[str, set[str]] = {}  # n:/k:/p: -> claims
        self.words: dict[str, set[str]] = {}  # kept word -> claims
        self.kept: dict[str, frozenset[str] | None] = {}
        self.small: set[str] = set()  # of two kept words or fewer
        self.unworded: set[str] = set()  # kept words None (Chinese): any may deny them
        self.by_subject: dict[frozenset[str], set[str]] = {}  # a subject -> claims
        self.terms: dict[str, set[str]] = {}  # a subject term -> claims
        self.subject: dict[str, frozenset[str]] = {}
        self.norm: dict[str, str] = {}
        self.text: dict[str, str] = {}
        self.facet_of: dict[str, set[str]] = {}
        for item_id, state in live.states.items():
            self.add(item_id, state, live.subjects.get(state.text))

    def add(self, item_id: str, state: ItemState, terms: Iterable[str] | None) -> None:
        self.text[item_id], self.norm[item_id] = state.text, state.norm
        for facet in self.facet_of.setdefault(item_id, _facets(state)):
            self.facets.setdefault(facet, set()).add(item_id)
        kept = self.kept[item_id] = kept_words(state.norm)
        if kept is None:
            self.unworded.add(item_id)
        else:
            for word in kept:
                self.words.setdefault(word, set()).add(item_id)
            if len(kept) <= 2:
                self.small.add(item_id)
        subject = self.subject[item_id] = frozenset(terms or ())
        if subject:
            self.by_subject.setdefault(subject, set()).add(item_id)
            for term in subject:
                self.terms.setdefault(term, set()).add(item_id)

    def drop(self, item_id: str) -> str | None:
        """Forget a claim; returns its text."""
        text = self.text.pop(item_id, None)
        if text is None:
            return None
        del self.norm[item_id]
        for facet in self.facet_of.pop(item_id):
            self.facets.get(facet, set()).discard(item_id)
        kept = self.kept.pop(item_id)
        self.unworded.discard(item_id)
        self.small.discard(item_id)
        for word in kept or ():
            self.words.get(word, set()).discard(item_id)
        subject = self.subject.pop(item_id)
        if subject:
            self.by_subject.get(subject, set()).discard(item_id)
            for term in subject:
                self.terms.get(term, set()).discard(item_id)
        return text

    def bearing(self, new: list[ItemState], subjects: dict[str, list[str] | None]
                ) -> set[str]:
        """The claims a check of each new claim may find, or that may find it
        (``team_held._hits``'s third reason, asked from the new claims' side)."""
        if not new:
            return set()
        found: set[str] = set()
        norms = {state.norm for state in new}
        for state in new:
            for facet in _facets(state):
                found |= self.facets.get(facet, set())
        # a claim whose negation a new claim may be: kept words within one of each other
        near = set(self.unworded)
        for state in new:
            kept = kept_words(state.norm)
            if kept is None:
                continue
            pool = set(self.small)
            if len(kept) >= 2:
                for word in sorted(kept, key=lambda w: len(self.words.get(w, ())))[:2]:
                    pool |= self.words.get(word, set())
            near |= {i for i in pool if _close(self.kept[i], kept)}
        found |= {i for i in near - found if norms.intersection(opposite_norms(self.norm[i]))}
        # a claim whose subject a new claim's contains, or holds a new claim's whole
        for state in new:
            theirs = frozenset(subjects.get(state.text) or ())
            if not theirs:
                continue
            found |= self._within(theirs)
            if len(theirs) < MIN_CONTAINED_TERMS:
                continue  # (a part of none: parts() holds none so small)
            rarest = min(theirs, key=lambda t: len(self.terms.get(t, ())))
            mine = whole(theirs)
            found |= {i for i in self.terms.get(rarest, ()) if theirs < self.subject[i]
                      and len(theirs) >= len(self.subject[i]) - MAX_EXTRA_TERMS
                      and mine in parts(self.subject[i])}
        return found


    def _within(self, theirs: frozenset[str]) -> set[str]:
        """The claims whose subject is ``theirs`` or a part of it: looked up by each of
        its parts (a subject has a few terms), else by a walk of the subjects."""
        found: set[str] = set()
        if len(theirs) > MAX_LOOKED_UP:
            for subject, ids in self.by_subject.items():
                if subject <= theirs:
                    found |= ids
            return found
        terms = sorted(theirs)
        for size in range(1, len(terms) + 1):
            for part in combinations(terms, size):
                found |= self.by_subject.get(frozenset(part), set())
        return found


def _close(mine: frozenset[str] | None, theirs: frozenset[str]) -> bool:
    """``team_held._Words.may_deny``'s test of two claims' kept words."""
    return mine is None or (len(mine - theirs) <= 1 and len(theirs - mine) <= 1)


def _facets(state: ItemState) -> set[str]:
    """What a claim is found under by another's check beside its subject
    (``team_held._found_by``)."""
    return {"n:" + state.norm, *(("k:" + state.key,) if state.key is not None else ()),
            *(("p:" + state.polarity_base,) if state.polarity_base is not None else ())}
