"""The claims' subject terms (``store/claim_subjects.py``): a write reads only the claims
that may share its subject, and never misses one the full scan would compare."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import msgspec
import pytest

from waymarks.core.contradiction import Signature, contradicts, signature
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected
from waymarks.store import claim_subjects
from waymarks.store.integrity import ITEM_COLUMNS, item_checksum
from waymarks.store.projection import Projection

NAMES = ["billing", "search", "ingest", "auth", "gateway"]
PARTS = ["worker", "api", "queue", "cache", "database", "pool"]
ATTRIBUTES = ["port", "timeout", "retries", "replicas", "threads", "region"]
STATES = ["enabled", "disabled"]


def _claim(rng: random.Random) -> str:
    subject = " ".join(rng.sample([rng.choice(NAMES), *rng.sample(PARTS, 2)],
                                  rng.randint(1, 3)))
    if rng.random() < 0.2:
        return f"The {subject} {rng.choice(['debug logging', 'tracing'])} is " \
               f"{rng.choice(STATES)}."
    return f"The {subject} {rng.choice(ATTRIBUTES)} is {rng.randint(1, 60)}."


def _projection_with(path: Path, texts: list[str]) -> Projection:
    """A projection whose items table holds ``texts`` as active memory (one partition)."""
    projection = Projection(path, 0)
    db = projection.db
    with projection.transaction():
        for n, text in enumerate(texts):
            # rows as written, checksum included: the lookups verify every row they read
            row = (f"m{n}", "memory", "session", "p", None, None, None, text, text.lower(),
                   None, 0, "active", None, None, None, None, "s", f"e{n}", None, 0, n, b"{}")
            db.execute(f"INSERT INTO items ({ITEM_COLUMNS}) VALUES ({', '.join('?' * 23)})",
                       (*row, item_checksum(row)))
    return projection


def _probes(rng: random.Random, projection: Projection, count: int
            ) -> Iterator[tuple[str, Signature, Sequence[tuple[str, str]]]]:
    """``count`` new claims, and for each that has a signature, the stored claims that
    may share its subject (as the store answers)."""
    for probe in [_claim(rng) for _ in range(count)]:
        mine = signature(probe)
        if mine is None:
            continue
        with projection.transaction():
            yield probe, mine, projection.view.active_texts("p", mine.subject)


@pytest.mark.slow
def test_the_claims_sharing_a_subject_hold_every_one_it_may_contradict(
        tmp_path: Path) -> None:
    rng = random.Random(15)
    texts = [_claim(rng) for _ in range(600)]
    projection = _projection_with(tmp_path / "w.db", texts)
    everything = projection.view.active_texts("p")
    assert len(everything) == 600
    compared = found = 0
    for probe, mine, shared in _probes(rng, projection, 300):
        assert set(shared) <= set(everything)
        wanted = {(i, t) for i, t in everything
                  if (theirs := signature(t)) is not None and contradicts(mine, theirs)}
        assert wanted <= set(shared), probe
        compared += len(shared)
        found += len(wanted)
    assert found > 300  # the probes do contradict stored claims
    assert compared < 300 * 600 / 2  # and far fewer claims were read than all of them


def test_rows_are_caught_up_after_a_bulk_load_renumbers_the_items(
        make_app: Callable[..., Waymarks], tmp_path: Path) -> None:
    app = make_app()
    assert isinstance(app.remember("The billing worker port is 7001."), Committed)
    assert isinstance(app.remember("The billing worker port is 7002."), Rejected)

    def rows() -> list[tuple[object, ...]]:
        db = app.projection.db
        return [*db.execute("SELECT partition, term, item FROM claim_subjects ORDER BY 1, 2, 3"),
                *db.execute("SELECT partition, term, claims FROM claim_terms ORDER BY 1, 2")]

    assert rows()  # caught up by the refused write

    def refold() -> None:
        with app.projection.transaction():
            app.projection.refold()

    refold()  # items numbered afresh: the subject rows are forgotten
    assert not rows()
    assert isinstance(app.remember("The billing worker port is 7002."), Rejected)
    lazily = rows()
    assert lazily
    # a rebuild catches them up itself (the first write after it indexed every claim of
    # the store: ~10 s CPU at 65k claims), to the rows the lazy catch-up writes
    app.rebuild_index()
    assert not app.projection.claim_subjects_behind()
    assert rows() == lazily
    assert isinstance(app.remember("The billing worker port is 7002."), Rejected)


def test_a_database_from_before_the_table_catches_up_on_its_first_write(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    app = make_app()
    assert isinstance(app.remember("The search cache size is 512 entries."), Committed)
    app.close()
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    claim_subjects.reset(db)  # as a database migrated to the new table finds it: empty
    db.close()
    again = make_app(session=str(app.current_session().path))  # type: ignore[union-attr]
    assert isinstance(again.remember("The search cache size is 256 entries."), Rejected)


@pytest.mark.slow
def test_the_lookup_does_not_grow_with_the_claims_that_share_nothing(tmp_path: Path) -> None:
    """SQLite's work (its virtual machine's steps) to find one subject's claims is the
    same beside 500 unrelated claims as beside 5,000: they are never walked."""
    def steps(unrelated: int) -> int:
        texts = ["The billing worker port is 7001."] + [
            f"The node{n} agent heartbeat is {n % 50} seconds." for n in range(unrelated)]
        projection = _projection_with(tmp_path / f"w{unrelated}.db", texts)
        subject = signature("The billing worker port is 7002.")
        assert subject is not None
        with projection.transaction():
            claim_subjects.catch_up(projection.db)
        counted = [0]

        def count() -> int:
            counted[0] += 1
            return 0

        projection.db.set_progress_handler(count, 10)
        with projection.transaction():
            found = projection.view.active_texts("p", subject.subject)
        projection.db.set_progress_handler(None, 0)
        assert [text for _, text in found] == ["The billing worker port is 7001."]
        return counted[0]

    few, many = steps(500), steps(5000)
    assert many <= few * 1.5 + 20, (few, many)


@pytest.mark.slow
def test_common_words_in_every_subject_do_not_make_every_claim_a_candidate(
        tmp_path: Path) -> None:
    """Subjects that all hold "service", "port" and "staging": a new claim reads the
    claims of its rarest term and of its subject's parts, not every claim with a common
    word; and a claim whose subject is a part of the new one's is still found."""
    texts = [f"Service {n} listens on port {2000 + n} in staging cluster {n % 97}."
             for n in range(3000)]
    texts.append("The staging service cluster port is 9999.")  # a part of the probe's
    # subject, without its rarest term: found by the whole subject
    projection = _projection_with(tmp_path / "w.db", texts)
    probe = signature("Service 77 listens on port 2078 in staging cluster 77.")
    assert probe is not None
    with projection.transaction():
        found = [text for _, text in projection.view.active_texts("p", probe.subject)]
    assert texts[77] in found and texts[-1] in found
    # found, though "Service 77" names one of the services: a narrower thing, no conflict
    assert not contradicts(probe, signature(texts[-1]))  # type: ignore[arg-type]
    assert contradicts(signature("The staging service cluster port is 9998."),  # type: ignore[arg-type]
                       signature(texts[-1]))  # type: ignore[arg-type]
    assert len(found) <= 40, len(found)


