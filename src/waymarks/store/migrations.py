"""Numbered schema migrations for the SQLite projection.

Each step is small, named, runs in its own transaction and is recorded in
``schema_migrations``. A blank database is not taken through them one by one: the steps
run once per process on an in-memory database, and what they leave there (objects and
rows) is created in one transaction (a new home's database in about 5 ms instead of 17).
A database whose recorded version is newer than the newest step here was written by a
later release: it is refused, never downgraded. Recorded versions are always 1..N without
a gap; anything else is a damaged table, not a newer release (a flipped bit must not pass
for "upgrade Waymarks").

The whole database is a projection of the session ledgers, so a step may drop and
recreate derived tables freely; what it must never do is touch a ledger file.
"""

from __future__ import annotations

import functools
import sqlite3
from collections import Counter
from collections.abc import Callable

import msgspec

from waymarks.store.integrity import ProjectionDamaged


class SchemaTooNewError(Exception):
    """The database was written by a newer Waymarks; upgrade rather than lose its state."""


class Migration(msgspec.Struct, frozen=True):
    version: int
    name: str
    apply: Callable[[sqlite3.Connection], None]


def _run_script(db: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the step's open transaction; run statement by statement
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _m001_initial(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE sources (
            session_id TEXT PRIMARY KEY,
            path TEXT NOT NULL,
            cwd TEXT NOT NULL,
            byte_offset INTEGER NOT NULL,
            lines INTEGER NOT NULL,
            entries INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE mutations (
            seq INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            entry_index INTEGER NOT NULL,
            timestamp_ms INTEGER NOT NULL,
            mutation_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            operation TEXT NOT NULL,
            target_id TEXT,
            payload BLOB NOT NULL,
            effect TEXT NOT NULL,
            note TEXT
        ) STRICT;
        CREATE UNIQUE INDEX mutations_entry ON mutations (session_id, entry_id);

        CREATE TABLE items (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            kind TEXT NOT NULL,
            scope TEXT NOT NULL,
            partition TEXT NOT NULL,
            project_path TEXT,
            key TEXT,
            classification TEXT,
            text TEXT NOT NULL,
            norm TEXT NOT NULL,
            polarity_base TEXT,
            polarity_sign INTEGER NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            superseded_by TEXT,
            supersedes TEXT,
            conflicts_with TEXT,
            session_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            branch_leaf_id TEXT,
            created_at INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            record BLOB NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX items_id ON items (id);
        CREATE INDEX items_active_norm ON items (kind, partition, norm)
            WHERE status = 'active';
        CREATE INDEX items_active_key ON items (kind, partition, key)
            WHERE status = 'active' AND key IS NOT NULL;
        CREATE INDEX items_active_polarity ON items (kind, partition, polarity_base)
            WHERE status = 'active' AND polarity_base IS NOT NULL;
        CREATE INDEX items_by_session ON items (session_id, kind, seq);

        CREATE TABLE anomalies (
            session_id TEXT NOT NULL,
            line INTEGER NOT NULL,
            entry_id TEXT,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL,
            PRIMARY KEY (session_id, line)
        ) STRICT;

        CREATE VIRTUAL TABLE items_fts USING fts5 (
            text, key, content = 'items', content_rowid = 'rowid',
            tokenize = 'unicode61 remove_diacritics 2'
        );

        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
        """
    )


def _m002_recall_index(db: sqlite3.Connection) -> None:
    from waymarks.store.recall_index import create_tables

    create_tables(db)


def _m003_project_index(db: sqlite3.Connection) -> None:
    db.execute("CREATE INDEX items_by_project ON items (project_path, kind, seq)"
               " WHERE project_path IS NOT NULL")


def _m004_source_fingerprint(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE sources ADD COLUMN fingerprint TEXT NOT NULL DEFAULT ''")


def _m005_source_exclusions(db: sqlite3.Connection) -> None:
    # Local policy, not derived state: a rebuild keeps it, deleting the database drops it.
    db.execute(
        "CREATE TABLE source_exclusions (session_id TEXT PRIMARY KEY, reason TEXT,"
        " excluded_at INTEGER NOT NULL) STRICT"
    )


def _m006_cross_session(db: sqlite3.Connection) -> None:
    # Per-session checkpoints for project memory from sibling files: what the file looked
    # like when last checked (size, mtime), whose project it speaks for, and whether it is
    # available; and where on its tree each mutation was written. Existing rows are kept.
    for column in ("project TEXT NOT NULL DEFAULT ''", "size INTEGER NOT NULL DEFAULT 0",
                   "mtime_ns INTEGER NOT NULL DEFAULT 0",
                   "status TEXT NOT NULL DEFAULT 'available'", "status_detail TEXT",
                   "checked_at INTEGER NOT NULL DEFAULT 0"):
        db.execute(f"ALTER TABLE sources ADD COLUMN {column}")
    db.execute("UPDATE sources SET project = cwd")
    db.execute("CREATE INDEX sources_by_project ON sources (project)")
    db.execute("ALTER TABLE mutations ADD COLUMN parent_id TEXT")


def _m008_entries(db: sqlite3.Connection) -> None:
    # Empty at first: each session's index fills the next time it is read whole (or at a
    # rebuild); until then its sessions open the old way, by reading the ledger.
    from waymarks.store.entries import create_table

    create_table(db)


def _m007_checksums(db: sqlite3.Connection) -> None:
    # Damage detection (store/integrity.py): a checksum on every row that is read back, and
    # the count of items each listing must return. Rows of the older schema get theirs
    # here, computed from what they hold now; the recall index is derived on demand, so it
    # is emptied and re-indexed rather than re-hashed.
    from waymarks.store import recall_index
    from waymarks.store.integrity import (
        ITEM_COLUMNS,
        MUTATION_FIELDS,
        checksum,
        groups_of,
        item_checksum,
        write_groups,
    )

    for table in ("items", "mutations", "recall_records"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE TABLE item_groups (kind TEXT NOT NULL, grp TEXT NOT NULL,"
               " count INTEGER NOT NULL, PRIMARY KEY (kind, grp)) STRICT, WITHOUT ROWID")
    columns = ITEM_COLUMNS.removesuffix(", checksum")
    counts: Counter[tuple[str, str]] = Counter()
    for rowid, *row in db.execute(f"SELECT rowid, {columns} FROM items").fetchall():
        db.execute("UPDATE items SET checksum = ? WHERE rowid = ?", (item_checksum(row), rowid))
        counts.update(groups_of(row[1], row[16], row[2], row[4]))
    write_groups(db, counts)
    for rowid, *row in db.execute(f"SELECT rowid, {MUTATION_FIELDS} FROM mutations").fetchall():
        db.execute("UPDATE mutations SET checksum = ? WHERE rowid = ?",
                   (checksum(row[:-1], row[-1]), rowid))
    recall_index.reset(db)


def _m009_evolution(db: sqlite3.Connection) -> None:
    # Memory evolution (seed 004): the projection of the evolution ledger. New tables only;
    # pins and memory rows are not touched.
    from waymarks.store.evolution_schema import create_tables

    create_tables(db)


def _m010_evolution_events(db: sqlite3.Connection) -> None:
    # Memory evolution II: events with before/after states, feedback receipts, the
    # confirmation stamp and feedback slots. The projection is emptied so the next sync
    # folds the whole evolution ledger again (it is canonical; nothing is lost).
    from waymarks.store.evolution_schema import add_events_tables

    add_events_tables(db)


def _m011_evolution_analysis(db: sqlite3.Connection) -> None:
    # Memory evolution II (ranking speed): learned claims' analysis persisted (a cache).
    from waymarks.store.evolution_schema import add_analysis_table

    add_analysis_table(db)


def _m012_recall_vectors(db: sqlite3.Connection) -> None:
    # Hybrid recall (issue 20): embeddings of recall records, derived and rebuildable.
    from waymarks.store.recall_vectors import create_tables

    create_tables(db)


def _m013_mutations_by_target(db: sqlite3.Connection) -> None:
    # An item's history (``memory show``) and when each listed item last changed were read
    # by scanning every mutation: ~0.5 s for one ``memory show`` at a million. Covering:
    # the newest applied change of an item is read from the index alone.
    db.execute("CREATE INDEX mutations_by_target ON mutations (target_id, effect, "
               "timestamp_ms)")


def _m014_compactions(db: sqlite3.Connection) -> None:
    # Historical retrieval asks for a session's compaction entries on every plan: they are
    # rare, but finding them read every entry row of the session (10k entries 0.44 ms warm,
    # growing with the ledger). A partial index holds only them.
    db.execute("CREATE INDEX entries_compactions ON entries (session_id, idx)"
               " WHERE compaction = 1")


def _m015_claim_subjects(db: sqlite3.Connection) -> None:
    # A write compared its claim with every active claim's signature: 2.8 s a write at
    # 100k memories. The claims' subject terms, caught up lazily (store.claim_subjects).
    from waymarks.store.claim_subjects import create_tables

    create_tables(db)


def _m016_drop_items_fts(db: sqlite3.Connection) -> None:
    # The first schema's full-text index of item texts was written with every item and
    # rebuilt with every rebuild (2.5 s at a million mutations), and nothing ever read it:
    # recall has its own index (recall_terms), built from the claims' analysed features.
    db.execute("DROP TABLE items_fts")


def _m017_source_checksums(db: sqlite3.Connection) -> None:
    # A damaged checkpoint (a negative offset) made every command fail reading the session
    # file, and one past the end withdrew a healthy session's items as truncated: sources
    # rows carry a checksum too, computed here for the rows as they are now.
    from waymarks.store.integrity import SOURCE_FIELDS, checksum

    db.execute("ALTER TABLE sources ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0")
    for rowid, *row in db.execute(f"SELECT rowid, {SOURCE_FIELDS} FROM sources").fetchall():
        db.execute("UPDATE sources SET checksum = ? WHERE rowid = ?", (checksum(row), rowid))


def _m018_status_free_lookups(db: sqlite3.Connection) -> None:
    # A write's duplicate and conflict lookups went through indexes of active rows only
    # (and a status filter in SQL): a damaged status hid an active claim, and above the
    # whole-database check's size limit a contradicting claim was accepted. The lookups
    # now read every status and judge it on the verified row (store.view).
    for name in ("items_active_norm", "items_active_key", "items_active_polarity"):
        db.execute(f"DROP INDEX IF EXISTS {name}")
    db.execute("CREATE INDEX items_by_norm ON items (kind, partition, norm)")
    db.execute("CREATE INDEX items_by_key ON items (kind, partition, key)"
               " WHERE key IS NOT NULL")
    db.execute("CREATE INDEX items_by_polarity ON items (kind, partition, polarity_base)"
               " WHERE polarity_base IS NOT NULL")


def _m019_entry_checksums(db: sqlite3.Connection) -> None:
    # A damaged entry-index row (a parent, a run) put an entry on the wrong branch, and
    # nothing noticed (health OK): entries rows carry a checksum too, computed here for the
    # rows as they are now.
    from waymarks.store.integrity import ENTRY_FIELDS, checksum

    db.execute("ALTER TABLE entries ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0")
    db.executemany("UPDATE entries SET checksum = ? WHERE session_id = ? AND idx = ?",
                   [(checksum(row), row[0], row[1]) for row in db.execute(
                       f"SELECT {ENTRY_FIELDS} FROM entries").fetchall()])


def _m020_source_ctime(db: sqlite3.Connection) -> None:
    # A sibling file replaced, or edited in place, with its size and mtime kept (cp -p,
    # rsync -t, touch -r) was never opened again: its old items counted while a rebuild
    # read the new ones. The ctime, which no program sets, is compared too; an older row
    # has 0, so its file is checked once (a header, a fingerprint) and noted.
    db.execute("ALTER TABLE sources ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0")


def _m021_key_index_status(db: sqlite3.Connection) -> None:
    # A plan looks up the active claims whose key its request names: by (kind, partition,
    # key) it read the row of every version of a key for its status (a key superseded
    # 10,000 times: 5 ms a plan, 25 ms at 50,000). The status is the index's last column:
    # the active ones are one seek; a write's lookups, which read every status and judge
    # it on the verified row (migration 18), use the index as before.
    db.execute("DROP INDEX IF EXISTS items_by_key")
    db.execute("CREATE INDEX items_by_key ON items (kind, partition, key, status)"
               " WHERE key IS NOT NULL")


def _m022_evolution_postings(db: sqlite3.Connection) -> None:
    # Learned claims' features by feature (a rebuildable cache of their analyses): a
    # one-shot query at 60k learned claims built a corpus of all of them (seconds), past
    # Claude Code's 10 s hook limit on a loaded machine; it now reads its candidates.
    from waymarks.store.evolution_postings import create_table

    create_table(db)


def _m023_hybrid_reads(db: sqlite3.Connection) -> None:
    # A one-shot hybrid recall makes two reads before it compares vectors: which records
    # its session may use (VectorStore.visible_records) scanned every items row, texts and
    # records with them (~11 ms of CPU at 10k memories), and the vectors' fingerprint
    # (VectorStore.stamp: count, last row and sum of checksums) every vector row (~8 ms).
    # Covering indexes: each reads its index alone (~6 and ~1 ms).
    db.execute("CREATE INDEX items_visible ON items (status, scope, project_path,"
               " session_id, id)")
    db.execute("CREATE INDEX recall_vectors_stamp ON recall_vectors (checksum)")


def _m024_given_keys(db: sqlite3.Connection) -> None:
    # Every plan looks up the claims whose explicit key (`--key`) its request names: each
    # run of up to four of its words, ~50 probes of the key index, which holds every
    # claim's key, given or derived from its words, and the request's words slugged first,
    # though a store without `--key` holds no such claim. An item's record names the
    # field ``key`` only when one was given (MemoryItem omits a default, and a quote in a
    # value is escaped): the items holding one, alone, are one probe to tell none apart.
    db.execute("CREATE INDEX items_given_key ON items (kind, partition, status)"
               " WHERE instr(record, X'226b6579223a') > 0")  # the bytes '"key":'


def _m025_recall_frequencies(db: sqlite3.Connection) -> None:
    # A recall's statistics counted each query term's records through fts5vocab, which
    # walks the term's whole posting list (4-10 ms of CPU for a common word at a million
    # claims). The counts are kept in a table (store/recall_df.py), filled here from the
    # index as it is (an index whose migration 2 made the table has it already: refilled).
    from waymarks.store import recall_df

    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'recall_df'").fetchone():
        db.execute(recall_df.CREATE)
    recall_df.refill(db)


def _m026_recall_lengths(db: sqlite3.Connection) -> None:
    # A recall ordered a large group of rows (a common word's, 28k at a million claims) by
    # length with one FTS5 document-size lookup per row (10.6 of 15.9 ms). The lengths are
    # kept packed by row ID (store/recall_lengths.py), filled here from the document sizes.
    from waymarks.store import recall_lengths

    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'recall_lengths'").fetchone():
        db.execute(recall_lengths.CREATE)
    recall_lengths.refill(db)


#: the step that made ``source_exclusions`` (a copy set aside from before it held none)
EXCLUSIONS_STEP = 5
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial projection schema", _m001_initial),
    Migration(2, "recall index", _m002_recall_index),
    Migration(3, "index items by project", _m003_project_index),
    Migration(4, "fingerprint of each source at its checkpoint", _m004_source_fingerprint),
    Migration(EXCLUSIONS_STEP, "sources excluded from project memory",
              _m005_source_exclusions),
    Migration(6, "cross-session sources: checkpoints, status, branch provenance",
              _m006_cross_session),
    Migration(7, "row checksums and item group counts", _m007_checksums),
    Migration(8, "the entry index: open the active session at its checkpoint", _m008_entries),
    Migration(9, "memory evolution: learned claims, sources, events", _m009_evolution),
    Migration(10, "memory evolution: event states, feedback receipts, aging",
              _m010_evolution_events),
    Migration(11, "memory evolution: learned claims' analysis (a rebuildable cache)",
              _m011_evolution_analysis),
    Migration(12, "recall embeddings (hybrid recall)", _m012_recall_vectors),
    Migration(13, "index mutations by the item they name", _m013_mutations_by_target),
    Migration(14, "index each session's compaction entries", _m014_compactions),
    Migration(15, "claims' subject terms, for the write-time contradiction check",
              _m015_claim_subjects),
    Migration(16, "drop the unread full-text index of item texts", _m016_drop_items_fts),
    Migration(17, "checksums of the sources' checkpoints", _m017_source_checksums),
    Migration(18, "duplicate and conflict lookups over every status",
              _m018_status_free_lookups),
    Migration(19, "checksums of the entry index's rows", _m019_entry_checksums),
    Migration(20, "the ctime of each source file, to tell one replaced", _m020_source_ctime),
    Migration(21, "the status in the key index, for a plan's key lookup",
              _m021_key_index_status),
    Migration(22, "memory evolution: postings of learned claims' features (a cache)",
              _m022_evolution_postings),
    Migration(23, "covering indexes for a one-shot hybrid recall's reads",
              _m023_hybrid_reads),
    Migration(24, "the items whose key was given, for a plan's key lookup", _m024_given_keys),
    Migration(25, "each recall term's document count, kept beside the index",
              _m025_recall_frequencies),
    Migration(26, "each recall record's length, packed by row ID", _m026_recall_lengths),
)
LATEST_VERSION = MIGRATIONS[-1].version


def current_version(db: sqlite3.Connection) -> int:
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return 0
    row = db.execute("SELECT max(version), count(*), min(version) FROM schema_migrations"
                     ).fetchone()
    top, count, bottom = row
    if count and not (isinstance(top, int) and bottom == 1 and top == count):
        raise ProjectionDamaged("schema_migrations is not a gap-free history")
    return int(top or 0)


def ensure_history(db: sqlite3.Connection) -> None:
    """The table of applied steps (the one object a blank database may already hold)."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT"
    )


def migrate(db: sqlite3.Connection, now_ms: int) -> list[int]:
    """Apply every pending step; returns the versions applied. ``db`` is in autocommit mode.

    A blank database is given the latest schema at once (:func:`_create_latest`): the same
    objects the steps would leave, created in one transaction instead of nineteen."""
    ensure_history(db)
    version = current_version(db)
    if version > LATEST_VERSION:
        raise SchemaTooNewError(
            f"the projection database has schema version {version}, newer than this "
            f"Waymarks understands ({LATEST_VERSION}); upgrade Waymarks, or move the "
            "database aside and run `waymarks rebuild-index` to rebuild it from the ledgers "
            "(sessions you excluded with `waymarks memory exclude` are kept only in that "
            "file: exclude them again afterwards)"
        )
    if version == 0 and _blank(db) and _create_latest(db, now_ms):
        return [step.version for step in MIGRATIONS]
    return _apply_steps(db, version, now_ms)


def _apply_steps(db: sqlite3.Connection, version: int, now_ms: int) -> list[int]:
    """Every step after ``version``, each in its own transaction (``schema_migrations``
    exists)."""
    applied = []
    for step in MIGRATIONS:
        if step.version <= version:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if current_version(db) >= step.version:  # another process got there first
                db.execute("ROLLBACK")
                continue
            step.apply(db)
            db.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (step.version, step.name, now_ms),
            )
            db.execute("COMMIT")
        except BaseException:
            _roll_back(db)
            raise
        applied.append(step.version)
    return applied


def _blank(db: sqlite3.Connection) -> bool:
    """Nothing in the database but an empty ``schema_migrations``."""
    others = db.execute("SELECT count(*) FROM sqlite_master WHERE name <> 'schema_migrations'"
                        " AND name NOT LIKE 'sqlite!_%' ESCAPE '!'").fetchone()[0]
    return others == 0 and current_version(db) == 0


class _Latest(msgspec.Struct, frozen=True):
    """What the steps leave in a blank database: its objects' SQL in creation order and
    the rows of every table but ``schema_migrations``."""

    statements: tuple[str, ...]
    rows: tuple[tuple[str, tuple[tuple[object, ...], ...]], ...]


@functools.cache
def _latest(steps: tuple[Migration, ...]) -> _Latest:
    """The steps run once on an in-memory database (per process and registry): the one
    definition of the schema stays the steps themselves."""
    template = sqlite3.connect(":memory:", isolation_level=None)
    try:
        ensure_history(template)
        _apply_steps(template, 0, 0)
        # the tables a virtual table keeps its data in come with it
        kinds = {name: kind for _schema, name, kind, *_rest
                 in template.execute("PRAGMA main.table_list")}
        statements = tuple(
            sql for name, sql in template.execute(
                "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
            if kinds.get(name) != "shadow" and name != "schema_migrations")
        rows = tuple(
            (name, tuple(template.execute(f'SELECT * FROM "{name}"').fetchall()))
            for name, kind in kinds.items()
            if kind == "table" and not name.startswith("sqlite_") and name != "schema_migrations")
        return _Latest(statements, tuple((name, found) for name, found in rows if found))
    finally:
        template.close()


def _create_latest(db: sqlite3.Connection, now_ms: int) -> bool:
    """Create the latest schema in blank ``db``, in one transaction; False (nothing done)
    when another process started on it first."""
    latest = _latest(MIGRATIONS)
    db.execute("BEGIN IMMEDIATE")
    try:
        if not _blank(db):
            db.execute("ROLLBACK")
            return False
        for statement in latest.statements:
            db.execute(statement)
        for table, found in latest.rows:
            marks = ", ".join("?" * len(found[0]))
            db.executemany(f'INSERT INTO "{table}" VALUES ({marks})', found)
        db.executemany(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
            [(step.version, step.name, now_ms) for step in MIGRATIONS])
        db.execute("COMMIT")
    except BaseException:
        _roll_back(db)
        raise
    return True


def _roll_back(db: sqlite3.Connection) -> None:
    """Roll back what a failed step began, if SQLite has not already: after a full disk
    (``SQLITE_FULL``) it has, and a second ROLLBACK's error ("no transaction is active")
    hid the full disk behind what read as damage, so a new database was set aside."""
    if db.in_transaction:
        db.execute("ROLLBACK")
