"""A process holding no corpus ranks learned claims from a slice read by SQL (the postings
of :mod:`waymarks.store.evolution_postings`); the slice must rank exactly as the corpus of
every claim, query for query, and claims learned since the postings were written count."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.evolution.test_aging import days_ago
from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    ClaimRecord,
    Evidence,
    ForgetRecord,
    claim_id,
    encode_record,
)
from waymarks.recall.plan import plan_query
from waymarks.service import evolution_recall
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_rank import rank
from waymarks.service.evolution_slice import sliced

#: learned lately: hooks and plans age a claim on the real clock (test_aging.days_ago)
NOW = days_ago(5)
WORDS = ("cache retry queue deploy lint schema token backup index shard worker build "
         "release staging port cluster redis postgres nginx kafka").split()


def _learn(home: Path, texts: list[str]) -> None:
    with Evolution(home) as evo, evo.ledger.locked():
        for n, text in enumerate(texts):
            origin = ("/w/a", "/w/b")[n % 2]
            kind = ("fact", "preference", "decision")[n % 3]
            record = ClaimRecord(SCHEMA_VERSION, claim_id(origin, kind, text), origin,
                                 kind, text,  # type: ignore[arg-type]
                                 Evidence("user_statement", "model", f"s{n}", NOW),
                                 search_terms=(WORDS[n % len(WORDS)],))
            evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                               "data": encode_record(record), "timestamp": NOW},
                              evo.ids.entry_id)
        evo.sync()


def _texts(rng: random.Random, n: int, start: int = 0) -> list[str]:
    return [f"The {' '.join(rng.sample(WORDS, 3))} service {k} uses port {3000 + k % 40}"
            for k in range(start, start + n)]


def _ranked(corpus: object, query: str) -> list[tuple[str, float, float]]:
    result = rank(plan_query(query, ()), corpus, NOW, automatic=True,  # type: ignore[arg-type]
                  limit=evolution_recall.RANKED_LIMIT)
    return [(s.candidate.id, s.rank, s.relevance) for s in result.eligible]


def _compare(home: Path, queries: list[str]) -> int:
    """Each query ranked by a slice and by the whole corpus; the number of slices taken."""
    evolution_recall._CORPORA.clear()
    whole = evolution_recall._corpus(home)  # builds the corpus, posts every claim
    taken = 0
    for query in queries:
        with Evolution(home) as evo:
            evo.sync()
            with sliced(evo, plan_query(query, ()), evolution_recall._ms) as part:
                assert part is not None
                taken += 1
                assert _ranked(part, query) == _ranked(whole, query), query
                assert len(part.pairs) <= len(whole)
    return taken


@pytest.fixture(autouse=True)
def _no_warm_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evolution_recall, "_CORPORA", {})


def test_a_slice_ranks_as_the_whole_corpus(tmp_path: Path) -> None:
    rng = random.Random(5)
    _learn(tmp_path, _texts(rng, 400))
    queries = [f"which port does the {' '.join(rng.sample(WORDS, k))} service {n} use?"
               for n, k in enumerate(rng.choices([1, 2, 3, 4], k=40))]
    queries += ["redis", "deploy to staging", "service 17", "port 3007 kafka"]
    assert _compare(tmp_path, queries) == len(queries)
    assert any(_ranked(evolution_recall._corpus(tmp_path), q) for q in queries)


def test_claims_learned_since_the_postings_are_posted_by_the_slice(tmp_path: Path) -> None:
    rng = random.Random(9)
    _learn(tmp_path, _texts(rng, 200))
    evolution_recall._corpus(tmp_path)  # posts every claim
    _learn(tmp_path, ["The zebra gateway listens on port 9911",
                      *_texts(rng, 20, start=200)])
    with Evolution(tmp_path) as evo:
        evo.sync()
        with sliced(evo, plan_query("zebra gateway port", ()), evolution_recall._ms) as part:
            assert part is not None and len(part) == 221
            found = _ranked(part, "zebra gateway port")
    assert found and found[0][0] == claim_id("/w/a", "fact",
                                             "The zebra gateway listens on port 9911")
    _compare(tmp_path, ["zebra gateway port", "cache service 205", "kafka redis"])


def test_postings_of_another_analyser_are_not_used(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _learn(tmp_path, _texts(random.Random(3), 50))
    evolution_recall._corpus(tmp_path)
    from waymarks.service import evolution_analysis

    monkeypatch.setattr(evolution_analysis, "_ANALYSER", ["another analyser"])
    with Evolution(tmp_path) as evo:
        evo.sync()
        with sliced(evo, plan_query("cache port", ()), evolution_recall._ms) as part:
            assert part is None


def test_a_process_holding_no_corpus_does_not_read_every_claim(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Claude Code hook without its helper, ``recall`` and ``plan`` built a corpus of
    every learned claim for one query (5-10 s at 60k claims on a loaded machine)."""
    from waymarks.store.evolution import EvolutionStore

    _learn(tmp_path, [*_texts(random.Random(4), 100), "The zebra gateway listens on 9911"])
    evolution_recall.recall_learned(tmp_path, "zebra gateway")  # the first one posts
    evolution_recall._CORPORA.clear()  # a new process

    def every_claim(*_args: object, **_kw: object) -> None:
        raise AssertionError("read every learned claim for one query")

    monkeypatch.setattr(EvolutionStore, "readable_claims", every_claim)
    result = evolution_recall.recall_learned(tmp_path, "zebra gateway")
    assert [s.candidate.text for s in result.eligible] == ["The zebra gateway listens on 9911"]