def test_catching_up_in_batches_indexes_every_claim(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claim_subjects, "_BATCH", 7)
    texts = [f"The node{n} agent heartbeat is {n} seconds." for n in range(50)]
    projection = _projection_with(tmp_path / "w.db", texts)
    with projection.transaction():
        assert claim_subjects.catch_up(projection.db) == 50
        assert claim_subjects.catch_up(projection.db) == 0  # nothing new
    indexed = {item for (item,) in projection.db.execute(
        "SELECT DISTINCT item FROM claim_subjects")}
    assert indexed == set(range(1, 51))


def test_rows_caught_up_by_other_signature_code_are_forgotten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    projection = _projection_with(tmp_path / "w.db", ["The worker ram limit is 4gb."])
    with projection.transaction():
        assert claim_subjects.catch_up(projection.db) == 1
        assert claim_subjects.catch_up(projection.db) == 0
    monkeypatch.setattr(claim_subjects, "fingerprint", lambda: "another release")
    with projection.transaction():  # the signature's code changed: every claim again
        assert claim_subjects.catch_up(projection.db) == 1
        assert claim_subjects.catch_up(projection.db) == 0


def test_the_rarest_term_is_known_exactly_per_partition(tmp_path: Path) -> None:
    """Every term of the new claim is common: the claims of the one held by the fewest
    claims of this partition are read (counting up to a cap chose the first of them by
    name; counting every partition, "zeta" here)."""
    texts = [f"The api node{n} timeout is {n}." for n in range(600)]
    texts += [f"The zeta node{n} timeout is {n}." for n in range(800)]
    projection = _projection_with(tmp_path / "w.db", texts)
    projection.db.execute("UPDATE items SET partition = 'q' WHERE text LIKE 'The zeta%'"
                          " AND rowid % 2 = 0")  # 400 zeta claims left in partition p
    probe = signature("The zeta api timeout is 7.")
    assert probe is not None and probe.subject == {"zeta", "api", "timeout"}
    with projection.transaction():
        found = projection.view.active_texts("p", probe.subject)
    assert len(found) == 400 and all(text.startswith("The zeta") for _, text in found)


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_every_contradiction_of_the_fixture_pairs_is_among_the_claims_read(
        tmp_path: Path) -> None:
    """The 2,481 hand-written claim pairs of ``benchmarks/conflict_pairs.json`` (3,778
    claims: English, Chinese, paraphrases) in one partition: for each claim, every stored
    claim whose signature it contradicts is among those the lookup reads (``conflicts.py``
    itself runs the in-memory view, which reads every claim).

    Which stored claims it contradicts is found by comparing it with every stored claim
    whose subject contains its own or is contained in it: two claims are compared only
    then (:func:`contradicts`: the same subject, or one about the other, a strict subset;
    checked below on pairs outside it). Comparing each claim with all 3,778 (14 M
    comparisons) took 425 s of CI's 1,813."""
    pairs = json.loads((Path(__file__).resolve().parents[2] / "benchmarks"
                        / "conflict_pairs.json").read_text())
    texts = sorted({p[side] for p in pairs for side in ("a", "b")})
    projection = _projection_with(tmp_path / "w.db", texts)
    everything = projection.view.active_texts("p")
    assert len(everything) == len(texts)
    signed = [(i, t, theirs) for i, t in everything if (theirs := signature(t)) is not None]
    by_subject: dict[frozenset[str], list[tuple[str, str, Signature]]] = {}
    for row in signed:
        by_subject.setdefault(row[2].subject, []).append(row)
    by_term: dict[str, set[frozenset[str]]] = {}
    for subject in by_subject:
        for term in subject:
            by_term.setdefault(term, set()).add(subject)

    def near(mine: frozenset[str]) -> list[tuple[str, str, Signature]]:
        """The claims whose subject contains ``mine`` or is contained in it (one holding a
        term of it, or none at all)."""
        subjects = set().union(*(by_term.get(term, ()) for term in mine)) if mine \
            else set(by_subject)
        subjects |= {frozenset()} & by_subject.keys()
        return [row for subject in subjects if subject <= mine or mine <= subject
                for row in by_subject[subject]]
    contradicted = compared = 0
    for claim in texts:
        mine = signature(claim)
        if mine is None:
            continue
        with projection.transaction():
            shared = set(projection.view.active_texts("p", mine.subject))
        candidates = near(mine.subject)
        wanted = {(i, t) for i, t, theirs in candidates
                  if t != claim and contradicts(mine, theirs)}
        assert wanted <= shared, claim
        contradicted += bool(wanted)
        compared += len(candidates)
    assert contradicted > 150
    assert compared < len(texts) * len(signed) / 10  # (the point of the grouping)
    # the grouping leaves out no contradiction: claims of subjects neither containing the
    # other's never contradict, neither the fixture's pairs (written to, most of them) nor
    # 20,000 other such pairs drawn at random
    for pair in pairs:
        ours = [signature(pair[side]) for side in ("a", "b")]
        if ours[0] is not None and ours[1] is not None and (
                contradicts(ours[0], ours[1]) or contradicts(ours[1], ours[0])):
            assert ours[0].subject <= ours[1].subject or ours[1].subject <= ours[0].subject, \
                pair
    rng = random.Random(2481)
    apart = 0
    while apart < 20_000:
        (_, a, mine), (_, b, theirs) = rng.sample(signed, 2)
        if mine.subject <= theirs.subject or theirs.subject <= mine.subject:
            continue
        assert not contradicts(mine, theirs), (a, b)
        apart += 1


