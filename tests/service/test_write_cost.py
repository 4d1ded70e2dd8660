"""What one write costs beyond append, project and flush (issue 15): a write compares its
claim with the active claims its session sees that may share its subject (not every one),
and must not analyse any of them again."""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Callable

import pytest

from tests.conftest import CountingIds
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected


def test_a_write_analyses_only_claims_it_has_not_seen(app: Waymarks) -> None:
    for i in range(40):
        assert isinstance(app.remember(f"Worker pool {i} runs {i + 2} threads"), Committed)
    before = signature.cache_info()
    assert isinstance(app.remember("Worker pool 99 runs 7 threads"), Committed)
    after = signature.cache_info()
    # only the new claim analysed; and of the 40 earlier ones, only those that may share
    # its subject compared (none do: store.claim_subjects), not all 40 as before. The
    # hits are the new claim's own signature asked again (the typed-slot check of
    # core/claim_slots asks it too: 5 hits, every one of this text, none of the 40)
    assert after.misses - before.misses <= 1
    assert after.hits - before.hits <= 6
    before = after
    assert isinstance(app.remember("Worker pool 5 runs 9 threads"), Rejected)  # says 7
    after = signature.cache_info()
    # the claim it contradicts asked once, the rest its own text again (slots: see above)
    assert after.misses - before.misses <= 1 and 1 <= after.hits - before.hits <= 6


def test_memoised_signatures_still_refuse_a_contradiction(app: Waymarks) -> None:
    assert isinstance(app.remember("Package export mode defaults to PerEndpoint."), Committed)
    assert isinstance(app.remember("Package export mode defaults to SingleFile."), Rejected)


def test_the_first_write_after_a_rebuild_analyses_only_its_own_claim(app: Waymarks) -> None:
    """A rebuild catches up the claims' subject terms (``store.claim_subjects``): the
    first write after it, in a process that never read them (a new CLI or hook process),
    took ~10 s CPU at 65k claims working out every claim's signature."""
    for i in range(40):
        assert isinstance(app.remember(f"Worker pool {i} runs {i + 2} threads"), Committed)
    app.rebuild_index()
    signature.cache_clear()  # as a new process finds the memo
    assert isinstance(app.remember("Worker pool 99 runs 7 threads"), Committed)
    assert signature.cache_info().misses <= 1
    assert isinstance(app.remember("Worker pool 5 runs 9 threads"), Rejected)  # says 7


def test_a_long_claim_is_given_up_once_it_states_too_many_values_for_one_fact(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim stating more values than a fact has no signature, whatever follows: each
    further value searched its clause, the whole text before it when it had no
    punctuation, again (a 54 KB claim took 4.9 s; a rebuild signs every stored claim)."""
    from waymarks.core import claim_denials, contradiction

    searched: list[int] = []
    clause_before = claim_denials.clause_before

    def counted(text: str, start: int) -> str:
        searched.append(start)
        return clause_before(text, start)

    monkeypatch.setattr(claim_denials, "clause_before", counted)
    claim = "the build took " + " then ".join(f"{n} minutes" for n in range(1, 400))
    assert signature.__wrapped__(claim) is None  # (the memo aside)
    assert len(searched) <= 2 * (contradiction.MAX_VALUES + 1)


@pytest.mark.parametrize("lost", ["deleted", "damaged"])
def test_a_read_that_rebuilds_the_database_analyses_no_claim(
        make_app: Callable[..., Waymarks], lost: str) -> None:
    """A read that finds the database gone (deleted to start over) or damaged (set aside)
    rebuilds it from the ledgers, inside the read: a Claude Code prompt's hook, within its
    10 s timeout. It leaves the claims' subject terms to the next write, as a re-fold
    does; caught up there, the read worked out every claim's signature (20k memories: a
    prompt's hook 1.6 s CPU before, 4.1 s with them, 11-12 s of wall at load 7)."""
    first = make_app()
    for i in range(40):
        assert isinstance(first.remember(f"Worker pool {i} runs {i + 2} threads"), Committed)
    path = first.db_path
    first.close()
    if lost == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"not a database" * 512)
    signature.cache_clear()  # as a new process finds the memo
    app = make_app()
    assert len(app.items("memory")) == 40  # rebuilt by the read
    assert signature.cache_info().misses == 0
    assert app.projection.claim_subjects_behind()  # the next write catches them up
    assert isinstance(app.remember("Worker pool 5 runs 9 threads"), Rejected)  # says 7
    assert not app.projection.claim_subjects_behind()


