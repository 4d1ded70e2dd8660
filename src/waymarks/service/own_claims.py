"""The person's own claims as the planner weighs another's against them: a team item or a
learned claim that contradicts one of them (by the rules a local write is refused by: the
replay rule's same key with another text or the opposite state, and the signatures' same
subject and attribute with another value) is not planned, since what the person confirmed
stands."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol

import msgspec

if TYPE_CHECKING:
    from waymarks.core.rules import ItemState
    from waymarks.planner.team import TeamBlock
    from waymarks.service.app import Waymarks
    from waymarks.service.views import ItemView


#: a claim's statuses that say the person took it out of effect
RETIRED: Final = frozenset({"invalid", "expired", "superseded"})
#: the most claims a read signs to catch the subject rows up (about 1 s CPU): after a
#: re-fold or a rebuild a read ran, the first plan of a team project signed them all
#: inside the prompt's hook, 10 s CPU and 20 s wall at 100k claims, past its 10 s. The
#: rest is left to the next reads, or the next write (which catches up every claim);
#: until then a team item or learned claim that contradicts only a claim not yet caught
#: up is not found to (as with damage there: a contradiction unseen for a few plans)
READ_CATCH_UP: Final = 10_000


class Said(Protocol):
    """What the person said, as :class:`OwnSignatures` weighs it: a pin or claim's view,
    or a line of their personal memory index (a planner ``TextBlock``)."""

    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...


class OwnSignatures:
    """The signatures of the person's own claims in the plan, indexed by subject and by
    the subjects each may contain (:func:`~waymarks.core.contradiction.parts`): a team or
    learned claim is compared with those it may contradict, in memory (a query per team
    claim made a plan with 200 of them 5x slower)."""

    def __init__(self, views: Iterable[Said]) -> None:
        from waymarks.core.contradiction import parts, signature, whole

        self.by_subject: dict[str, list[tuple[str, Any]]] = {}
        for view in views:
            found = signature(view.text)
            if found is not None:
                for name in (whole(found.subject), *parts(found.subject)):
                    self.by_subject.setdefault(name, []).append((view.id, found))

    def contradicted(self, text: str) -> str | None:
        from waymarks.core.contradiction import contradicts, parts, signature, whole

        if not self.by_subject:
            return None
        mine = signature(text)
        if mine is None:
            return None
        for name in (whole(mine.subject), *parts(mine.subject)):
            for item_id, theirs in self.by_subject.get(name, ()):
                if contradicts(mine, theirs):
                    return item_id
        return None


class Asked:
    """What :meth:`OwnClaims.expect` asks the store about ``states``, worked out once
    for them: each text's subject keys (``t:`` terms) and normalized form, and the keys
    and polarity bases of the states. Pure, and kept by a caller while its states stay
    the same (a team's fold: 20k team items built it on every plan). ``subjects``: the
    subject terms of the texts' signatures where known (kept with the team ledger:
    team_held), so that they are not signed again."""

    def __init__(self, states: Sequence[ItemState],
                 subjects: Mapping[str, Sequence[str] | None] | None = None) -> None:
        from waymarks.core.contradiction import signature

        self.texts: dict[str, tuple[list[str], str]] = {}
        for state in states:
            text = state.text  # (a property: read once)
            if text not in self.texts:
                if subjects is not None and text in subjects:
                    terms = subjects[text] or ()
                else:
                    found = signature(text)
                    terms = sorted(found.subject) if found is not None else []
                # the state's norm is its text normalized, as the projection keeps it
                self.texts[text] = (["t:" + term for term in terms], state.norm)
        self.terms = {k for terms, _n in self.texts.values() for k in terms}
        self.norms = {norm for _t, norm in self.texts.values()}
        self.keys = {s.key for s in states if s.key is not None}
        self.bases = {s.polarity_base for s in states if s.polarity_base is not None}
        self.facets = {(s.key, s.polarity_base) for s in states}
        #: a norm marked whole (``[ds4:…]``): what is found of one text may then depend
        #: on another's (:meth:`OwnClaims._found` looks its marked forms up among them)
        self.marked = any(n.startswith("[ds4:") for n in self.norms)
        #: (the Asked this one grew from, the one of the states added alone): what is
        #: found of this one is what was found of the first, and of the second
        self.grown_from: tuple[Asked, Asked] | None = None

    def grown(self, states: Sequence[ItemState],
              subjects: Mapping[str, Sequence[str] | None] | None = None) -> Asked:
        """This one with ``states`` added (a pull's new team claims): what
        :meth:`OwnClaims.expect` finds of it is worked out for those alone. Texts no
        longer asked about stay (what is found of them is true, and unused)."""
        added = Asked(states, subjects)
        both = Asked(())
        both.texts = {**self.texts, **added.texts}
        for name in ("terms", "norms", "keys", "bases", "facets"):
            setattr(both, name, getattr(self, name) | getattr(added, name))
        both.marked = self.marked or added.marked
        both.grown_from = (self, added)
        return both


#: what :meth:`OwnClaims._found` found of the texts one :class:`Asked` holds, as the
#: store was (its partitions, its change token): a plan of 20k team items worked it out
#: again each time (about 170 ms CPU)
Found = tuple[frozenset[str], dict[str, tuple[frozenset[str], str]],
              frozenset[tuple[str | None, str | None]]]
_FOUND: weakref.WeakKeyDictionary[Asked, tuple[tuple[Any, ...], Found]] = (
    weakref.WeakKeyDictionary())


class OwnClaims:
    """The person's own pins and claims in effect in ``app``'s directory. The pins are
    read on the first question (most plans and recalls weigh no learned claim); the
    claims are looked up per question, by the subject and words of the text asked about
    (the claims' subject rows a write's contradiction check reads), so only those that
    may hold or contradict it are read. Reading and signing every claim in effect took
    0.5 s a plan at 10k claims whenever a learned claim was eligible."""

    def __init__(self, app: Waymarks,
                 team: Callable[[], Sequence[TeamBlock]] | None = None) -> None:
        """``team``: the team items a plan here offers, asked on first use by
        :meth:`held` (:func:`~waymarks.service.team_here.held_here` passes them; without
        it no team item is said)."""
        self._app = app
        self._team_source = team
        self._pins: list[ItemView] | None = None
        #: the claims read per text: a plan asks of each learned claim whether theirs
        #: contradicts it and whether one they retired says it (two questions, one read:
        #: a subject a supersede chain of 10k versions shares was read twice, 0.25 s each)
        self._read: dict[str, list[ItemView]] = {}
        self._where: list[str] | None = None  # the partitions asked, once found
        self._team: TeamSaid | None = None  # the team items here, read on first use
        #: texts no claim here may say or contradict, and (key, polarity base) facets
        #: no claim here holds, as :meth:`expect` found them for many texts at once
        self._unborne: set[str] = set()
        self._unkeyed: set[tuple[str | None, str | None]] = set()

    def _views(self, text: str) -> list[ItemView]:
        """The pins in effect, then the claims in effect that may say or contradict
        ``text``, in creation order: the others can do neither."""
        return [*self._pins_in_effect(), *(v for v in self._claims(text) if v.applies)]

    def in_effect_about(self, text: str) -> list[ItemView]:
        """The pins in effect, and the claims in effect that may say ``text`` (its
        normalized words) or contradict it; the others can do neither."""
        if text in self._unborne:
            return list(self._pins_in_effect())
        return self._views(text)

    def expect(self, asked: Asked) -> None:
        """Find out at once which of the states ``asked`` was made of no claim here may
        say or contradict (no subject key, text or key of theirs is any claim's here), so
        that :meth:`in_effect_about` and :meth:`conflicting` look up only the others: a
        plan asked the store four times per team item (80k statements, about 2 s CPU, at
        20k team items), almost always for nothing."""
        partitions = self._partitions()
        if not partitions or not asked.texts:
            return
        projection = self._app.projection
        token = projection.epoch.token()
        where = (tuple(partitions), token, id(projection), str(self._app.db_path))
        kept = _FOUND.get(asked)
        if token is None or kept is None or kept[0] != where:
            kept = (where, self._grown_found(asked, partitions, where) or self._found(
                asked, partitions))
            if token is not None and projection.epoch.token() == token:
                _FOUND[asked] = kept
                asked.grown_from = None  # (its own answer kept: the first one's unneeded)
        unborne, bearing, unkeyed = kept[1]
        self._unborne |= unborne
        self._unkeyed |= unkeyed
        bearing = {t: b for t, b in bearing.items() if t not in self._read}
        if bearing:  # the claims of the others, read for all of them at once
            from waymarks.core.marked_forms import marked_forms

            read = projection.memory_about_many(
                partitions, [(subject or None, norm, marked_forms(norm))
                             for subject, norm in bearing.values()])
            views = {v.id: v for v in self._app.items(
                "memory", ids=list({i for ids in read for i in ids}))} if any(read) else {}
            order = {item_id: n for n, item_id in enumerate(views)}  # creation order
            for text, ids in zip(bearing, read, strict=True):
                self._read[text] = [views[i] for i in sorted(
                    (i for i in ids if i in views), key=order.__getitem__)]

    def _grown_found(self, asked: Asked, partitions: list[str], where: tuple[Any, ...]
                     ) -> Found | None:
        """What is found of a grown ``asked`` (:meth:`Asked.grown`): what was found of
        the one it grew from, the store as it is (``where``), and of the states added
        alone; ``None`` when that is not known (a marked norm: worked out whole). A warm
        process's first plan after a pull asked the store about every team text again
        (about 0.5 s CPU at 20k team claims)."""
        if asked.grown_from is None or asked.marked:
            return None
        base, added = asked.grown_from
        before = _FOUND.get(base)
        if before is None or before[0] != where:
            return None
        unborne, bearing, unkeyed = before[1]
        more = self._found(added, partitions)
        return unborne | more[0], {**bearing, **more[1]}, unkeyed | more[2]

    def _found(self, asked: Asked, partitions: list[str]) -> Found:
        """What :meth:`expect` finds of ``asked`` in the store as it is: the texts no
        claim here may say or contradict, those some may (each with its subject terms and
        normalized form), and the facets no claim holds."""
        from waymarks.core.contradiction import MIN_CONTAINED_TERMS, parts
        from waymarks.core.marked_forms import marked_forms

        asked_texts = asked.texts
        present = self._app.projection.memory_present(
            partitions, asked.terms, asked.norms, asked.keys, asked.bases)
        # a claim whose whole subject is a part of a text's holds each of the part's
        # terms: only the parts of terms some claim holds are asked (working out every
        # text's parts took a third of this at 20k team items and no claim here)
        contained: dict[str, list[str]] = {}
        for text, (terms, _norm) in asked_texts.items():
            held = [t for t in terms if t in present]
            if len(held) >= MIN_CONTAINED_TERMS:
                contained[text] = parts(frozenset(t.removeprefix("t:") for t in terms))
        if any(contained.values()):
            present |= self._app.projection.memory_present(
                partitions, {k for found in contained.values() for k in found}, (), (), ())
        marked = any(p.startswith("n:[ds4:") for p in present)
        unborne: set[str] = set()
        bearing: dict[str, tuple[frozenset[str], str]] = {}
        for text, (terms, norm) in asked_texts.items():
            # what the store's lookup (claim_subjects.bearing) may find: claims holding
            # the subject's rarest term (so every term is some claim's), or one of its
            # parts, or saying the text, plain or marked whole
            borne = (bool(terms) and all(t in present for t in terms)) or any(
                k in present for k in contained.get(text, ())) or "n:" + norm in present or (
                marked and any("n:" + f in present for f in marked_forms(norm)))
            if not borne:
                unborne.add(text)
            else:
                bearing[text] = (frozenset(t.removeprefix("t:") for t in terms), norm)
        unkeyed = frozenset(
            (key, base) for key, base in asked.facets
            if (key is None or "y:" + key not in present)
            and (base is None or "b:" + base not in present))
        return frozenset(unborne), bearing, unkeyed

    def _pins_in_effect(self) -> list[ItemView]:
        if self._pins is None:
            self._pins = [v for v in self._app.items("pin") if v.applies]
        return self._pins

    def _claims(self, text: str) -> list[ItemView]:
        """The claims here that may bear on ``text``: those in effect that may say or
        contradict it, and those taken out of effect that say it (the store leaves the
        other versions of its subject out: a supersede chain of 10k versions was read and
        verified whole, 0.24 s CPU per learned claim a plan)."""
        found = self._read.get(text)
        if found is None:
            found = self._read[text] = self._claims_read(text)
        return found

    def _claims_read(self, text: str) -> list[ItemView]:
        from waymarks.core.contradiction import signature
        from waymarks.core.marked_forms import marked_forms
        from waymarks.core.text import normalize

        app = self._app
        partitions = self._partitions()
        if not partitions:
            return []
        found = signature(text)
        norm = normalize(text)  # and the text marked whole: the person's at their level
        ids = app.projection.memory_about(partitions, found.subject if found else None,
                                          norm, marked_forms(norm))
        return list(app.items("memory", ids=ids)) if ids else []

    def _partitions(self) -> list[str]:
        """The partitions whose claims apply here, their subject rows caught up: worked
        out on the first question only (per question, a plan with 1,000 team items
        looked the session up and asked whether the rows were behind 1,000 times)."""
        if self._where is None:
            app = self._app
            session = app.refresh()
            where = [f"session:{session.session_id}"] if session is not None else []
            if app.project_trusted:  # (untrusted, none of the project's claims applies)
                where.append(f"project:{app.cwd}")
            if where and app.projection.claim_subjects_behind():  # a rebuild left them
                with app.projection.transaction():  # to the next write: a share of them
                    app.projection.catch_up_claim_subjects(limit=READ_CATCH_UP)
            self._where = where
        return self._where

    def contradicted(self, text: str) -> str | None:
        """The ID of the pin or claim ``text`` contradicts, if any."""
        return OwnSignatures(self._views(text)).contradicted(text) or self._keyed(text)

    def conflicting(self, state: ItemState) -> str | None:
        """The first of the person's claims in effect here that ``state`` conflicts with
        by the replay rule (the same key with another text, the opposite state)."""
        from waymarks.core.rules import find_conflicts

        if (state.key, state.polarity_base) in self._unkeyed:
            return None  # (no claim here holds its key or polarity base: expect)
        view = self._app.projection.view
        for partition in self._partitions():
            found = find_conflicts(view, msgspec.structs.replace(state, partition=partition))
            if found:
                return found[0]
        return None

    def _keyed(self, text: str) -> str | None:
        """The claim in effect here that a write of ``text`` would be refused for by the
        replay rule (:func:`keyed_stands`): "The package manager is pnpm" beside "The
        package manager is npm" has no value the signatures compare, and the learned
        claim went out beside the person's, or as the answer."""
        found = self.conflicting(claim_state(text))
        theirs = self._app.projection.view.get(found) if found is not None else None
        return found if theirs is not None and keyed_stands(text, theirs.text) else None

    def held(self, text: str) -> str | None:
        """The ID of the pin or claim that says ``text`` (the same sentence) or
        contradicts it, or of a team item contradicting it (``team:ID``), if any: what a
        learned claim with that text must not stand for."""
        claims = self._claims(text)
        views = [*self._pins_in_effect(), *(v for v in claims if v.applies)]
        said = next((v.id for v in _saying(views, text)), None)
        return (said or OwnSignatures(views).contradicted(text) or self._keyed(text)
                or _retired(claims, text) or self._team_said().contradicted(text))

    def _team_said(self) -> TeamSaid:
        """The team items a plan here offers (none outside a trusted team project), read
        once: a recall answered with a learned claim contradicting one (no team item is
        recalled), the model's guess standing alone against what a teammate shared."""
        if self._team is None:
            self._team = TeamSaid(self._team_source() if self._team_source else ())
        return self._team

    def said(self, text: str) -> str | None:
        """The ID of the pin or claim in effect here that says ``text`` with marker tags
        (``[ds4:local-only]X[/ds4:local-only]`` for ``X``), if any: a learned claim with
        that text is theirs, held at the level they marked (compared with the tags, a
        learned copy of a claim they marked local-only was planned for remote providers,
        which the plan weighs none of theirs for)."""
        from waymarks.core.privacy import has_markers

        views = [*self._pins_in_effect(), *(v for v in self._claims(text) if v.applies)]
        return next((v.id for v in _saying(views, text) if has_markers(v.text)), None)

    def retired(self, text: str) -> str | None:
        """The ID of a claim of the person's here that says ``text`` (the same sentence)
        and that they took out of effect (invalid, expired or superseded), unless one in
        effect says it too: a learned claim with that text must not stand in its place
        (held out while theirs applied, it was planned, as memory, once they said theirs
        was wrong)."""
        return _retired(self._claims(text), text)


def claim_state(text: str) -> ItemState:
    """``text`` as the state of a memory claim a local write would make (its derived key
    and polarity), for the replay rule to weigh against the claims in effect."""
    from waymarks.core.model import MemoryItem
    from waymarks.core.rules import new_state

    return new_state(MemoryItem(id="", scope="session", claim=text, created_at=0,
                                source_entry_ids=()), "", "", 0)


def keyed_stands(text: str, theirs: str) -> bool:
    """Whether a conflict the replay rule finds between ``text`` and ``theirs`` (the same
    key) stands: unless both say enough for their signatures to judge and those find no
    contradiction, as a write into another partition is judged."""
    from waymarks.core.contradiction import contradicts, signature

    mine = signature(text)
    signed = signature(theirs) if mine is not None else None
    return mine is None or signed is None or contradicts(mine, signed)


class TeamSaid:
    """The teammates' items a plan offers, as a learned claim is weighed against them:
    shared pins and memory a person confirmed, which a model-derived claim must not stand
    beside saying otherwise (a learned "port 6543" went in under the team's "port 5432").
    Items the person's own claims override are left out: theirs are weighed already.
    Answers ``team:ID``."""

    def __init__(self, team: Sequence[TeamBlock]) -> None:
        from waymarks.core.text import normalize

        kept = [b for b in team if b.overridden_by is None]
        self._signed = OwnSignatures(kept)
        self._keyed: dict[str, list[tuple[str, str, str]]] = {}
        for block in kept:
            if block.kind == "memory" and block.key:
                self._keyed.setdefault(block.key, []).append(
                    (block.id, block.text, normalize(block.text)))

    def contradicted(self, text: str) -> str | None:
        found = self._signed.contradicted(text)
        if found is None and self._keyed:
            state = claim_state(text)
            found = next((i for i, said, norm in self._keyed.get(state.key or "", ())
                          if norm != state.norm and keyed_stands(text, said)), None)
        return None if found is None else f"team:{found}"


def _saying(views: Iterable[ItemView], text: str) -> list[ItemView]:
    """Those of ``views`` whose text is ``text``, marker tags aside."""
    from waymarks.core.privacy import strip_markers
    from waymarks.core.text import normalize

    said = normalize(text)
    return [v for v in views if normalize(strip_markers(v.text)) == said]


def _retired(claims: Iterable[ItemView], text: str) -> str | None:
    views = _saying(claims, text)
    if any(v.applies for v in views):
        return None
    return next((v.id for v in views if v.status in RETIRED), None)
