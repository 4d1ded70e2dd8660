"""Postings of learned claims' features, so one query reads its candidates, not the store.

A ranking corpus (:class:`~waymarks.service.evolution_rank.Corpus`) is built from every
recallable learned claim: seconds at 60k claims, paid again by every one-shot process (a
Claude Code hook without its helper, a ``recall``, a ``plan``). The gates and weights need
only each query feature's document frequency, the length of its strong postings, and the
claims in the postings walked; this table holds those, derived from the persisted
analyses (``evo_analysis``), so a query asks SQLite for them (:mod:`.evolution_slice`).

What must stay true:
- a cache, never canonical: emptied with the projection (``reset``), and rows are only
  meaningful for the analyser named in ``evo_meta`` (``postings_analyser``); a writer
  with another analyser empties the table first;
- each claim posted has a sentinel row (feature ``""``): a claim with no features is
  told from one never posted;
- ``strong`` is 1 for a feature of the body or the aliases, 0 for one of quoted text only
  (the corpus's ``strong`` postings and its document frequencies, field for field).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Final, get_args

from waymarks.core.evolution.model import ClaimState

SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS evo_postings (feature TEXT NOT NULL, claim_id TEXT NOT NULL,"
    " strong INTEGER NOT NULL, PRIMARY KEY (feature, claim_id)) WITHOUT ROWID, STRICT",
    "CREATE INDEX IF NOT EXISTS evo_postings_by_claim ON evo_postings (claim_id)",
    # the claims of a state, by index: counts over the recallable ones subtract the others
    "CREATE INDEX IF NOT EXISTS evo_claims_by_state ON evo_claims (state, id)",
)
TABLE: Final = "evo_postings"
ANALYSER_META: Final = "postings_analyser"
SENTINEL: Final = ""  # every claim posted has this row (no analysed feature is empty)

#: a claim's postings: its ID, its strong features (body, aliases), its quoted ones
Posted = tuple[str, Iterable[str], Iterable[str]]


def create_table(db: sqlite3.Connection) -> None:
    """Migration 22."""
    for statement in SCHEMA:
        db.execute(statement)


def analyser(db: sqlite3.Connection) -> str | None:
    """The analyser the postings were written by (``None``: none written)."""
    row = db.execute("SELECT value FROM evo_meta WHERE name = ?", (ANALYSER_META,)).fetchone()
    return None if row is None else str(row[0])


def put(db: sqlite3.Connection, by: str, claims: Sequence[Posted]) -> None:
    """Post ``claims`` (replacing what each had), written by analyser ``by`` (call inside
    a write transaction). Postings of another analyser are dropped first."""
    if analyser(db) != by:
        db.execute(f"DELETE FROM {TABLE}")
        db.execute("INSERT INTO evo_meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
                   " DO UPDATE SET value = excluded.value", (ANALYSER_META, by))
    db.executemany(f"DELETE FROM {TABLE} WHERE claim_id = ?", [(c[0],) for c in claims])
    rows: list[tuple[str, str, int]] = []
    for cid, strong, quoted in claims:
        held = set(strong)
        rows.append((SENTINEL, cid, 0))
        rows.extend((f, cid, 1) for f in held)
        rows.extend((f, cid, 0) for f in set(quoted) - held)
    db.executemany(f"INSERT INTO {TABLE} (feature, claim_id, strong) VALUES (?, ?, ?)", rows)


def _states(states: Sequence[str]) -> str:
    return ",".join("?" * len(states))


def _outside(db: sqlite3.Connection, states: Sequence[str], feature: str, strong: bool
             ) -> int:
    """Posted claims holding ``feature`` whose state is not one of ``states`` (few: the
    superseded, forgotten and conflicted). Driven from the state index (CROSS JOIN keeps
    that order; SQLite otherwise walked the feature's postings, a seek into the claims
    per holder: 0.2 s for a word 60k claims hold)."""
    others = [s for s in get_args(ClaimState) if s not in states]
    if not others:
        return 0
    field = " AND p.strong = 1" if strong else ""
    return int(db.execute(
        f"SELECT count(*) FROM evo_claims c CROSS JOIN {TABLE} p ON p.feature = ?"
        f" AND p.claim_id = c.id{field} WHERE c.state IN ({_states(others)})",
        [feature, *others]).fetchone()[0])


def _holders(db: sqlite3.Connection, feature: str, strong: bool) -> int:
    field = " AND strong = 1" if strong else ""
    return int(db.execute(f"SELECT count(*) FROM {TABLE} WHERE feature = ?{field}",
                          (feature,)).fetchone()[0])


def posted(db: sqlite3.Connection, states: Sequence[str]) -> int:
    """How many claims in ``states`` are posted."""
    return _holders(db, SENTINEL, False) - _outside(db, states, SENTINEL, False)


def claims_in(db: sqlite3.Connection, states: Sequence[str]) -> int:
    """How many claims are in ``states`` (a count by index)."""
    (n,) = db.execute(f"SELECT count(*) FROM evo_claims WHERE state IN ({_states(states)})",
                      list(states)).fetchone()
    return int(n)


def all_posted(db: sqlite3.Connection, states: Sequence[str]) -> bool:
    """Whether every claim in ``states`` is posted (two counts by index, no scan)."""
    return claims_in(db, states) == posted(db, states)


def more_unposted(db: sqlite3.Connection, states: Sequence[str], most: int) -> bool:
    """Whether more than ``most`` claims in ``states`` have no postings, by two counts by
    index (:func:`unposted` lists them: a warm process's plans during its start-up postings
    write at 60k claims spent 0.5 s of CPU each on that, for a slice they then did not
    take). A claim no longer in the table whose postings stay counts as posted here, so
    this errs only towards listing."""
    return claims_in(db, states) - posted(db, states) > most


def unposted(db: sqlite3.Connection, states: Sequence[str]) -> list[str]:
    """IDs of the claims in ``states`` with no postings (new since, or never posted)."""
    if all_posted(db, states):
        return []
    return [str(c) for (c,) in db.execute(
        f"SELECT id FROM evo_claims c WHERE state IN ({_states(states)}) AND NOT EXISTS"
        f" (SELECT 1 FROM {TABLE} p WHERE p.feature = ? AND p.claim_id = c.id)",
        [*states, SENTINEL])]


def counts(db: sqlite3.Connection, features: Sequence[str], states: Sequence[str],
           *, strong: bool) -> dict[str, int]:
    """Per feature, the claims in ``states`` holding it (``strong``: in the body or the
    aliases; else in any of body, aliases, quoted text)."""
    out: dict[str, int] = {}
    for feature in dict.fromkeys(features):
        if feature == SENTINEL:
            continue
        n = _holders(db, feature, strong)
        if n:
            n -= _outside(db, states, feature, strong)
        if n:
            out[feature] = n
    return out


def holding(db: sqlite3.Connection, feature: str) -> list[str]:
    """IDs of the posted claims holding ``feature`` in the body or the aliases, whatever
    their state (the caller reads them by state)."""
    return [str(c) for (c,) in db.execute(
        f"SELECT claim_id FROM {TABLE} WHERE feature = ? AND strong = 1", (feature,))]