def test_the_claude_code_helper_builds_the_corpus_as_it_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Off its request path: its first prompts read slices, then every prompt ranks from
    the corpus it keeps (built on a prompt, it took seconds at 60k claims, past the hook's
    4 s wait, and the hook did the prompt again itself)."""
    from waymarks.hosts import cc_helper_start
    from waymarks.service.learning import set_learning

    _learn(tmp_path, _texts(random.Random(6), 60))
    set_learning(tmp_path, True)
    cc_helper_start.warm_learned(tmp_path).join()
    assert len(evolution_recall._CORPORA[str(tmp_path)].corpus) == 60


def test_no_corpus_is_built_where_learning_is_off(tmp_path: Path) -> None:
    from waymarks.hosts import cc_helper_start

    _learn(tmp_path, _texts(random.Random(6), 10))
    cc_helper_start.warm_learned(tmp_path).join()
    assert evolution_recall._CORPORA == {}


def test_claims_forgotten_after_they_were_posted_are_not_counted(tmp_path: Path) -> None:
    rng = random.Random(12)
    texts = _texts(rng, 300)
    _learn(tmp_path, texts)
    evolution_recall._corpus(tmp_path)  # posts every claim
    with Evolution(tmp_path) as evo, evo.ledger.locked():
        for n in range(0, 300, 7):
            origin, kind = ("/w/a", "/w/b")[n % 2], ("fact", "preference", "decision")[n % 3]
            record = ForgetRecord(SCHEMA_VERSION, claim_id(origin, kind, texts[n]), NOW)
            evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                               "data": encode_record(record), "timestamp": NOW},
                              evo.ids.entry_id)
        evo.sync()
    queries = [f"the {' '.join(rng.sample(WORDS, 2))} service {n}" for n in range(0, 300, 7)]
    assert _compare(tmp_path, [*queries, "cache", "port 3014"]) == len(queries) + 2
    assert len(evolution_recall._corpus(tmp_path)) == 300 - len(range(0, 300, 7))


def test_counts_over_the_recallable_claims_never_seek_a_claim_per_holder(
        tmp_path: Path) -> None:
    """A word every claim holds: SQLite walked its postings and sought each holder's row
    for its state (0.2 s a count at 60k claims, a dozen counts a prompt); the claims not
    recallable are few, so the counts start from them (the state index)."""
    import sqlite3

    from waymarks.store import evolution_postings as postings

    _learn(tmp_path, _texts(random.Random(2), 40))
    evolution_recall._corpus(tmp_path)
    db = sqlite3.connect(tmp_path / "waymarks.db")
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    assert postings.counts(db, ["w:servic", "c:port"], ["provisional"], strong=False) == \
        {"w:servic": 40, "c:port": 40}
    assert postings.posted(db, ["provisional"]) == 40
    db.set_trace_callback(None)
    plans = [" / ".join(str(r[3]) for r in db.execute(f"EXPLAIN QUERY PLAN {sql}"))
             for sql in statements if "JOIN" in sql]
    assert plans
    for plan in plans:
        assert plan.startswith("SEARCH c USING COVERING INDEX evo_claims_by_state"), plan


def _hook_home(tmp_path: Path) -> tuple[Path, Path, str]:
    """A home with a pin and learned claims (learning on), one session started."""
    import uuid

    from waymarks.hosts.claude_code import handle
    from waymarks.service.app import Waymarks
    from waymarks.service.learning import set_learning

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    sid = str(uuid.uuid4())
    handle("SessionStart", {"session_id": sid, "cwd": str(project),
                            "hook_event_name": "SessionStart", "source": "startup"}, home)
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Project rule: keep functions short")
    _learn(home, ["The zebra gateway listens on port 9911", *_texts(random.Random(1), 30)])
    set_learning(home, True)
    return home, project, sid


def _drop_projection(home: Path, *, fold: bool) -> None:
    """waymarks.db and its side files deleted (new, set aside, an upgrade's); with
    ``fold``, the ledgers folded into a new one by a process of its own, nothing posted."""
    for path in home.glob("waymarks.db*"):
        path.unlink()
    if fold:
        with Evolution(home) as evo:
            evo.sync()


def _unposted_hook_home(tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, str]:
    """:func:`_hook_home` folded again with no postings, and a hook that leaves a build of
    more than 10 learned claims to a process with the time."""
    home, project, sid = _hook_home(tmp_path)
    _drop_projection(home, fold=True)
    monkeypatch.setattr(evolution_recall, "HOOK_CORPUS_CLAIMS", 10)
    return home, project, sid


def _hook_context(home: Path, project: Path, sid: str) -> str:
    """The context a prompt's hook injects for a question on the zebra gateway."""
    from waymarks.hosts.claude_code import handle

    said = handle("UserPromptSubmit", {"session_id": sid, "cwd": str(project),
                                       "hook_event_name": "UserPromptSubmit",
                                       "prompt": "which port does the zebra gateway use?"},
                  home)
    assert said is not None
    return str(said["hookSpecificOutput"]["additionalContext"])


def test_a_prompt_hook_leaves_a_long_fold_to_a_process_with_the_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With waymarks.db new (deleted, set aside, upgraded) at 60k learned claims, the fold
    takes 30-60 s: Claude Code killed the hook at 10 s, its transaction uncommitted, and
    every later prompt started over: no context, pins included, and no helper started
    (the hook starts it after its own work). The hook now plans without learned memory."""
    home, project, sid = _hook_home(tmp_path)
    _drop_projection(home, fold=False)
    monkeypatch.setattr(evolution_recall, "HOOK_FOLD_BYTES", 1000)
    context = _hook_context(home, project, sid)
    assert "keep functions short" in context and "zebra" not in context
    with Evolution(home) as evo:
        assert evo.unfolded_bytes() > 1000  # left to a process with the time
    found = evolution_recall.recall_learned(home, "zebra gateway port")
    assert [s.candidate.text for s in found.eligible][:1] == \
        ["The zebra gateway listens on port 9911"]


def test_a_ledger_not_the_one_folded_is_all_to_fold_for_a_hook(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An older copy of the ledger restored over it (or a line edited by hand) is folded
    again from its first byte, yet the hook counted only the bytes past the checkpoint
    (none: the copy is shorter) and folded it all: at 60k claims, killed at 10 s with no
    context, pins included, on every prompt after."""
    from waymarks.service.learning import ledger_path

    home, project, sid = _hook_home(tmp_path)
    older = ledger_path(home).read_bytes()
    _learn(home, _texts(random.Random(2), 5, start=100))
    ledger_path(home).write_bytes(older)  # restored from a backup
    monkeypatch.setattr(evolution_recall, "HOOK_FOLD_BYTES", 1000)
    with Evolution(home) as evo:
        assert evo.unfolded_bytes() == len(older)  # the whole copy is folded again
    context = _hook_context(home, project, sid)
    assert "keep functions short" in context and "zebra" not in context


def test_rebuild_index_posts_every_learned_claim(tmp_path: Path) -> None:
    """``rebuild-index`` emptied the postings with the projection and wrote none, so the
    next process holding no corpus (a prompt's hook without the helper) built the whole
    corpus itself, every learned claim analysed (5-19 s at 60k claims: past the hook's
    10 s, the postings never written, and so on every prompt after)."""
    from waymarks.service.app import Waymarks

    home = tmp_path / "home"
    _learn(home, _texts(random.Random(3), 40))
    with Waymarks(home) as app:
        assert app.rebuild_index()["evolutionRecords"] == 40
    evolution_recall._CORPORA.clear()  # (a process of its own)
    with Evolution(home) as evo:
        evo.sync()
        with sliced(evo, plan_query("which port does the cache service use", ()),
                    evolution_recall._ms) as part:
            assert part is not None  # read from the postings, not every claim


def test_a_prompt_hook_leaves_a_long_build_of_the_corpus_to_a_process_with_the_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database whose postings are not there (new or set aside, its ledger folded since
    by `waymarks evolution list` as the hook's note advised, a capture or Pi's bridge; or
    an upgrade's new analyser): the hook built the corpus of every learned claim itself,
    killed at 10 s at 60k claims with no context, pins included. It now plans without
    learned memory; a process with the time builds it."""
    home, project, sid = _unposted_hook_home(tmp_path, monkeypatch)
    context = _hook_context(home, project, sid)
    assert "keep functions short" in context and "zebra" not in context
    found = evolution_recall.recall_learned(home, "zebra gateway port")  # (the time)
    assert [s.candidate.text for s in found.eligible][:1] == \
        ["The zebra gateway listens on port 9911"]
    evolution_recall._CORPORA.clear()  # the next hook's own process: a slice
    assert "zebra" in _hook_context(home, project, sid)


def test_a_prompt_hook_leaves_out_a_build_of_3000_learned_claims(tmp_path: Path) -> None:
    """After an upgrade whose analysis differs, a hook without its helper analysed up to
    10,000 learned claims again itself: at 9k, 1.9 s of CPU but 7.4-9.0 s at a load of
    7-9 on 2 cores, near Claude Code's 10 s kill. About 0.15-0.2 s of CPU per 1,000
    claims, a hook leaves a build of 3,000 to a process with the time."""
    home, project, sid = _hook_home(tmp_path)
    _learn(home, _texts(random.Random(2), 3_000, start=100))
    _drop_projection(home, fold=True)  # nothing posted: as after an upgrade's new analyser
    evolution_recall._CORPORA.clear()  # (the hook's own process)
    context = _hook_context(home, project, sid)
    assert "keep functions short" in context and "zebra" not in context


def test_a_warm_process_that_waits_briefly_still_builds_the_corpus_it_keeps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pi's bridge waits briefly too, and has no helper: leaving the build out there left
    learned memory out of every Pi plan while the postings were not written."""
    from waymarks.personal.setup import plan_with_memory
    from waymarks.service.app import Waymarks

    home, project, _sid = _unposted_hook_home(tmp_path, monkeypatch)
    with Waymarks(home, cwd=str(project), keep_recall_index=True,
                  busy_timeout_ms=2_500) as app:  # as Pi's bridge plans
        plan = plan_with_memory(app, "which port does the zebra gateway use?")
    assert any("zebra" in m.content for m in plan.messages if m.kind != "request")


def test_a_corpus_build_writes_its_analyses_and_postings_in_parts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Claude Code helper's start wrote the analyses and postings of every learned
    claim in one transaction (~757k rows at 60k claims), in which every prompt's hook,
    waiting 1 s for its own write, added no context, pins included: each part is a
    transaction of its own, committed before the next, and the slices rank as before."""
    import sqlite3

    from waymarks.store import evolution_postings

    _learn(tmp_path, _texts(random.Random(3), 10))
    monkeypatch.setattr("waymarks.store.evolution.WRITE_CHUNK", 3, raising=False)
    real_put = evolution_postings.put
    seen: list[tuple[int, int]] = []

    def put(db: sqlite3.Connection, by: str, claims: list[evolution_postings.Posted]) -> None:
        with sqlite3.connect(tmp_path / "waymarks.db") as other:  # another reader
            seen.append(other.execute(
                "SELECT (SELECT count(*) FROM evo_postings WHERE feature = ''),"
                " (SELECT count(*) FROM evo_analysis)").fetchone())
        real_put(db, by, claims)

    monkeypatch.setattr(evolution_postings, "put", put)
    assert _compare(tmp_path, ["which port does the cache service use"]) == 1
    assert seen == [(0, 10), (3, 10), (6, 10), (9, 10)]


def test_a_fresh_process_ranking_an_english_query_does_not_load_the_chinese_segmenter(
        tmp_path: Path) -> None:
    """The analyser's fingerprint (what the stored analyses and postings are checked
    against) analysed a probe holding Chinese, so every process ranking learned claims
    loaded rjieba's dictionary (~140 ms of CPU, a prompt hook without its helper) for a
    query and claims without a Han character. It names the segmenter instead."""
    import subprocess
    import sys

    _learn(tmp_path, _texts(random.Random(5), 30))
    evolution_recall.recall_learned(tmp_path, "cache service port")  # analysed, posted
    probe = ("import sys\nfrom pathlib import Path\n"
             "from waymarks.service import evolution_recall\n"
             f"result = evolution_recall.recall_learned(Path({str(tmp_path)!r}), 'cache port')\n"
             "print(bool(result.eligible), 'rjieba' in sys.modules,"
             " 'dataclasses' in sys.modules, '_hashlib' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    # nor does it declare a dataclass (``inspect``, ``ast``, ``dis`` and an ``exec`` a
    # class: its rows, events and aging are msgspec Structs, as the recall path's records)
    # nor OpenSSL's bindings (~2-6 ms) for the SHA-256 of IDs and keys (core/digests.py)
    assert done.stdout.split() == ["True", "False", "False", "False"]


def test_the_analysers_fingerprint_names_the_segmenter_loaded_or_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same fingerprint whether rjieba was loaded first or not, and another one where
    Chinese is cut into bigrams (rjieba missing): the stored analyses are not reused."""
    from waymarks.service import evolution_analysis, segmenter

    monkeypatch.setattr(evolution_analysis, "_ANALYSER", [])
    before = evolution_analysis._analyser()
    pytest.importorskip("rjieba")
    monkeypatch.setattr(evolution_analysis, "_ANALYSER", [])
    assert evolution_analysis._analyser() == before
    assert before.endswith(":rjieba " + segmenter.installed_version("rjieba"))
    monkeypatch.setattr(segmenter, "installed_version", lambda _name: None)
    monkeypatch.setattr(evolution_analysis, "_ANALYSER", [])
    assert evolution_analysis._analyser().endswith(":bigrams")


def test_too_many_unposted_claims_are_counted_never_listed(tmp_path: Path) -> None:
    """While a warm process writes the postings of 60k claims (its start-up build), each
    plan of that process listed the IDs of every claim not posted yet, to find them more
    than a slice analyses itself: 0.5 s of CPU a plan, for a slice it then did not take.
    Two counts by index tell so; the IDs are listed only when they are few."""
    from waymarks.service.evolution_slice import MAX_UNPOSTED

    rng = random.Random(6)
    _learn(tmp_path, _texts(rng, 10))
    evolution_recall._corpus(tmp_path)  # posts those (the postings' analyser written)
    evolution_recall._CORPORA.clear()  # a new process, as the build's parts go on
    _learn(tmp_path, _texts(rng, MAX_UNPOSTED + 1, start=10))  # not posted
    with Evolution(tmp_path) as evo:
        evo.sync()
        statements: list[str] = []
        evo.store.db.set_trace_callback(statements.append)
        with sliced(evo, plan_query("cache port", ()), evolution_recall._ms) as part:
            assert part is None
        evo.store.db.set_trace_callback(None)
    assert statements and not [s for s in statements if "NOT EXISTS" in s]


def test_a_prompt_hook_that_leaves_learned_memory_out_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook without its helper that left a build of the learned claims' index to a
    process with the time (HOOK_CORPUS_CLAIMS) sent the pins and said nothing: the person
    never heard that what they had learned went out of every prompt, nor how to mend it
    (Pi's bridge says it). The hook says it, naming the command for its own home."""
    from waymarks.core.text import named_command
    from waymarks.hosts.claude_code import handle

    home, project, sid = _unposted_hook_home(tmp_path, monkeypatch)
    evolution_recall._CORPORA.clear()  # (the hook's own process)
    said = handle("UserPromptSubmit", {"session_id": sid, "cwd": str(project),
                                       "hook_event_name": "UserPromptSubmit",
                                       "prompt": "which port does the zebra gateway use?"},
                  home)
    assert said is not None
    told = said.get("systemMessage", "")
    assert told.startswith(f"Waymarks: {evolution_recall.LEARNED_LEFT_OUT}"), said
    assert named_command(str(home), "rebuild-index") in told
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "keep functions short" in context and "zebra" not in context.split(told)[-1]
