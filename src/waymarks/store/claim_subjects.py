"""The subject terms of stored claims: a write finds the claims it may contradict without
reading every active claim.

A write's contradiction check (:func:`waymarks.core.rules.find_contradictions`) compares
the new claim's signature (:func:`waymarks.core.contradiction.signature`: subject terms
and values) with the claims the writer sees. It read every active claim of each
partition and worked out each one's signature: 27 ms a write at 10k memories, 2.8 s at
100k (the signature memo holds 65,536), growing with the store. A claim can contradict
only one whose subject equals its own, or contains the other's with at most
``MAX_EXTRA_TERMS`` terms more. A subject equal to the new claim's or containing it holds
all its terms, the rarest among them; one contained in it is one of its few parts with a
term or two left out, found by the whole subject. So each claim is kept under its
subject terms (``t:``) and under its whole subject (``k:``), and a write reads the claims
of its rarest term and of the parts of its subject: the candidates; the check itself is
unchanged. (Reading the claims of any three of its terms, as first written, read every
claim whose subject holds a common word such as "service".)

Rows are kept per partition (a write reads its own partitions' claims only, as the scan
did, not every session's), and each term's number of claims beside them, so the rarest is
known exactly (counting postings up to a cap let the first of several common terms win).

Derived and rebuildable, like the recall index: rows name items by row ID, a bulk load
(a rebuild, a re-fold) numbers the items afresh and forgets them all (:func:`reset`), and
they are caught up from the last item row indexed (:func:`catch_up`) by the next write
that asks (a claim's own write, once it is projected), or a plan's lookup (a bounded
share a read: the watermark moves per batch), and by ``rebuild-index`` itself once its
items are written:
left to the first write, that one write worked out every claim's signature (~10 s CPU at
65k claims, a minute and more at a million: past a hook's or an MCP client's timeout),
where that command is expected to take its time. A re-fold, and a rebuild a read runs (a
database deleted or damaged, filled again by a prompt's hook), leave them to the next
write (a read needs none). The rows are also forgotten when the
signature's code changes (:func:`fingerprint`: its sources' digest, kept beside the
watermark), or a claim would stay listed under terms the new code no longer gives it (the
first write of such a version catches every claim up again). Damage here can only hide
a contradiction (the check is a refusal, never a write), and a rebuild restores it.
Superseded claims keep their rows (status is judged on each verified row when the claims
are read).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Final

from waymarks.core import (
    claim_about,
    claim_bounds,
    claim_change_verbs,
    claim_cjk_words,
    claim_days,
    claim_denials,
    claim_frames,
    claim_kinds,
    claim_names,
    claim_schedules,
    claim_states,
    claim_terms,
    claim_tool_kinds,
    claim_units,
    claim_values,
    claim_word_values,
    claim_words,
    contradiction,
    model,
    privacy,
    text,
)
from waymarks.core.contradiction import parts, subject_keys
from waymarks.core.privacy import strip_markers
from waymarks.core.text import normalize
from waymarks.store.code_digest import sources_digest

if TYPE_CHECKING:
    from waymarks.ledger.log import ProgressFn

#: how far the rows are caught up (the last ``items`` row ID looked at), and by which code
_UPTO: Final = "claim_subjects_upto"
_CODE: Final = "claim_subjects_code"
#: the IDs of the claims left out since the rows were last reset, space-separated
#: (:func:`left_out`: ``health`` lists them)
_UNSIGNED: Final = "claim_subjects_unsigned"
#: claims caught up per statement (a rebuilt store of a million is not held at once)
_BATCH: Final = 10_000


def create_tables(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE claim_subjects (partition TEXT NOT NULL, term TEXT NOT NULL,"
               " item INTEGER NOT NULL, PRIMARY KEY (partition, term, item))"
               " WITHOUT ROWID, STRICT")
    db.execute("CREATE TABLE claim_terms (partition TEXT NOT NULL, term TEXT NOT NULL,"
               " claims INTEGER NOT NULL, PRIMARY KEY (partition, term)) WITHOUT ROWID, STRICT")


def reset(db: sqlite3.Connection) -> None:
    """Forget every row (the items were numbered afresh); caught up again on demand."""
    db.execute("DELETE FROM claim_subjects")
    db.execute("DELETE FROM claim_terms")
    db.execute("DELETE FROM meta WHERE name IN (?, ?, ?)", (_UPTO, _CODE, _UNSIGNED))


def fingerprint() -> str:
    """A digest of the code that gives a claim its signature (its module and the text
    folding and marker stripping it uses), as this process loaded it: rows caught up by
    other code are forgotten."""
    return _SIGNATURES


#: the modules a claim's signature is read by (the digest's; a test holds it to the
#: imports of ``core/contradiction.py`` and its ``claim_*`` modules)
SIGNATURE_CODE: Final = (claim_about, claim_bounds, claim_change_verbs, claim_cjk_words,
                          claim_days, claim_denials, claim_frames, claim_kinds, claim_names,
                          claim_schedules,
                          claim_states, claim_terms,
                          claim_tool_kinds, claim_units, claim_values, claim_word_values,
                          claim_words, contradiction, model, privacy, text)
#: taken at import, with the code it stands for (see recall_index._ANALYSIS)
_SIGNATURES: Final = sources_digest(*SIGNATURE_CODE)


def _watermark(db: sqlite3.Connection) -> tuple[dict[str, str], int, int]:
    """The meta rows, how far the rows are caught up, and the last ``items`` row ID: one
    statement (a claim's write asks 3-4 times under the session lock)."""
    last, *values = db.execute(
        "SELECT (SELECT coalesce(max(rowid), 0) FROM items), (SELECT value FROM meta"
        " WHERE name = ?), (SELECT value FROM meta WHERE name = ?)", (_UPTO, _CODE)).fetchone()
    known = {name: str(value) for name, value in zip((_UPTO, _CODE), values, strict=True)
             if value is not None}
    return known, int(known.get(_UPTO, 0)), int(last)


def behind(db: sqlite3.Connection) -> bool:
    """Whether :func:`catch_up` has rows to write (a read asks before it reads them)."""
    known, upto, last = _watermark(db)
    return (bool(known) and known.get(_CODE) != fingerprint()) or last > upto


def catch_up(db: sqlite3.Connection, progress: ProgressFn | None = None,
             unsigned: list[str] | None = None, limit: int | None = None) -> int:
    """Index the memory items added since the last call (inside a write transaction);
    returns how many were looked at. ``progress(done, total)`` after each batch (claims:
    ``rebuild-index`` catches up every claim of the store, seconds at 100k). A claim whose
    signature fails is left out, its ID added to ``unsigned`` and kept in the meta table
    until the rows are reset (:func:`left_out`): one stored text the code could not read
    made every rebuild-index fail, its catch-up with it; then a write's catch-up left it
    out in silence. ``limit``: at most about that many claims (whole batches), the
    watermark left after the last one looked at (a read's share: the rest for the next
    one, or a write)."""
    known, upto, last = _watermark(db)
    if known and known.get(_CODE) != fingerprint():
        reset(db)
        known, upto, last = _watermark(db)
    if last <= upto:
        return 0
    total = 0 if progress is None else int(db.execute(
        "SELECT count(*) FROM items WHERE +kind = 'memory' AND rowid > ? AND rowid <= ?",
        (upto, last)).fetchone()[0])
    looked = 0
    start = upto
    failed: list[str] = []
    while True:  # in batches: after a rebuild, every claim of the store is caught up
        # by rowid: with ``kind`` free to use, SQLite walked every claim by the lookup
        # indexes that lead with it (migration 18) and sorted them, on every write
        batch = _BATCH if limit is None else min(_BATCH, limit - looked)
        items = [] if batch <= 0 else db.execute(
            "SELECT rowid, partition, text, id FROM items WHERE +kind = 'memory'"
            " AND rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
            (start, last, batch)).fetchall()
        if not items:
            break
        rows = list(_rows(items, failed))
        db.executemany("INSERT OR IGNORE INTO claim_subjects (partition, term, item)"
                       " VALUES (?, ?, ?)", rows)
        counts = Counter((partition, term) for partition, term, _item in rows)
        db.executemany("INSERT INTO claim_terms (partition, term, claims) VALUES (?, ?, ?)"
                       " ON CONFLICT (partition, term) DO UPDATE"
                       " SET claims = claims + excluded.claims",
                       [(partition, term, n) for (partition, term), n in counts.items()])
        looked += len(items)
        start = items[-1][0]
        if progress is not None:
            progress(looked, total)
        if len(items) < batch:  # the last: asking again read nothing, on every claim's write
            break
    # the code's row only when it changes: rewritten with the same value on every claim's
    # write, it was one more statement under the session lock for nothing
    db.executemany("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
                   " DO UPDATE SET value = excluded.value",
                   [(_UPTO, str(last if limit is None or looked < limit else start)),
                    *([(_CODE, fingerprint())] if known.get(_CODE) != fingerprint() else []),
                    *([(_UNSIGNED, " ".join(dict.fromkeys([*left_out(db), *failed])))]
                      if failed else [])])
    if unsigned is not None:
        unsigned.extend(failed)
    return looked


def left_out(db: sqlite3.Connection) -> list[str]:
    """The IDs of the claims whose signature failed when the rows were caught up, since
    they were last reset (left out of the contradiction check), oldest first."""
    row = db.execute("SELECT value FROM meta WHERE name = ?", (_UNSIGNED,)).fetchone()
    return str(row[0]).split() if row is not None else []


def _rows(items: Iterable[tuple[int, str, str, str]], unsigned: list[str]
          ) -> Iterable[tuple[str, str, int]]:
    for rowid, partition, claim, item_id in items:
        try:
            keys = subject_keys(str(claim))
        except Exception:  # noqa: BLE001 (any bug of the signature's on one stored text)
            # that claim alone is not listed, so its contradictions go unseen (as with damage
            # here: never a wrong write), and the caller says which claims
            unsigned.append(str(item_id))
            continue
        for key in keys:
            yield str(partition), key, rowid


def sharing(db: sqlite3.Connection, partition: str, subject: frozenset[str],
            most: int | None = None, counts: dict[str, int] | None = None
            ) -> list[tuple[str, str]]:
    """``(id, text)`` of the memory items in ``partition`` (any status: the caller reads
    the verified row of each one it keeps and judges its status), oldest first, whose
    subject may equal, contain or be contained in ``subject``: those holding its rarest
    term, and those whose whole subject is one of its :func:`parts`; none when its
    rarest term is held by more than ``most`` claims. The rows must be caught up: a
    write's check catches them up first (``SqliteView.caught_up``), a read asks
    :func:`behind` first. ``counts``: the partition's terms' claims read before while
    the rows are unchanged (a write's, ``SqliteView``), read here only for the terms it
    lacks, and added to."""
    if not subject:
        return []
    query = _sharing_query(db, partition, subject, "i.id, i.text", "", most, counts)
    if query is None:
        return []
    rows = db.execute(*query)
    return [(str(item_id), str(text)) for item_id, text in rows]


def holding(db: sqlite3.Connection, partition: str, terms: Collection[str], most: int,
            counts: dict[str, int] | None = None) -> list[tuple[str, str]]:
    """``(id, text)`` of the memory items in ``partition`` (any status, as :func:`sharing`
    answers) holding any of ``terms`` that at most ``most`` claims of the partition hold,
    oldest first, in one statement (rows caught up, as for :func:`sharing`): the union of
    :func:`sharing` asked each term alone. The typed-slot check asked one term at a time,
    ~8.5 statements a write under the session lock."""
    counts = _counted(db, partition, sorted(terms), counts)
    keys = sorted({"t:" + term for term in terms if 0 < counts["t:" + term] <= most})
    if not keys:
        return []
    rows = db.execute(
        "SELECT i.id, i.text FROM (SELECT DISTINCT item FROM claim_subjects"
        " WHERE partition = ? AND term IN (SELECT value FROM json_each(?))) AS s"
        " CROSS JOIN items AS i ON i.rowid = s.item"
        " WHERE i.kind = 'memory' AND i.partition = ? ORDER BY i.seq",
        (partition, json.dumps(keys), partition))
    return [(str(item_id), str(text)) for item_id, text in rows]


def _counted(db: sqlite3.Connection, partition: str, terms: Sequence[str],
             counts: dict[str, int] | None) -> dict[str, int]:
    """``counts`` (a new dict when ``None``) with the partition's number of claims
    holding each of ``terms`` (``t:`` keys) it lacked, read in one statement."""
    counts = {} if counts is None else counts
    unknown = [term for term in terms if "t:" + term not in counts]
    if unknown:  # (a write's check asks each term of its subject again, one by one)
        marks = ",".join("?" * len(unknown))
        counts.update(dict.fromkeys(("t:" + term for term in unknown), 0))
        counts.update(db.execute(
            f"SELECT term, claims FROM claim_terms WHERE partition = ? AND term IN ({marks})",
            (partition, *("t:" + term for term in unknown))).fetchall())
    return counts


def present(db: sqlite3.Connection, partitions: Sequence[str], terms: Collection[str],
            norms: Collection[str], keys: Collection[str], bases: Collection[str]
            ) -> set[str]:
    """Which of the facets asked some memory item of ``partitions`` has (rows caught up):
    the subject keys among ``terms`` (as :func:`bearing` looks them up) as they are, and
    ``norms``, ``keys`` and ``bases`` (polarity) as ``n:``, ``y:`` and ``b:`` followed by
    the value, and every norm of a text marked whole (``n:[ds4:…``: its marked forms are
    many, see :mod:`waymarks.core.marked_forms`). One statement a facet, from the smaller
    side: the values asked passed as one JSON array, or the partitions' own values read
    whole when they are fewer (a person with a few claims beside 20k team items)."""
    where = json.dumps(list(dict.fromkeys(partitions)))
    inside = " IN (SELECT value FROM json_each(?))"
    found: set[str] = set()
    for prefix, asked, table, column, kept in (
            ("", terms, "claim_terms", "term", "1"),
            ("n:", norms, "items", "norm", "kind = 'memory'"),
            ("y:", keys, "items", "key", "kind = 'memory'"),
            ("b:", bases, "items", "polarity_base", "kind = 'memory'")):
        if not asked:
            continue
        rows = f"FROM {table} WHERE {kept} AND partition{inside}"
        (held,) = db.execute(f"SELECT count(*) {rows}", (where,)).fetchone()
        if held <= len(asked):
            values = {str(value) for (value,) in db.execute(
                f"SELECT DISTINCT {column} {rows} AND {column} IS NOT NULL", (where,))}
            found.update(prefix + value for value in values & set(asked))
        else:
            found.update(prefix + str(value) for (value,) in db.execute(
                f"SELECT DISTINCT {column} {rows} AND {column}{inside}",
                (where, json.dumps(list(asked)))))
    # a text marked whole, by its index: the marked forms of each norm asked were 380k
    found.update("n:" + str(norm) for (norm,) in db.execute(
        f"SELECT DISTINCT norm FROM items WHERE kind = 'memory' AND partition{inside}"
        " AND norm >= '[ds4:' AND norm < '[ds4;'", (where,)))
    return found


#: the statuses of a claim the person took out of effect (``service.own_claims.RETIRED``)
RETIRED: Final = ("invalid", "expired", "superseded")
#: what a text holding a marker tag holds (``privacy._MARKER_HINT``): a text without it
#: is its own form without tags, so its ``norm`` column is that form's
_MARKER_HINT: Final = "4:"


def bearing(db: sqlite3.Connection, partition: str, subject: frozenset[str], norm: str,
            also: Iterable[str] = ()) -> list[str]:
    """IDs of the memory items of ``partition`` (rows caught up: :func:`behind` first)
    that may bear on a claim saying ``norm`` whose subject is ``subject``, oldest first:
    those ``active`` (the only ones that can be in effect) whose subject may equal,
    contain or be contained in ``subject`` (:func:`sharing`) or whose ``norm`` is ``norm``
    or one of ``also`` (its marked forms), and those taken out of effect (``RETIRED``)
    among them whose text, without marker tags, normalizes to ``norm``. The others of a
    subject (the 10k superseded versions of a counter a script updates) are left out in
    SQL, unread: only a retired text holding a tag is read here, to compare without it
    (the caller reads and verifies the verified row of each ID and judges it again)."""
    return bearing_many(db, partition, [(subject, norm, tuple(also))])[0]


def bearing_many(db: sqlite3.Connection, partition: str,
                 asks: Sequence[tuple[frozenset[str], str, Sequence[str]]]
                 ) -> list[list[str]]:
    """:func:`bearing` of each ``(subject, norm, also)`` asked, in three statements
    whatever their number (the terms' counts, the subject rows, the texts): a plan
    looked its team items up one by one, 160k statements and 9 s CPU at 20k of them
    beside one claim of the person's whose subject is a part of every one of theirs."""
    statuses = ",".join("?" * len(RETIRED))
    inside = " IN (SELECT value FROM json_each(?))"
    # a row kept: in effect, or retired saying a norm asked (or holding a tag to strip);
    # which norm, and the tag stripped, is judged per ask below
    where = (f" AND (i.status = 'active' OR (i.status IN ({statuses})"
             f" AND (i.norm{inside} OR instr(i.text, ?) > 0)))")
    args = (*RETIRED, json.dumps(list({norm for _s, norm, _a in asks})), _MARKER_HINT)
    # (the text of a retired row only: one in effect is kept as it is)
    columns = "i.seq, i.id, i.status, CASE i.status WHEN 'active' THEN '' ELSE i.text END"
    terms = sorted({"t:" + term for subject, _n, _a in asks for term in subject})
    counts = dict(db.execute(
        f"SELECT term, claims FROM claim_terms WHERE partition = ? AND term{inside}",
        (partition, json.dumps(terms))).fetchall()) if terms else {}
    keys: list[list[str]] = []
    for subject, _norm, _also in asks:
        if subject:  # the rarest term's claims, and those of the parts of the subject
            rarest = min(sorted(subject), key=lambda term: (counts.get("t:" + term, 0), term))
            keys.append(["t:" + rarest, *parts(subject)])
        else:
            keys.append([])
    by_key: dict[str, list[tuple[int, str, str, str]]] = {}
    asked = sorted({key for found in keys for key in found})
    if asked:  # (the rows of the keys first: see _sharing_query)
        for term, *row in db.execute(
                f"SELECT s.term, {columns} FROM (SELECT DISTINCT term, item FROM"
                f" claim_subjects WHERE partition = ? AND term{inside}) AS s"
                " CROSS JOIN items AS i ON i.rowid = s.item"
                f" WHERE i.kind = 'memory' AND i.partition = ?{where}",
                (partition, json.dumps(asked), partition, *args)):
            by_key.setdefault(str(term), []).append(tuple(row))
    by_norm: dict[str, list[tuple[int, str, str, str]]] = {}
    norms = sorted({n for _s, norm, also in asks for n in (norm, *also)})
    for norm, *row in db.execute(
            f"SELECT i.norm, {columns} FROM items AS i WHERE i.kind = 'memory'"
            f" AND i.partition = ? AND i.norm{inside}" + where,
            (partition, json.dumps(norms), *args)):
        by_norm.setdefault(str(norm), []).append(tuple(row))
    answers = []
    for (_subject, norm, also), found_keys in zip(asks, keys, strict=True):
        found = {str(row[1]): row for key in found_keys for row in by_key.get(key, ())}
        found.update((str(row[1]), row) for n in dict.fromkeys((norm, *also))
                     for row in by_norm.get(n, ()))
        answers.append([item_id for _seq, item_id, status, text in sorted(found.values())
                        if status == "active" or normalize(strip_markers(str(text))) == norm])
    return answers


def _sharing_query(db: sqlite3.Connection, partition: str, subject: frozenset[str],
                   columns: str, where: str, most: int | None = None,
                   counts: dict[str, int] | None = None
                   ) -> tuple[str, tuple[object, ...]] | None:
    """The query of :func:`sharing` selecting ``columns`` of ``items AS i``, with
    ``where`` (its own parameters after those returned) added to its conditions; None
    when the rarest term is held by more than ``most`` claims, or when no claim holds it
    and the subject has no parts (no row could answer: the terms' counts are kept with
    the rows, :func:`catch_up`). ``counts``: as :func:`sharing` takes it."""
    terms = sorted(subject)
    counts = _counted(db, partition, terms, counts)
    rarest = min(terms, key=lambda term: (counts["t:" + term], term))
    if most is not None and counts["t:" + rarest] > most:
        return None
    keys = ["t:" + rarest, *parts(subject)]
    if counts["t:" + rarest] == 0 and len(keys) == 1:
        return None
    marks = ",".join("?" * len(keys))
    # the rows of the keys first (CROSS JOIN keeps that order): SQLite otherwise walked
    # every active claim of the partition by its index, 13 ms at 100k, to test each one
    # every status: a status filtered in SQL let a damaged one hide an active claim. The
    # caller verifies the row of each text that contradicts (``StateView.get``) and judges
    # its status there; verifying every candidate here cost 3.7 ms a write at 10k claims
    return (f"SELECT {columns} FROM (SELECT DISTINCT item FROM claim_subjects"
            f" WHERE partition = ? AND term IN ({marks})) AS s"
            " CROSS JOIN items AS i ON i.rowid = s.item"
            f" WHERE i.kind = 'memory' AND i.partition = ?{where}"
            " ORDER BY i.seq", (partition, *keys, partition))
