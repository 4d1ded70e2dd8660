"""Embeddings of recall records, stored with the projection (migration 12).

A vector is derived data, like the rest of ``waymarks.db``: never canonical, rebuilt by
embedding the records again (``waymarks index --semantic``, or as items are written). A
row is keyed by the recall record's item ID and names the model that made it and a hash of
the text it was made from; a vector of another model or text is *stale* and is simply not
used (that record is scored lexically), never an error.

The table survives a reset of the recall index on purpose: item IDs are stable across a
rebuild, so a rebuild does not throw away minutes of embedding work; rows of records that
no longer exist are never read (reads join ``recall_records``).

Which records miss a current vector is asked on every wake and wait check of the background
worker and before each of its batches; comparing every stored text's hash made that cost
~55 ms of CPU at 10k records when nothing was missing. So each model has a *watermark* in
``meta`` (``vectors_done:MODEL``): every record up to that row ID has a current vector of
the model (or was set aside as one that cannot be embedded: the ``skip`` of
:meth:`VectorStore.missing`), and only the records past it are looked at. It holds
because records are only appended (row IDs grow) until a reset of the index, which
deletes the watermarks with the records (:func:`waymarks.store.recall_index.reset`), and
every write of a vector goes through :meth:`VectorStore.put` (which lowers it below a
record given a vector of another text, and drops other models') or
:meth:`VectorStore.drop_damaged` (which drops them all); :meth:`VectorStore.settle` moves
it forward.

Every row carries a checksum (:mod:`waymarks.store.integrity`), checked when it is read.
A row that fails it is damage to that row alone: it is left out of the read (its record is
scored lexically) and named in :attr:`VectorStore.damaged`, for the service to drop
(:meth:`VectorStore.drop_damaged`) so that the backfill embeds that record again. So is a
row whose checksum is right but whose vector is no unit vector of the embedder's length (a
faulty embedder, a hand-made row): the query's matrix leaves it out and names it, and
:meth:`VectorStore.drop_damaged` drops it too (:mod:`waymarks.semantic.matrix`); left as
it was, nothing saw it missing, and its record was scored lexically for ever. Raising
:class:`~waymarks.store.integrity.ProjectionDamaged` instead set the whole database aside
and rebuilt it from the ledgers, every vector with it: one flipped byte cost ~328 s of CPU
to embed 10k claims again. Damage to the table itself (missing, another schema) is still
the database's, found on open.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Final

import msgspec

from waymarks.core.digests import blake2b
from waymarks.recall.scoring import Candidate
from waymarks.store.integrity import (
    VECTORS_DONE,
    ProjectionDamaged,
    checksum,
    decoding,
    integer_meta,
    require,
    valid_status,
    verify_blob_row,
)
from waymarks.store.recall_index import RECORD_COLUMNS

_FIELDS_DECODER: Final = msgspec.json.Decoder(dict[str, list[str]])
#: the meta name of :meth:`VectorStore.rewrites`
REWRITES: Final = "vectors_rewritten"
#: the meta name of :meth:`VectorStore.kept_failed`
KEPT_FAILED: Final = "vectors_file_failed"
#: the meta name of :meth:`VectorStore.kept_written`
KEPT_WRITTEN: Final = "vectors_file_written"
#: the meta name prefix of :meth:`VectorStore.kept_sum` (then the model)
KEPT_SUM: Final = "vectors_sum:"
#: records read per statement
CHUNK: Final = 500
#: the records a session may see (``?2``: its ID, ``None`` for every record; ``?3``: its
#: trusted project): its own and its project's items
_SEEN: Final = ("(?2 IS NULL OR (i.scope = 'project' AND i.project_path = ?3)"
                " OR (i.scope != 'project' AND i.session_id = ?2))")


def create_tables(db: sqlite3.Connection) -> None:
    """Schema of the stored embeddings (migration 12)."""
    db.execute(
        "CREATE TABLE recall_vectors (item_id TEXT PRIMARY KEY, model TEXT NOT NULL,"
        " text_hash TEXT NOT NULL, vector BLOB NOT NULL, checksum INTEGER NOT NULL) STRICT")


def _sound(row: Sequence[object]) -> bool:
    """Whether a row selected as (item_id, model, text_hash, vector, checksum) is as
    written."""
    try:
        verify_blob_row(row, "recall_vectors")
    except ProjectionDamaged:
        return False
    return True


def _damaged(row: Sequence[object], model: str | None,
             usable: Callable[[bytes], bool] | None) -> bool:
    """Whether a row selected as (item_id, model, text_hash, vector, checksum) fails its
    checksum, or is ``model``'s and its vector not ``usable``."""
    vector = row[3]  # bytes once sound (the checksum covers its type)
    return not _sound(row) or (usable is not None and row[1] == model
                               and isinstance(vector, bytes) and not usable(vector))