def test_without_readable_sources_the_release_stands_for_the_code(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from waymarks.core import contradiction, text
    from waymarks.store.code_digest import sources_digest

    monkeypatch.setattr(contradiction, "__file__", None)
    assert sources_digest(contradiction, text).startswith(("release ", "unknown"))


def test_the_in_memory_views_read_the_same_claims_as_the_store(tmp_path: Path) -> None:
    """An import's dry run folds its lines into an in-memory overlay: asked which claims
    may share a subject, it sorted every claim the earlier lines added, for every line
    (10,000 lines: 1 min 47 s). The in-memory view now keeps the store's subject keys and
    answers with the same claims, and the overlay passes the subject on to it."""
    from waymarks.core.model import MemoryItem
    from waymarks.core.replay import MemoryView, OverlayView
    from waymarks.core.rules import new_state

    rng = random.Random(48)
    texts = list(dict.fromkeys(_claim(rng) for _ in range(300)))
    projection = _projection_with(tmp_path / "w.db", texts)
    memory, overlay = MemoryView(), OverlayView(MemoryView())
    for n, text in enumerate(texts):
        state = new_state(MemoryItem(id=f"m{n}", scope="session", claim=text, created_at=0,
                                     source_entry_ids=()),
                          "s", f"e{n}", n)
        state = msgspec.structs.replace(state, partition="p")
        memory.put(state)
        overlay.put(state)
    assert len(memory.active_texts("p")) == len(texts)
    read = 0
    for probe, mine, stored in _probes(rng, projection, 150):
        assert list(memory.active_texts("p", mine.subject)) == list(stored), probe
        assert list(overlay.active_texts("p", mine.subject)) == list(stored), probe
        read += len(stored)
    assert read < 150 * len(texts) / 2
    assert memory.active_texts("p", frozenset()) == []


def test_the_code_digest_covers_every_module_a_signature_is_read_by() -> None:
    """The rows are forgotten when the signature's code changes: a module it reads
    claims with (imported by ``core/contradiction.py`` or by a ``claim_*`` module it
    imports, the expression compiler aside) that the digest left out would keep claims
    listed under the terms its old code gave them."""
    import ast
    from pathlib import Path

    import waymarks.core

    root = Path(waymarks.core.__file__).parent

    def imported(name: str) -> set[str]:
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        return {node.module.rsplit(".", 1)[1] for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
                and node.module.startswith("waymarks.core.")}

    readers: set[str] = set()
    todo = ["contradiction"]
    while todo:
        name = todo.pop()
        if name not in readers:
            readers.add(name)
            todo.extend(m for m in imported(name) if m.startswith("claim_"))
    readers |= imported("contradiction")
    digested = {module.__name__.rsplit(".", 1)[1] for module in claim_subjects.SIGNATURE_CODE}
    assert readers - {"lazy_re"} <= digested, readers - {"lazy_re"} - digested


def test_catching_up_a_share_at_a_time_writes_what_one_catch_up_writes(
        tmp_path: Path) -> None:
    """A read catches the rows up a bounded share at a time (a plan after a rebuild signed
    every claim of the store in the prompt's hook: 10 s CPU at 100k): share after share,
    each leaving the rest behind, the rows and counts are those of one whole catch-up."""
    rng = random.Random(7)
    texts = [_claim(rng) for _ in range(40)]
    whole, shares = (_projection_with(tmp_path / name, texts) for name in ("a.db", "b.db"))
    with whole.transaction():
        assert claim_subjects.catch_up(whole.db) == 40
    looked = []
    while claim_subjects.behind(shares.db):
        with shares.transaction():
            looked.append(claim_subjects.catch_up(shares.db, limit=7))
    assert looked == [7, 7, 7, 7, 7, 5]
    for table in ("claim_subjects", "claim_terms"):
        rows = f"SELECT * FROM {table} ORDER BY 1, 2, 3"
        assert shares.db.execute(rows).fetchall() == whole.db.execute(rows).fetchall()


def test_rows_caught_up_in_one_transaction_are_caught_up_again_in_the_next(
        tmp_path: Path) -> None:
    """A write's check catches the rows up once per transaction while its connection
    changes nothing (no other connection writes inside a ``BEGIN IMMEDIATE``); a claim
    another connection commits after it is found by the next transaction's lookup."""
    path = tmp_path / "w.db"
    mine = signature("The billing worker port is 8080.")
    assert mine is not None
    first = _projection_with(path, ["The billing worker port is 8080."])
    seen: list[str] = []
    with first.transaction():
        assert [i for i, _ in first.view.active_texts("p", mine.subject)] == ["m0"]
        first.db.set_trace_callback(seen.append)
        assert [i for i, _ in first.view.active_texts("p", mine.subject)] == ["m0"]
        first.db.set_trace_callback(None)
    assert not any("claim_subjects_upto" in s for s in seen), seen  # caught up once in it
    other = sqlite3.connect(path, isolation_level=None)  # another process's, say
    row = ("m1", "memory", "session", "p", None, None, None, "The billing worker port "
           "is 9090.", "the billing worker port is 9090.", None, 0, "active", None, None,
           None, None, "s", "e1", None, 0, 1, b"{}")
    other.execute(f"INSERT INTO items ({ITEM_COLUMNS}) VALUES ({', '.join('?' * 23)})",
                  (*row, item_checksum(row)))
    other.close()
    with first.transaction():
        assert [i for i, _ in first.view.active_texts("p", mine.subject)] == ["m0", "m1"]
    first.close()


def test_the_claims_holding_any_term_are_those_of_each_term_alone(tmp_path: Path) -> None:
    """The typed-slot check asked each subject term alone (one statement a term and
    partition, ~8.5 a write under the session lock); asked every term at once, each view
    (the store's, in memory, the overlay) gives the same claims, a common term's left out
    alike, oldest first."""
    from waymarks.core.model import MemoryItem
    from waymarks.core.replay import MemoryView, OverlayView
    from waymarks.core.rules import new_state

    rng = random.Random(15)
    texts = list(dict.fromkeys(_claim(rng) for _ in range(300)))
    projection = _projection_with(tmp_path / "h.db", texts)
    memory, overlay = MemoryView(), OverlayView(MemoryView())
    for n, text in enumerate(texts):
        state = msgspec.structs.replace(new_state(
            MemoryItem(id=f"m{n}", scope="session", claim=text, created_at=0,
                       source_entry_ids=()), "s", f"e{n}", n), partition="p")
        memory.put(state)
        overlay.put(state)
    common = 0
    for _probe, mine, _stored in _probes(rng, projection, 60):
        terms = sorted(mine.subject)
        for most in (8, 48):  # (inside the probe's transaction)
            alone = {pair for term in terms for pair in projection.view.active_texts(
                "p", frozenset((term,)), most)}
            together = projection.view.active_texts_holding("p", terms, most)
            common += len(alone) < len({p for t in terms
                                        for p in memory.active_texts("p", frozenset((t,)))})
            expected = sorted(alone, key=lambda pair: int(pair[0][1:]))
            assert list(together) == expected, (terms, most)
            assert list(memory.active_texts_holding("p", terms, most)) == expected
            assert list(overlay.active_texts_holding("p", terms, most)) == expected
    assert common > 0  # (some term was held by more claims than ``most``: left out)
    with projection.transaction():
        assert projection.view.active_texts_holding("p", [], 48) == []
        assert projection.view.active_texts_holding("p", ["nowhere"], 48) == []


def test_the_typed_slot_check_reads_its_rivals_in_one_statement_a_partition(
        tmp_path: Path) -> None:
    """A claim of four subject terms checked against two partitions read its rivals one
    term at a time (eight lookups); now one statement a partition reads them all, and
    the rival is still found."""
    from waymarks.core.claim_slots import slot_rivals

    texts = ["The billing api worker port is 8080.", "The billing api worker timeout is 30."]
    projection = _projection_with(tmp_path / "r.db", texts)
    statements: list[str] = []
    with projection.transaction():
        projection.view.active_texts("p", frozenset(("billing",)))  # (rows caught up)
        projection.db.set_trace_callback(statements.append)
        found = list(slot_rivals(projection.view, "The billing api worker port is 9090.",
                                 ["p", "q"]))
        projection.db.set_trace_callback(None)
    assert found == ["m0"]
    reads = [s for s in statements if "claim_subjects" in s]
    assert len(reads) == 1, reads  # (partition "q" holds none of its terms: no read)
