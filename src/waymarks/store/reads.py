"""The projection's read side: every question the service asks the store, as methods.

Only ``store/`` speaks SQL. The service holds a :class:`~waymarks.store.projection.
Projection` and calls these methods (and the write side's ``transaction``, ``sync``,
``rebuild``, source policy); it never touches the connection. The set of operations is
the protocol a second backend (a server database for teams) would implement:
:class:`waymarks.store.protocol.Store` names it, and ``tests/store/test_store_contract.py``
runs one contract against every implementation.
"""


import sqlite3
from collections.abc import Collection, Sequence
from typing import Any

import msgspec

from waymarks.core.rules import ItemState
from waymarks.ledger.log import ProgressFn, SessionLog
from waymarks.store import entries as entries_index
from waymarks.store import queries
from waymarks.store.epoch import Epoch, Token
from waymarks.store.integrity import (
    ITEM_ID,
    SHARED_ENTRIES,
    SOURCE_FIELDS,
    stored_manifest,
    verify_source,
)
from waymarks.store.recall_index import RecallIndex
from waymarks.store.rows import state_from_row
from waymarks.store.view import SqliteView


class KnownSource(msgspec.Struct, frozen=True):  # built for every indexed source on every read
    """A session file the projection indexed for a project, as it was when checked."""

    session_id: str
    path: str
    offset: int
    lines: int
    entries: int
    fingerprint: str
    size: int
    mtime_ns: int
    status: str
    ctime_ns: int = 0  # (migration 20: an older row has none, so its file is checked once)


#: a tenth of the stdlib's time for a plan's manifest (about 100 us of every plan)
_MANIFEST_ENCODER = msgspec.json.Encoder()
#: whole listings kept between requests (a kind for a session and project each), of at
#: most so many items (the pins; not a web page listing a hundred thousand memories)
KEPT_LISTINGS = 8
KEPT_LISTING_ITEMS = 4096
#: items kept by ID between requests, at most
KEPT_ITEMS = 8192