def text_hash(text: str) -> str:
    return blake2b(text.encode(), digest_size=12).hexdigest()


#: no record set aside
_NONE: Final[Mapping[str, str]] = MappingProxyType({})


def _skipped(skip: Mapping[str, str], item_id: str, text: str) -> bool:
    """Whether the record is set aside with this text (``skip``: item ID -> text hash)."""
    return item_id in skip and skip[item_id] == text_hash(text)


class VectorStore:
    """Reading and writing the embeddings of one projection's recall records."""

    def __init__(self, db: sqlite3.Connection, *, items_backed: bool = True) -> None:
        self.db = db
        self.items_backed = items_backed
        #: item IDs whose rows :meth:`vectors` found damaged (and left out)
        self.damaged: list[str] = []

    def put(self, model: str, rows: Iterable[tuple[str, str, bytes]]) -> int:
        """Store ``(item_id, text, vector)`` rows made by ``model`` (replacing older ones);
        returns how many. Call inside a transaction."""
        values = []
        texts: dict[str, str] = {}
        for item_id, text, vector in rows:
            fields = (item_id, model, text_hash(text))
            values.append((*fields, vector, checksum(fields, vector)))
            texts[item_id] = text
        if self._below_held(model, list(texts)):
            self._bump_rewrites()
        self.db.executemany(
            "INSERT INTO recall_vectors (item_id, model, text_hash, vector, checksum)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (item_id) DO UPDATE SET"
            " model = excluded.model, text_hash = excluded.text_hash,"
            " vector = excluded.vector, checksum = excluded.checksum", values)
        self._forget_done(keep=model)  # another model's vectors may have been replaced
        self.forget_sums(keep=model)
        before = done = self.done(model)
        ids = list(texts)
        for start in range(0, len(ids) if done else 0, CHUNK):
            chunk = ids[start:start + CHUNK]
            for rowid, item_id, text in self.db.execute(
                    "SELECT rowid, item_id, text FROM recall_records WHERE rowid <= ? AND"
                    f" item_id IN ({','.join('?' * len(chunk))})", (done, *chunk)):
                if text != texts[item_id]:  # a vector of another text: not current
                    done = min(done, int(rowid) - 1)
        if done < before:
            self._set_done(model, done)
        return len(values)

    def rewrites(self) -> int:
        """How many times a vector was stored for a record at or below the last record
        that already had one of its model (one indexed read): a long-lived process's
        copy (``VectorMemo``), which reads only past its last record, starts over when it
        changes. Without it, a claim whose damaged vector was dropped and embedded again
        stayed lexical in the Claude Code helper and Pi's bridge until they restarted."""
        return integer_meta(self.db, REWRITES) or 0

    def _below_held(self, model: str, ids: Sequence[str]) -> bool:
        """Whether one of ``ids``' records lies at or below the last record with a
        vector of ``model`` (the worker embeds oldest first, so usually none does)."""
        if not ids:
            return False
        (top,) = self.db.execute(
            "SELECT coalesce(max(r.rowid), 0) FROM recall_vectors v JOIN recall_records r"
            " ON r.item_id = v.item_id WHERE v.model = ?", (model,)).fetchone()
        for start in range(0, len(ids), CHUNK):
            chunk = list(ids[start:start + CHUNK])
            if self.db.execute(
                    "SELECT 1 FROM recall_records WHERE rowid <= ? AND item_id IN"
                    f" ({','.join('?' * len(chunk))}) LIMIT 1", (top, *chunk)).fetchone():
                return True
        return False

    def _bump_rewrites(self) -> None:
        self.db.execute("INSERT INTO meta (name, value) VALUES (?, '1') ON CONFLICT (name)"
                        " DO UPDATE SET value = CAST(value AS INTEGER) + 1", (REWRITES,))

    def stamp(self) -> tuple[int, ...]:
        """A fingerprint of the stored rows: the index's generation (a reset gives the
        records new row IDs) and the rows' count, last row ID and sum of checksums (a
        checksum covers a row's item ID, model, text hash and vector, so any row written,
        replaced or deleted, through Waymarks or not, changes it; a row whose bytes were
        damaged in place does not, and the copy made before holds it sound). A copy of
        the vectors read at one stamp holds what a read would hold at the same stamp
        (records are only appended: a row ID's text never changes), so a one-shot process
        reads that copy instead of checking every row again. One pass over the table
        without Python per row: ~9 ms of CPU at 10k rows, against ~75 ms for the read."""
        count, top, total = self.db.execute(
            "SELECT count(*), coalesce(max(rowid), 0), coalesce(sum(checksum), 0)"
            " FROM recall_vectors").fetchone()
        return (integer_meta(self.db, "recall_generation") or 0, int(count), int(top),
                int(total))

    def kept_failed(self) -> tuple[str, float] | None:
        """Why the file of kept vectors could not be written last, and when
        (``time.time()``'s clock): ``None`` when it was written since, or never failed."""
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (KEPT_FAILED,)
                              ).fetchone()
        code, _, at = str(row[0]).partition(" ") if row is not None else ("", "", "")
        try:
            return (code, float(at)) if row is not None else None
        except ValueError:  # (not one this wrote: no mark)
            return None

    def note_kept_failed(self, code: str, at: float) -> None:
        """Keep ``code``, why the file of kept vectors could not be written at ``at``. Call
        inside a transaction."""
        self._set_text(KEPT_FAILED, f"{code} {at}")

    def kept_written(self) -> list[int] | None:
        """What told the file of kept vectors apart when it was last written whole (see
        :func:`waymarks.semantic.sidecar.identity`), or ``None``."""
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (KEPT_WRITTEN,)
                              ).fetchone()
        fields = str(row[0]).split() if row is not None else []
        return [int(n) for n in fields] if fields and all(
            n.isascii() and n.isdigit() for n in fields) else None

    def note_kept_written(self, identity: Sequence[int] | None) -> None:
        """The file of kept vectors was written whole, as ``identity`` tells it (``None``:
        it cannot be told); a failure kept before is forgotten. Call inside a
        transaction."""
        self.db.execute("DELETE FROM meta WHERE name = ?", (KEPT_FAILED,))
        if identity is None:
            self.db.execute("DELETE FROM meta WHERE name = ?", (KEPT_WRITTEN,))
        else:
            self._set_text(KEPT_WRITTEN, " ".join(map(str, identity)))

    def _set_text(self, name: str, value: str) -> None:
        self.db.execute("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
                        " DO UPDATE SET value = excluded.value", (name, value))

    def kept_sum(self, model: str) -> tuple[tuple[int, int, int, int], bytes] | None:
        """The sum of ``model``'s current vectors kept with the projection
        (:meth:`note_sum`): ``((index generation, rewrites, watermark, count), the float64
        total's bytes)``, or ``None`` (none kept, or not one this wrote). It holds the
        records up to the watermark while the generation and :meth:`rewrites` are those
        it names: records are only appended, and a vector stored below a record that had
        one bumps the rewrites."""
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (KEPT_SUM + model,)
                              ).fetchone()
        fields = str(row[0]).split(" ") if row is not None else []
        if len(fields) != 5 or not all(n.isascii() and n.isdigit() for n in fields[:4]):
            return None
        try:
            total = bytes.fromhex(fields[4])
        except ValueError:
            return None
        generation, rewrites, watermark, count = (int(n) for n in fields[:4])
        return (generation, rewrites, watermark, count), total

    def note_sum(self, model: str, key: tuple[int, int, int, int], total: bytes) -> None:
        """Keep the sum of ``model``'s current vectors (:meth:`kept_sum`). Call inside a
        transaction."""
        self._set_text(KEPT_SUM + model, " ".join([*map(str, key), total.hex()]))

    def forget_sums(self, keep: str | None = None) -> None:
        """Delete the kept sums (but ``keep``'s model's)."""
        self.db.execute("DELETE FROM meta WHERE substr(name, 1, ?) = ? AND name IS NOT ?",
                        (len(KEPT_SUM), KEPT_SUM, None if keep is None else KEPT_SUM + keep))

    def database_file(self) -> str:
        """The file of the database (``""`` for one in memory)."""
        return str(next(row[2] for row in self.db.execute("PRAGMA database_list")
                        if row[1] == "main"))

    def visible_records(self, visible_to: tuple[str, str | None] | None = None, *,
                        active_only: bool = False, among: Sequence[str] | None = None
                        ) -> list[str]:
        """The item IDs of the records :meth:`vectors` would read for a session (``None``:
        every one), without reading a vector; ``among``: of those IDs only."""
        session_id, project = visible_to if visible_to is not None else (None, None)
        alive = " AND i.status = 'active'" if active_only else ""
        # (a few IDs: from their records, each item looked up; else from the covering index
        # of every item the session may see, which the planner also took for a few: 2 ms)
        join = "JOIN" if among is None else "CROSS JOIN"
        query = (f"SELECT r.item_id FROM recall_records r {join} items i ON i.id = r.item_id"
                 f" WHERE {_SEEN}{alive}")
        if among is None:
            return [str(item_id) for (item_id,) in self.db.execute(
                query, (None, session_id, project))]
        found: list[str] = []
        for start in range(0, len(among), CHUNK):
            chunk = list(among[start:start + CHUNK])
            found += [str(item_id) for (item_id,) in self.db.execute(
                f"{query} AND r.item_id IN ({','.join('?' * len(chunk))})",
                (None, session_id, project, *chunk))]
        return found

    def present(self) -> bool:
        """Whether any vector is stored at all (one indexed probe): a projection without
        any, e.g. just rebuilt and not embedded yet, lets a one-shot process skip loading
        the embedder."""
        return self.db.execute("SELECT 1 FROM recall_vectors LIMIT 1").fetchone() is not None

    def missing(self, model: str, limit: int, skip: Mapping[str, str] = _NONE
                ) -> list[tuple[str, str]]:
        """Up to ``limit`` records ``(item_id, text)`` with no current vector of ``model``
        (none, another model's, or another text's), oldest first; only records past the
        model's watermark are looked at (module docstring). ``skip``: records set aside
        (item ID -> the hash of the text that could not be embedded), left out while
        their text is that one."""
        done = self.done(model)
        rows = self.db.execute(
            "SELECT r.item_id, r.text, v.model, v.text_hash FROM recall_records r"
            " LEFT JOIN recall_vectors v ON v.item_id = r.item_id"
            " WHERE r.rowid > ? AND (v.item_id IS NULL OR v.model != ?) ORDER BY r.rowid"
            " LIMIT ?", (done, model, limit + len(skip))).fetchall()
        stale_text = self.db.execute(
            "SELECT r.item_id, r.text, v.text_hash FROM recall_records r"
            " JOIN recall_vectors v ON v.item_id = r.item_id WHERE r.rowid > ? AND v.model = ?"
            " ORDER BY r.rowid", (done, model)).fetchall() if len(rows) < limit else []
        out = [(str(r[0]), str(r[1])) for r in rows]
        out += [(str(r[0]), str(r[1])) for r in stale_text if r[2] != text_hash(r[1])]
        return [row for row in out if not _skipped(skip, *row)][:limit]

    def done(self, model: str) -> int:
        """The watermark of ``model``: every record up to this row ID has a current vector
        of it (0: none known)."""
        return integer_meta(self.db, VECTORS_DONE + model) or 0

    def recheck_done(self, model: str, skip: Mapping[str, str] = _NONE) -> bool:
        """Forget ``model``'s watermark if a record at or below it has no vector of the
        model (a row deleted by hand or by another program: nothing else deletes one
        without lowering it); whether it did. A full pass, for ``index --semantic``, which
        otherwise reported such records neither missing nor embedded for ever. Call
        inside a transaction."""
        done = self.done(model)
        if not done or not any(not _skipped(skip, str(item_id), str(text)) for item_id, text
                               in self.db.execute(
                "SELECT r.item_id, r.text FROM recall_records r LEFT JOIN recall_vectors v"
                " ON v.item_id = r.item_id AND v.model = ? WHERE r.rowid <= ?"
                " AND v.item_id IS NULL LIMIT ?", (model, done, len(skip) + 1))):
            return False
        self._forget_done()
        return True

    def settle(self, model: str, skip: Mapping[str, str] = _NONE) -> int:
        """Move ``model``'s watermark past the records after it that have a current vector
        of it (or are set aside: ``skip``, as :meth:`missing` takes it), up to the first
        that has not; the watermark. Call inside a transaction (a write only when it
        moves; after a batch it looks at about that batch's records, after a reset at
        every record once)."""
        done = start = self.done(model)
        rows = self.db.execute(
            "SELECT r.rowid, r.item_id, r.text, v.model, v.text_hash FROM recall_records r"
            " LEFT JOIN recall_vectors v ON v.item_id = r.item_id WHERE r.rowid > ?"
            " ORDER BY r.rowid", (done,))
        for rowid, item_id, text, vector_model, digest in rows:
            if (vector_model != model or digest != text_hash(text)) and not _skipped(
                    skip, item_id, text):
                break
            done = int(rowid)
        rows.close()
        if done != start:
            self._set_done(model, done)
        return done

    def _set_done(self, model: str, rowid: int) -> None:
        self.db.execute("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
                        " DO UPDATE SET value = excluded.value", (VECTORS_DONE + model, str(rowid)))

    def _forget_done(self, keep: str | None = None) -> None:
        """Delete the watermarks (but ``keep``'s)."""
        self.db.execute("DELETE FROM meta WHERE substr(name, 1, ?) = ? AND name IS NOT ?",
                        (len(VECTORS_DONE), VECTORS_DONE,
                         None if keep is None else VECTORS_DONE + keep))

    def counts(self, model: str) -> tuple[int, int]:
        """(records, records with a vector of ``model``) (text changes not counted)."""
        records = int(self.db.execute("SELECT count(*) FROM recall_records").fetchone()[0])
        done = int(self.db.execute(
            "SELECT count(*) FROM recall_records r JOIN recall_vectors v"
            " ON v.item_id = r.item_id WHERE v.model = ?", (model,)).fetchone()[0])
        return records, done

    def other_models(self, model: str) -> dict[str, int]:
        """Records whose stored vector is another model's (by that model): made by an
        engine before an upgrade, they are not used, and the records are embedded again."""
        return {str(other): int(count) for other, count in self.db.execute(
            "SELECT v.model, count(*) FROM recall_records r JOIN recall_vectors v"
            " ON v.item_id = r.item_id WHERE v.model != ? GROUP BY v.model ORDER BY v.model",
            (model,))}

    def records_among(self, ids: Iterable[str]) -> int:
        """How many of ``ids`` are recall records."""
        wanted, found = list(ids), 0
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start:start + CHUNK]
            found += int(self.db.execute(
                "SELECT count(*) FROM recall_records WHERE item_id IN"
                f" ({','.join('?' * len(chunk))})", chunk).fetchone()[0])
        return found

    def vectors(self, model: str, visible_to: tuple[str, str | None] | None = None,
                after: int = 0, *, active_only: bool = False) -> list[tuple[int, str, bytes]]:
        """``(record rowid, item_id, vector)`` of current ``model`` vectors of records past
        rowid ``after`` (that a session may see: its own and its trusted project's items;
        ``active_only``: only the records in effect, as a query for claims in effect ranks
        its lexical candidates: a claim corrected 30 times had its retired versions take
        the nearest places). Vectors whose text hash no longer matches are left out
        (scored lexically), and so are damaged rows, whose item IDs are added to
        :attr:`damaged`."""
        if self.items_backed:
            session_id, project = visible_to if visible_to is not None else (None, None)
            alive = " AND i.status = 'active'" if active_only else ""
            rows = self.db.execute(
                "SELECT r.rowid, r.text, v.item_id, v.model, v.text_hash, v.vector, v.checksum"
                " FROM recall_records r JOIN recall_vectors v ON v.item_id = r.item_id"
                " JOIN items i ON i.id = r.item_id WHERE v.model = ?1 AND r.rowid > ?4"
                f" AND {_SEEN}{alive} ORDER BY r.rowid",
                (model, session_id, project, after)).fetchall()
        else:
            alive = " AND r.status = 'active'" if active_only else ""
            rows = self.db.execute(
                "SELECT r.rowid, r.text, v.item_id, v.model, v.text_hash, v.vector, v.checksum"
                " FROM recall_records r JOIN recall_vectors v ON v.item_id = r.item_id"
                f" WHERE v.model = ? AND r.rowid > ?{alive} ORDER BY r.rowid",
                (model, after)).fetchall()
        out = []
        for rowid, text, *row in rows:
            if not _sound(row):
                self.damaged.append(str(row[0]))
            elif row[2] == text_hash(text):
                out.append((int(rowid), str(row[0]), bytes(row[3])))
        return out

    def drop_damaged(self, ids: Sequence[str], model: str | None = None,
                     usable: Callable[[bytes], bool] | None = None) -> int:
        """Delete the rows of ``ids`` that are still damaged (a worker may have replaced
        one meanwhile): failing their checksum, or ``model``'s vectors that are not
        ``usable`` (not a unit vector of its length: the query's matrix left them out);
        how many. Their records are then missing a vector, and embedded again
        (:meth:`missing`). Call inside a transaction."""
        dropped = 0
        for start in range(0, len(ids), CHUNK):
            chunk = list(ids[start:start + CHUNK])
            rows = self.db.execute(
                "SELECT rowid, item_id, model, text_hash, vector, checksum FROM recall_vectors"
                f" WHERE item_id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
            gone = [(rowid,) for rowid, *row in rows if _damaged(row, model, usable)]
            self.db.executemany("DELETE FROM recall_vectors WHERE rowid = ?", gone)
            dropped += len(gone)
        if dropped:
            self._forget_done()  # their records no longer have a vector
            self.forget_sums()  # (summed before the bytes went bad: summed again)
        return dropped

    def unsound(self, model: str | None = None,
                usable: Callable[[bytes], bool] | None = None) -> list[str]:
        """The item IDs of every stored row that :meth:`drop_damaged` would drop (without
        ``usable``: the rows that fail their checksum). A full read of the table, ~60 ms of
        CPU at 10k rows: for ``health`` and ``index --semantic``, never the recall path
        (which checks the rows it reads)."""
        return [str(row[0]) for row in self.db.execute(
            "SELECT item_id, model, text_hash, vector, checksum FROM recall_vectors")
            if _damaged(row, model, usable)]

    def candidates(self, ids: Sequence[str]) -> list[Candidate]:
        """The recall records of ``ids`` as candidates (the ones the lexical side did not
        find), checked as the index checks them; unknown IDs are skipped. The caller has
        already kept only IDs the session may see (:meth:`vectors`)."""
        out: list[Candidate] = []
        status_column = "i.status" if self.items_backed else "r.status"
        join = " LEFT JOIN items i ON i.id = r.item_id" if self.items_backed else ""
        for start in range(0, len(ids), CHUNK):
            chunk = list(ids[start:start + CHUNK])
            rows = self.db.execute(
                f"SELECT {RECORD_COLUMNS}, {status_column} FROM recall_records r{join}"
                f" WHERE r.item_id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
            for row in rows:
                verify_blob_row(row[:-1], "recall_records")
                item_id, kind, _stored, origin, created, text, count, evidence, source, fields = (
                    row[:10])
                require(row[-1] is not None, "a recall record without its item")
                status = valid_status(row[-1]) if self.items_backed else str(row[-1])
                with decoding("a recall record"):
                    parts = _FIELDS_DECODER.decode(fields)
                out.append(Candidate(
                    id=item_id, kind=kind, status=status, origin=origin, created_at=created,
                    text=text, body=frozenset(parts["body"]), sequence=tuple(parts["body"]),
                    aliases=frozenset(parts["aliases"]), quoted=frozenset(parts["quoted"]),
                    origin_features=frozenset(parts["origin"]), body_count=count,
                    evidence=evidence, source=source))
        return out