def test_a_write_leaves_no_claim_of_its_own_for_the_next_writer_to_analyse(
        make_app: Callable[..., Waymarks]) -> None:
    """With 8 processes writing to one session, each write worked out, under the session
    lock, the signature of the claim the writer before it had added (the subject rows
    were caught up by the next write that checked, in another process, whose memo did
    not hold it): ~17 % of the time the lock was held. The writer that has it catches its
    own claim up, in its write's transaction."""
    first = make_app()
    assert isinstance(first.remember("Worker pool 1 runs 3 threads"), Committed)
    assert not first.projection.claim_subjects_behind()
    signature.cache_clear()  # as the next writer, another process, finds the memo
    second = make_app(ids=CountingIds(1), clock=first.clock)  # (the newest session)
    assert isinstance(second.remember("Worker pool 2 runs 4 threads"), Committed)
    assert signature.cache_info().misses == 1  # its own claim only
    assert isinstance(second.remember("Worker pool 1 runs 5 threads"), Rejected)  # says 3


def test_a_claim_is_analysed_before_the_session_lock_is_taken(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """The new claim's signature (and, in a process's first write, the compiling of its
    patterns) is worked out before the write takes the session lock: every other writer
    of the session waited for it. The check under the lock finds it memoised."""
    from waymarks.core import contradiction

    assert isinstance(app.remember("Worker pool 1 runs 3 threads"), Committed)
    worked_out: list[tuple[str, bool]] = []
    memo = contradiction.signature

    def watched(claim: str) -> contradiction.Signature | None:
        misses = memo.cache_info().misses
        found = memo(claim)
        if memo.cache_info().misses > misses:
            session = app.bound_session
            worked_out.append((claim, session is not None and session.holds_lock))
        return found

    monkeypatch.setattr(contradiction, "signature", watched)
    memo.cache_clear()  # (the claims below analysed by no test before)
    claims = ["Worker pool 2 runs 4 threads", "  Worker pool 3 runs 5 threads  "]
    assert isinstance(app.remember(claims[0]), Committed)
    assert isinstance(app.supersede_memory(app.items("memory")[0].id, claims[1]), Committed)
    assert isinstance(app.remember("Worker pool 2 runs 9 threads"), Rejected)  # says 4
    assert [claim for claim, _held in worked_out] == [
        "Worker pool 2 runs 4 threads", "Worker pool 3 runs 5 threads",
        "Worker pool 2 runs 9 threads"]
    assert not [claim for claim, held in worked_out if held]


def _pages_written(app: Waymarks, write: Callable[[], object]) -> Counter[str]:
    """The pages ``write`` committed, by the table or index each belongs to (the log's
    frames after a truncating checkpoint, named by SQLite's dbstat)."""
    db = app.projection.db
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    write()
    log = app.db_path.with_name(app.db_path.name + "-wal").read_bytes()
    size = struct.unpack(">I", log[8:12])[0]
    pages = {struct.unpack(">I", log[at:at + 4])[0]
             for at in range(32, len(log) - size - 23, size + 24)}
    named = dict(db.execute("SELECT pageno, name FROM dbstat").fetchall())
    return Counter(named.get(page, "?") for page in pages)


def test_a_write_rewrites_no_index_of_a_column_it_keeps(app: Waymarks) -> None:
    """Each write of a session records its checkpoint in ``sources``; it set the project
    to the value it had, and SQLite rewrites an index's page for a column set, equal or
    not: one of each write's ~22 pages went to ``sources_by_project`` (every write,
    under the session lock)."""
    assert isinstance(app.pin("Run the linter first."), Committed)
    written = _pages_written(app, lambda: app.remember("The cache holds 10 entries."))
    assert written["sources"] == 1 and written["items"] >= 1
    assert written["sources_by_project"] == 0


def test_a_write_reads_no_bytes_it_has_just_read_again(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under its lock a write read the session file 10 times, 3 of them again for the
    fingerprint of bytes it had just read (the lines it read, its checkpoint as stored):
    each an open and a read every other writer of the session waited for. The reader
    keeps the fingerprint of what it read; the checks of the file as it is on disk now
    (rewritten, replaced) still read it."""
    from waymarks.ledger.session_file import SessionFile

    assert isinstance(app.pin("Run the linter first."), Committed)
    session = app.bound_session
    assert session is not None
    reads: list[int] = []
    read_from = SessionFile._read_from

    def counted(self: SessionFile, offset: int, limit: int) -> bytes:
        if self.holds_lock:
            reads.append(offset)
        return read_from(self, offset, limit)

    monkeypatch.setattr(SessionFile, "_read_from", counted)
    assert isinstance(app.remember("The cache holds 10 entries."), Committed)
    assert 0 < len(reads) <= 7
    assert app.projection.checkpoint_offset(session.session_id) == session.offset
    assert session.fingerprint_as_read(session.offset) == session.fingerprint(session.offset)


def _statements_of_a_project_claim(app: Waymarks, first: str, second: str) -> list[str]:
    """The statements (values bound) of a trusted project's claim ``second``'s write, made
    after ``first``'s; both committed."""
    app.trust(app.cwd)
    assert isinstance(app.remember(first, scope="project"), Committed)
    said: list[str] = []
    app.projection.db.set_trace_callback(said.append)
    try:
        assert isinstance(app.remember(second, scope="project"), Committed)
    finally:
        app.projection.db.set_trace_callback(None)
    return said


def test_a_write_reads_how_far_the_claims_are_indexed_in_few_statements(
        app: Waymarks) -> None:
    """A claim's write asked how far the claims' subject rows were caught up 5 times under
    the session lock (its check's catch-up, each of its two partitions' lookups, and its
    own claim's catch-up, asked first and then asked again), each in two statements: 10
    of its ~55. Now once each time, in one statement, and the catch-up of its own claim,
    behind for sure, is not asked first."""
    said = _statements_of_a_project_claim(app, "The cache holds 10 entries.",
                                          "Worker pool 7 runs 9 threads")
    asked = [s for s in said if s.startswith("SELECT") and
             ("claim_subjects_upto" in s or "max(rowid), 0) FROM items" in s)]
    assert 1 <= len(asked) <= 4, asked


def test_a_claim_the_analysis_fails_on_is_decided_as_before(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis ahead of the lock is the check's work done early, never a check of its
    own: a text the signature's code fails on (a bug on one text: the subject index
    leaves such a claim out) is decided under the lock as before, where a duplicate is
    answered before any analysis; it raised out of the write before the lock instead."""
    from waymarks.core import contradiction
    from waymarks.service.outcomes import Duplicate

    claim = "The cursed flag is on."
    stored = app.remember(claim)
    assert isinstance(stored, Committed)
    memo = contradiction.signature

    def fails_on_one(text: str) -> contradiction.Signature | None:
        if "cursed" in text:
            raise IndexError("a bug")
        return memo(text)

    monkeypatch.setattr(contradiction, "signature", fails_on_one)
    again = app.remember(claim)
    assert isinstance(again, Duplicate) and again.id == stored.id


def test_a_claim_write_reads_how_far_the_subject_rows_are_once_before_its_check(
        app: Waymarks) -> None:
    """Under the session lock a claim's write read how far the claims' subject rows were
    caught up four times (asked whether behind, then caught up by its check's two lookups,
    then after its own row) and wrote the code's digest again with the same value: once
    caught up inside the write's transaction, with nothing changed since, they still are.
    A contradiction is still refused by the rows caught up there."""
    assert isinstance(app.remember("Worker pool 1 runs 3 threads"), Committed)
    seen: list[str] = []
    app.projection.db.set_trace_callback(seen.append)
    try:
        assert isinstance(app.remember("Worker pool 2 runs 4 threads"), Committed)
        assert isinstance(app.remember("Worker pool 1 runs 5 threads"), Rejected)  # says 3
    finally:
        app.projection.db.set_trace_callback(None)
    asked = [s for s in seen if s.lstrip().startswith("SELECT") and "claim_subjects_upto" in s]
    rewritten = [s for s in seen if "claim_subjects_code" in s and "INSERT" in s]
    # the write: before its check and after its row; the refused one: before its check
    assert len(asked) == 3, asked
    assert rewritten == []


def _item_reads_before_the_first_change(said: list[str]) -> list[str]:
    """The statements reading item rows a write made before it changed any row (its
    decision), as SQLite ran them, values bound."""
    reads: list[str] = []
    for statement in said:
        if statement.lstrip().startswith(("INSERT", "UPDATE", "DELETE")):
            break
        if statement.lstrip().startswith("SELECT id, kind, scope") and "FROM items" in statement:
            reads.append(statement)
    return reads


def test_a_write_decision_reads_each_of_its_item_rows_once(app: Waymarks) -> None:
    """Under the session lock, a claim's decision read the same item rows once for its
    duplicate check, again for its key's check and again for its contradiction check (9
    item reads a write of the concurrency benchmark's mix, under the lock every other
    writer of the session waits for). Inside the write's transaction, while the
    connection has changed nothing, a read is asked of SQLite once."""
    said = _statements_of_a_project_claim(app, "Setting w0 n1 is value 1",
                                          "Setting w0 n2 is value 2")
    reads = _item_reads_before_the_first_change(said)
    assert reads  # (the decision does read items)
    assert len(reads) == len(set(reads)), Counter(reads).most_common(2)


def test_rows_kept_in_a_write_follow_its_changes_and_end_with_it(
        make_app: Callable[..., Waymarks]) -> None:
    """What a write transaction keeps is its own: a row this connection changes inside it
    is read again, and the next transaction reads what another connection committed."""
    import msgspec

    app = make_app()
    assert isinstance(app.remember("The cache holds 10 entries."), Committed)
    [kept] = app.items("memory")
    view = app.projection.view
    with pytest.raises(KeyError), app.projection.transaction():  # (rolled back)
        before = view.get(kept.id)
        assert before is not None and before.status == "active"
        view.put(msgspec.structs.replace(before, status="expired"))
        changed = view.get(kept.id)
        assert changed is not None and changed.status == "expired"
        raise KeyError("roll back")
    with app.projection.transaction():
        again = view.get(kept.id)
        assert again is not None and again.status == "active"
    other = make_app()
    with other.projection.transaction():
        theirs = other.projection.view.get(kept.id)
        assert theirs is not None
        other.projection.view.put(msgspec.structs.replace(theirs, status="invalid"))
    with app.projection.transaction():
        after = view.get(kept.id)
    assert after is not None and after.status == "invalid"


def test_a_write_reads_its_sessions_checkpoint_once_while_nothing_changed(
        app: Waymarks) -> None:
    """Under the session lock a write read its session's checkpoint row three times before
    it changed a row (the check that the file is the one indexed, the sync before its
    decision and the sync after its append, which found nothing else written): once now,
    kept in the write's transaction as its item rows are."""
    said = _statements_of_a_project_claim(app, "The cache holds 10 entries.",
                                          "Worker pool 7 runs 9 threads")
    before_a_change = []
    for statement in said:
        if statement.lstrip().startswith(("INSERT", "UPDATE", "DELETE")):
            break
        before_a_change.append(statement)
    checkpoint = [s for s in before_a_change if "FROM sources WHERE session_id" in s
                  and s.startswith("SELECT session_id, path, cwd, byte_offset")]
    assert len(checkpoint) == 1, checkpoint


def test_a_claims_slot_check_reads_each_terms_count_once_and_skips_unheld_terms(
        app: Waymarks) -> None:
    """A claim's typed-slot check looks its rivals up one subject term at a time, and each
    lookup read that term's count again, though its subject's lookup had just read them
    all (the rows unchanged inside the write's transaction); and a term no claim holds
    was looked up all the same. 2 count reads now where there were 16 (7 terms, 2
    partitions, and the subject's own); no lookup of a term no claim holds. (Its terms
    are now looked up together, one statement a partition: their JSON array.)"""
    said = _statements_of_a_project_claim(app, "Writer 0 noted that build step 0-1 takes 1s",
                                          "Writer 0 noted that build step 0-5 takes 5s")
    counts = [s for s in said if "FROM claim_terms" in s]
    assert 1 <= len(counts) <= 2, counts  # a partition's, each read once
    unheld = [s for s in said if "FROM claim_subjects" in s and '"t:step-n0-5"' in s]
    assert unheld == []
    held = [s for s in said if "FROM claim_subjects" in s and '"t:build"' in s]
    assert len(held) == 1  # the project's claim holding it: still looked up, once


def test_a_claims_own_catch_up_asks_for_no_batch_past_its_row(app: Waymarks) -> None:
    """The catch-up after a claim's row read the claims past its last batch again, and
    found none, on every claim's write."""
    said = _statements_of_a_project_claim(app, "The cache holds 10 entries.",
                                          "Worker pool 7 runs 9 threads")
    batches = [s for s in said if s.startswith("SELECT rowid, partition, text, id FROM items")]
    assert len(batches) == 1, batches


def test_a_write_reads_the_entry_index_in_one_statement(app: Waymarks) -> None:
    """Indexing a write's entry read how many entries the index held (``max(idx)``), then
    its last row: one statement now, the last row, whose position says how many."""
    said = _statements_of_a_project_claim(app, "The cache holds 10 entries.",
                                          "Worker pool 7 runs 9 threads")
    reads = [s for s in said if s.startswith("SELECT") and "FROM entries" in s]
    assert len(reads) == 1, reads