class ProjectionReads:
    """Read operations over the projection's connection ``db``."""

    db: sqlite3.Connection
    epoch: Epoch
    view: SqliteView
    #: whole listings as last read and verified, and the change token they were read at
    _listings: dict[tuple[str, str, str, int | None, int | None, int | None, bool | None,
                          int], tuple[Token, tuple[ItemState, ...]]]
    #: items read by ID (verified row and state), all read at ``_by_id_token``
    _by_id: dict[str, tuple[tuple[Any, ...], ItemState]]
    _by_id_token: Token | None
    #: a project's indexed sources as last read and verified, and the token then
    _known: tuple[str, Token, tuple[KnownSource, ...]] | None
    #: :meth:`has_given_keys`' last question, the token it was asked at, and its answer
    _given_keys: tuple[tuple[str, str, str], Token, bool] | None
    #: the manifest's shared first entries (the pins') as this connection last saved them,
    #: and their encoding: the same plan after plan
    _manifest_head: tuple[Any, str] | None = None

    # -- items ----------------------------------------------------------------------

    def visible_items(self, kind: str, session_id: str, project: str, *,
                      ids: Sequence[str] | None = None, recent_active: int | None = None,
                      recent: int | None = None, oldest: int | None = None,
                      trusted: bool | None = None, skip: int = 0) -> list[ItemState]:
        """Items a session may see (its own, its project's), in creation order, or the
        newest ``recent_active``/``recent`` of them (the ``oldest``), or those of ``ids``;
        ``trusted`` (with ``recent_active``): only those that may be in effect; ``skip``
        (with ``recent`` or ``oldest``): past that many of them (a page).

        A listing (every plan's pins; the newest memories a plan that matched none
        falls back on) is kept while nothing changes (see :mod:`waymarks.store.epoch`):
        its rows were verified when read, and a write from any connection, this one
        included, reads them again. So are items read by ID (the memories a plan
        includes)."""
        if ids is not None:  # (before a recent limit, as queries.visible_items takes them)
            return self._items_by_id(kind, session_id, project, ids)
        token = self.epoch.token()
        key = (kind, session_id, project, recent_active, recent, oldest, trusted, skip)
        kept = self._listings.get(key)
        if kept is not None and token is not None and kept[0] == token:
            return list(kept[1])
        states = queries.visible_items(self.db, kind, session_id, project,
                                       recent_active=recent_active, recent=recent,
                                       oldest=oldest, trusted=trusted, skip=skip)
        if token is not None and len(states) <= KEPT_LISTING_ITEMS:
            if len(self._listings) >= KEPT_LISTINGS:
                self._listings.clear()
            self._listings[key] = (token, tuple(states))
        return states

    def ids_with_keys(self, kind: str, session_id: str, project: str,
                      keys: Sequence[str], *, active_only: bool = False) -> list[str]:
        """IDs of the items a session may see whose key is one of ``keys`` (read them
        with :meth:`visible_items`, which verifies the rows); ``active_only``: only those
        whose status is ``active``."""
        return queries.ids_with_keys(self.db, kind, session_id, project, keys,
                                     active_only=active_only)

    def has_given_keys(self, kind: str, session_id: str, project: str) -> bool:
        """Whether the session may see an active item of ``kind`` whose key was given
        (``--key``): when none, no request names one (:func:`queries.has_given_keys`).
        Kept while nothing changes (:mod:`waymarks.store.epoch`): every plan asks, and its
        probe, the first statement after the plan's recall, took ~0.05-0.1 ms of CPU of a
        plan at 1k memories (~0.01 ms asked again at once)."""
        asked = (kind, session_id, project)
        token = self.epoch.token()
        kept = self._given_keys
        if kept is not None and token is not None and kept[:2] == (asked, token):
            return kept[2]
        found = queries.has_given_keys(self.db, kind, session_id, project)
        self._given_keys = None if token is None else (asked, token, found)
        return found

    def _items_by_id(self, kind: str, session_id: str, project: str, ids: Sequence[str]
                     ) -> list[ItemState]:
        token = self.epoch.token()
        if token is None:
            return queries.visible_items(self.db, kind, session_id, project, ids=ids)
        if token != self._by_id_token or len(self._by_id) > KEPT_ITEMS:
            self._by_id.clear()
            self._by_id_token = token
        kept = self._by_id
        wanted = set(ids)
        missing = [item_id for item_id in wanted if item_id not in kept]
        if missing:
            for row in queries.item_rows(self.db, missing):
                kept[row[ITEM_ID]] = (row, state_from_row(row))
        rows = queries.visible_rows((kept[i][0] for i in wanted if i in kept), kind,
                                    session_id, project)
        return [kept[row[ITEM_ID]][1] for row in rows]

    def classifications(self, ids: Sequence[str]) -> dict[str, str | None]:
        """The explicit classification of each item named."""
        return queries.classifications(self.db, ids)

    def visible_count(self, kind: str, session_id: str, project: str) -> int:
        """How many items of ``kind`` a session may see, counted in SQL."""
        return queries.visible_count(self.db, kind, session_id, project)

    def memory_counts(self, session_id: str, project: str) -> list[tuple[str, str, int]]:
        """(status, scope, count) of the memory a session may see."""
        return queries.memory_counts(self.db, session_id, project)

    def expand_prefix(self, kind: str, ref: str, session_id: str, project: str) -> str | None:
        """The one visible item ID starting with ``ref``, if exactly one does."""
        return queries.expand_prefix(self.db, kind, ref, session_id, project)

    def ids_starting(self, kind: str, ref: str, session_id: str, project: str) -> list[str]:
        """Every visible item ID starting with ``ref`` (read them with
        :meth:`visible_items`, which verifies the rows)."""
        return queries.ids_starting(self.db, kind, ref, session_id, project)

    def last_changed(self, ids: Sequence[str]) -> dict[str, int]:
        """When each item last changed (its newest applied mutation)."""
        from waymarks.store import item_history  # listings', not recall's

        return item_history.last_changed(self.db, ids)

    def timeline_days(self, kind: str, session_id: str, project: str, scope: str = "",
                      status: str = "") -> list[tuple[str, str, int]]:
        """(day, change, count) of the changes to the items a session sees."""
        from waymarks.store import timeline  # the inspector's, not recall's

        return timeline.day_counts(self.db, kind, session_id, project, scope, status)

    def timeline_newest(self, kind: str, session_id: str, project: str, limit: int,
                        scope: str = "", status: str = "") -> list[str]:
        """The IDs of the items the ``limit`` newest changes are about (and a few more;
        read them with :meth:`visible_items`, which verifies the rows)."""
        from waymarks.store import timeline

        return timeline.newest_changed(self.db, kind, session_id, project, limit, scope,
                                       status)

    def mutations_of(self, item_id: str
                     ) -> list[tuple[int, str, str, str, str, str | None]]:
        """The mutations naming an item, oldest first."""
        from waymarks.store import item_history

        return item_history.mutations_of(self.db, item_id)

    def stored_payloads(self, session_id: str) -> dict[str, bytes]:
        """A session's projected mutations: entry ID -> payload (``health``'s whole check
        of its file against them)."""
        from waymarks.store import item_history

        return item_history.stored_payloads(self.db, session_id)

    def claim_subjects_behind(self) -> bool:
        """Whether the claims' subject rows lack claims added since (or were written by
        other code): :meth:`memory_about` reads them only once caught up."""
        from waymarks.store import claim_subjects

        return claim_subjects.behind(self.db)

    def catch_up_claim_subjects(self, progress: ProgressFn | None = None,
                                limit: int | None = None) -> list[str]:
        """Catch the claims' subject rows up (inside :meth:`transaction`); ``progress``
        counts the claims, ``limit`` bounds them (the rest left behind). The IDs of those
        whose signature failed (left out)."""
        from waymarks.store import claim_subjects

        unsigned: list[str] = []
        if limit is None and progress is None:  # a write's (a read's share leaves some)
            self.view.caught_up(unsigned)
        else:
            claim_subjects.catch_up(self.db, progress, unsigned, limit)
        return unsigned

    def memory_about(self, partitions: Sequence[str], subject: frozenset[str] | None,
                     norm: str, also: Sequence[str] = ()) -> list[str]:
        """IDs of the memory items of ``partitions`` (rows not read: the caller reads the
        verified rows) that may bear on a claim saying ``norm`` (its subject ``subject``,
        other forms of its text ``also``: marked, say): those in effect whose subject may
        equal, contain or be contained in ``subject`` (those it may contradict) or that say
        ``norm`` or one of ``also``, and those of them taken out of effect (invalid,
        expired, superseded) whose text, marker tags aside, says ``norm``
        (:func:`~waymarks.store.claim_subjects.bearing`: the other versions of a subject
        are left out in SQL, a supersede chain's thousands)."""
        return self.memory_about_many(partitions, [(subject, norm, also)])[0]

    def memory_about_many(self, partitions: Sequence[str],
                          asks: Sequence[tuple[frozenset[str] | None, str, Sequence[str]]]
                          ) -> list[list[str]]:
        """:meth:`memory_about` of each ``(subject, norm, also)`` asked, in a few
        statements a partition whatever their number (a plan's team items)."""
        from waymarks.store import claim_subjects

        found: list[dict[str, None]] = [{} for _ask in asks]
        for partition in dict.fromkeys(partitions):
            for ids, more in zip(found, claim_subjects.bearing_many(
                    self.db, partition, [(subject or frozenset(), norm, tuple(also))
                                         for subject, norm, also in asks]), strict=True):
                ids.update(dict.fromkeys(more))
        return [list(ids) for ids in found]

    def memory_present(self, partitions: Sequence[str], terms: Collection[str],
                       norms: Collection[str], keys: Collection[str],
                       bases: Collection[str]) -> set[str]:
        """Which of these facets any memory item of ``partitions`` (any status) has, in
        four reads: subject keys of the claims' subject rows (``t:``/``k:``, as
        :func:`~waymarks.store.claim_subjects.bearing` looks them up), and ``norms``,
        ``keys`` and polarity ``bases`` of the items, each answered with its prefix
        (``n:``, ``y:``, ``b:``; a subject key is its own). A plan asks it once for all its
        team items, then looks up only those whose facets some claim here has: each one
        was looked up alone (four statements a team item, 80k a plan at 20k of them)."""
        from waymarks.store import claim_subjects

        return claim_subjects.present(self.db, partitions, terms, norms, keys, bases)

    def recall_index(self) -> RecallIndex:
        """The recall index over this projection."""
        return RecallIndex(self.db, epoch=self.epoch)

    # -- sources and checkpoints ----------------------------------------------------

    def has_sources(self) -> bool:
        """Whether any ledger was ever indexed (a new or deleted database has none)."""
        return self.db.execute("SELECT 1 FROM sources LIMIT 1").fetchone() is not None

    def source_paths(self) -> list[str]:
        """The file every indexed session was last read from."""
        return [str(path) for (path,) in self.db.execute("SELECT path FROM sources")]

    def known_sources(self, project: str) -> list[KnownSource]:
        """The indexed session files of a project, with their checkpoints: kept, as
        verified, while nothing changes (:mod:`waymarks.store.epoch`; every read asks,
        and reading and verifying 2,000 rows was most of a plan beside as many sessions)."""
        token = self.epoch.token()
        kept = self._known
        if kept is not None and token is not None and kept[:2] == (project, token):
            return list(kept[2])
        known = []
        for row in self.db.execute(f"SELECT {SOURCE_FIELDS}, checksum, size, mtime_ns,"
                                   " status, ctime_ns FROM sources WHERE project = ?",
                                   (project,)):
            verify_source(row[:9])
            sid, path, _cwd, offset, lines, entries, fingerprint = row[:7]
            known.append(KnownSource(sid, path, offset, lines, entries, fingerprint, *row[9:]))
        self._known = None if token is None else (project, token, tuple(known))
        return known

    def source_status(self, session_id: str) -> str | None:
        row = self.db.execute("SELECT status FROM sources WHERE session_id = ?",
                              (session_id,)).fetchone()
        return None if row is None else str(row[0])

    def is_project_source(self, session_id: str, project: str) -> bool:
        return self.db.execute("SELECT 1 FROM sources WHERE session_id = ? AND project = ?",
                               (session_id, project)).fetchone() is not None

    def project_sources(self, project: str, limit: int
                        ) -> list[tuple[str, str, str, str | None, int, int, bool, int]]:
        return queries.project_sources(self.db, project, limit)

    def source_path(self, session_id: str) -> str | None:
        return queries.source_path(self.db, session_id)

    def sessions_indexed_at(self, path: str, other_than: str) -> list[str]:
        return queries.sessions_indexed_at(self.db, path, other_than)

    def source_standing(self, session_id: str) -> tuple[str, str | None, bool] | None:
        return queries.source_standing(self.db, session_id)

    def entry_effect(self, session_id: str, entry_id: str) -> tuple[str, str | None] | None:
        return queries.entry_effect(self.db, session_id, entry_id)

    def checkpoint_of(self, session_id: str) -> tuple[str, int, int, int, str] | None:
        """Where a session was indexed to: (path, offset, lines, entries, fingerprint)."""
        row = self.view.source_row(session_id)  # (kept inside a write transaction)
        return None if row is None else queries.checkpoint_in(row)

    def entry_index(self, session_id: str, entries: int) -> entries_index.EntryIndex | None:
        """The index of a session's first ``entries`` entries, if the projection holds them
        all (see :mod:`waymarks.store.entries`)."""
        if entries <= 0 or entries_index.indexed(self.db, session_id) < entries:
            return None
        return entries_index.EntryIndex(self.db, session_id, entries)

    def index_entries(self, session: SessionLog, upto: int) -> None:
        """Complete a session's entry index up to its checkpoint from a reader of the
        whole ledger (a database written before the index existed; in a transaction)."""
        entries_index.record(self.db, session, upto)

    def health(self) -> dict[str, Any]:
        """Checkpoints against files, anomalies, the whole-database check."""
        from waymarks.store.health import health_report

        return health_report(self.db)

    # -- the last plan's manifest ---------------------------------------------------

    def last_manifest(self) -> dict[str, Any] | None:
        return stored_manifest(self.db)

    def save_manifest(self, manifest: dict[str, Any], shared: int = 0,
                      head: Sequence[Any] | None = None) -> None:
        """Keep a plan's manifest (call inside a transaction). It changes nothing a reader
        keeps, so the change token stays (:meth:`~waymarks.store.epoch.Epoch.quiet`).

        ``shared``: how many of its first entries are likely the last plan's too (the
        pins'). They are kept in a row of their own, ``manifest_head``, written only when
        they changed: rewriting them with every plan (~15 KB for 50 pins, spilling into
        overflow pages) wrote ~9 pages of WAL per plan, and the checkpoints that copy them
        back slowed the plans beside them. The manifest row counts them
        (:data:`~waymarks.store.integrity.SHARED_ENTRIES`), and both rows change in one
        transaction, so whichever process wrote last, they belong together. The row is
        compared with them in SQL (another process may have written other pins' since),
        and their encoding is this connection's last while they are equal.

        ``head``: those first entries as the planner's values instead (each with
        ``to_json()``, equal only when their JSON is), ``manifest``'s entries then the rest
        only: compared as they are, their JSON is made and encoded only when they changed
        (every entry's dict a plan before: 5.76 -> 5.45 M instructions a plan at 1k memories)."""
        entries = manifest["entries"]
        if head is None:
            shared = max(0, min(shared, len(entries)))
            first: Any = entries[:shared]
            rest = entries[shared:]
        else:
            first, shared, rest = tuple(head), len(head), entries
        with self.epoch.quiet():
            if shared:
                kept = self._manifest_head
                if kept is None or kept[0] != first:
                    made = first if head is None else [e.to_json() for e in first]
                    kept = self._manifest_head = (first,
                                                  _MANIFEST_ENCODER.encode(made).decode())
                self._set_meta("manifest_head", kept[1])
                manifest = {**manifest, "entries": rest, SHARED_ENTRIES: shared}
            self._set_meta("last_manifest", _MANIFEST_ENCODER.encode(manifest).decode())

    def _set_meta(self, name: str, value: str) -> None:
        """Set a ``meta`` row; one that holds ``value`` already is not written again."""
        self.db.execute("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
                        " DO UPDATE SET value = excluded.value"
                        " WHERE value IS NOT excluded.value", (name, value))
