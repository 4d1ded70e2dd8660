"""Recall of learned (evolved) claims, for ``recall``, ``memory_recall`` and the planner.

Global by design: every recallable learned claim of the home is a candidate, whatever its
origin (origin is provenance, not a boundary). The relevance policy is recall's own
(:mod:`waymarks.recall.learned`), with the model's search terms as aliases. Results carry
provenance (origin, evidence basis/method, source ID, date) and are always labelled
provisional. Nothing here writes; a home that never learned anything costs one ``stat``.

Aging and feedback (:mod:`waymarks.core.evolution.aging`) are read-time factors applied
*after* the relevance gates: freshness from the last confirmation, evidence weight from the
source-priority table, utility and accuracy from the last verdicts. A **dormant** claim is
left out of automatic injection (``automatic=True``: the planner's learned block) but stays
recallable on an explicit request (``recall``, ``memory_recall``). A row that is not well
formed, or whose ID is not the hash of its content, is left out and named
(:func:`bad_rows`); it never disables recall of the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.core.codec import utc_text
from waymarks.core.egress import Egress
from waymarks.core.records import replace
from waymarks.recall.digest import aging_note, render_digest
from waymarks.recall.engine import RecallResult
from waymarks.recall.plan import direct_plan, plan_query
from waymarks.service.learning import has_ledger
from waymarks.service.ports import iso

if TYPE_CHECKING:  # the planner loads where a plan is made, not on recall's path; the
    # evolution modules only once a home has learned something (a fresh recall stays lean)
    from waymarks.core.evolution.rows import ClaimRow
    from waymarks.ledger.log import SessionLog
    from waymarks.planner.learned import LearnedBlock
    from waymarks.planner.select import ManifestEntry, MemoryInput, PinInput
    from waymarks.recall.learned import LearnedClaim
    from waymarks.recall.scoring import Candidate, QueryPlan, Scored
    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution_corpus import Cached
    from waymarks.service.evolution_rank import Corpus


#: the ID of the person's own pin or claim a learned claim's text contradicts (or says),
#: if any (:class:`~waymarks.service.own_claims.OwnClaims`)
Contradicted = Callable[[str], "str | None"]


def _recallable(home: Path) -> tuple[list[ClaimRow], dict[str, str], list[str]]:
    """Recallable rows, source levels, and the IDs of rows left out as malformed."""
    if not has_ledger(home):
        return [], {}, []
    from waymarks.core.evolution.model import RECALLABLE_STATES
    from waymarks.service.evolution import Evolution

    with Evolution(home) as evo:
        evo.sync()
        rows, bad = evo.store.readable_claims(sorted(RECALLABLE_STATES))
        levels = evo.store.source_levels()
    return rows, levels, bad


#: the corpus per home, with the projection checkpoint it holds: a long-lived process
#: (Pi's bridge, the MCP server) reads and analyses the claims once, then follows each
#: change by the claims it touched (:mod:`.evolution_corpus`)
_CORPORA: dict[str, Cached] = {}


def _corpus(home: Path) -> Corpus | None:
    """The home's recallable learned claims as a ranking corpus (kept per process and
    brought up to date); ``None`` for a home that never learned anything."""
    if not has_ledger(home):
        return None
    from waymarks.service.evolution import Evolution

    with Evolution(home) as evo:
        evo.sync()
        return _whole(evo, home)


def warm(home: Path) -> None:
    """Build the home's corpus now and keep it (a long-lived process, off its request
    path: the Claude Code helper as it starts). Until then its queries read slices; once
    built, they rank from it and it follows each write."""
    from waymarks.service.learning import learning_enabled

    if has_ledger(home) and learning_enabled(home):
        _corpus(home)


#: the homes whose corpus a thread of this process is building (:func:`warm_on_a_thread`),
#: each with the event set when that thread is done
_BUILDING: dict[str, Any] = {}
#: how long a plan waits for that thread before it goes without learned memory (a small
#: home's is done well within it: its plans are as if the corpus had been built on them)
BUILD_WAIT_S = 1.0


def warm_on_a_thread(home: Path, on_failure: Callable[[BaseException], None]) -> Any:
    """:func:`warm` on a thread of its own (the thread), as a long-lived process starts
    (the Claude Code helper, Pi's bridge). Until it is done, this process's plans rank
    from a slice when the postings vouch for one, else go without learned memory and say
    so (:func:`_ranking`): Pi's bridge built the corpus on its first plan instead, 15 s
    at 60k learned claims, past the extension's 5 s for a call (no context at all)."""
    import threading

    key, done = str(home), threading.Event()
    _BUILDING[key] = done

    def build() -> None:
        try:
            warm(home)
        except Exception as exc:  # noqa: BLE001 (the process serves on; the caller logs)
            on_failure(exc)
        finally:
            done.set()
            if _BUILDING.get(key) is done:
                del _BUILDING[key]

    thread = threading.Thread(target=build, name="waymarks-learned", daemon=True)
    thread.start()
    return thread


def post_every_claim(home: Path) -> None:
    """Analyse and post every recallable learned claim (``rebuild-index``, which emptied
    the postings with the projection: the next process holding no corpus, a prompt's hook
    without the helper, then built the whole corpus itself, 5-19 s at 60k claims, past the
    hook's 10 s with the postings unwritten, and again on every prompt after)."""
    if not has_ledger(home):
        return
    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution_slice import persist

    with Evolution(home) as evo:
        evo.sync()
        # (a corpus this process kept is reused as it is: it posts nothing by itself)
        persist(evo, (), _whole(evo, home).live_pairs())


def _whole(evo: Evolution, home: Path) -> Corpus:
    from waymarks.service.evolution_corpus import corpus_of
    from waymarks.service.evolution_slice import persist

    before = _CORPORA.get(str(home))
    cached, fresh = corpus_of(evo, before, _ms)
    # analyses computed now, and every claim's postings after a whole build, are stored
    # so the next process reuses them (a cache: a busy or read-only database leaves it)
    persist(evo, fresh, cached.corpus.live_pairs() if cached is not before else ())
    _CORPORA[str(home)] = cached
    return cached.corpus


#: the most of the evolution ledger a prompt's hook folds before planning (~1 s of CPU):
#: past it (a new or rebuilt database at tens of thousands of learned claims: 30-60 s),
#: the fold ran past Claude Code's 10 s limit, the hook was killed with its transaction
#: uncommitted, and every later prompt started it again: no context, pins included, ever
HOOK_FOLD_BYTES = 4 << 20
#: the most learned claims a prompt's hook in a process of its own (which keeps nothing:
#: the helper and Pi's bridge keep what they build) builds a corpus of when their postings
#: cannot give it a slice: past it (the postings of a new database, or of an upgrade's
#: analyser, not written yet), at 60k claims the hook was killed at 10 s with no context,
#: pins included, before it wrote them, and so every prompt after it. Analysing them costs
#: ~0.15-0.2 s of CPU per 1,000 claims, and 4-5 times that in wall time on a busy machine:
#: at 10,000, 9k claims took a hook 7.4-9.0 s at a load of 7-9 on 2 cores; 2,500 is
#: ~0.5 s of CPU, a few seconds at such a load
HOOK_CORPUS_CLAIMS = 2_500
def _left_to(home: Path) -> str:
    """What does the work a hook leaves, whatever the host: the command for ``home`` (the
    hook's ``--home``, which the person's shell need not use)."""
    from waymarks.core.text import named_command

    return (f"the Claude Code helper does it as it starts, or run "
            f"`{named_command(str(home), 'rebuild-index')}` once")


class TooLongForAHook(Exception):
    """More learned-memory work before ranking than a prompt's hook has time for."""


#: how each note of learned memory left out of a plan starts
LEARNED_LEFT_OUT = "learned memory left out of this prompt"


def _being_built() -> TooLongForAHook:
    return TooLongForAHook(
        f"{LEARNED_LEFT_OUT}: this process is still folding and indexing "
        "the learned claims, as it does once when it starts; used as soon as that is done")


def _fold_too_long(home: Path, unfolded: int) -> TooLongForAHook:
    return TooLongForAHook(
        f"{LEARNED_LEFT_OUT}: {unfolded / 1e6:.1f} MB of the evolution ledger are still "
        f"to be folded, more than a prompt's hook has time for; {_left_to(home)}")


def _build_too_long(home: Path, claims: int) -> TooLongForAHook:
    return TooLongForAHook(
        f"{LEARNED_LEFT_OUT}: its index of {claims:,} learned claims is still to be "
        f"built, more than a prompt's hook has time for; {_left_to(home)}")


@contextmanager
def _ranking(home: Path, plan: QueryPlan, fold_limit: int | None = None,
             build_limit: int | None = None) -> Iterator[Corpus | None]:
    """:func:`_corpus`, or, in a process holding none, the slice ``plan`` needs when the
    postings vouch for it (:mod:`.evolution_slice`: the query is ranked in this block;
    not kept, the next query reads its own). ``fold_limit`` (a hook's): raise
    :class:`TooLongForAHook` rather than fold more of the ledger than that many bytes;
    ``build_limit`` (a hook's process, which keeps no corpus): rather than build one of
    more than that many claims, to be thrown away."""
    if not has_ledger(home):
        yield None
        return
    from waymarks.core.evolution.model import RECALLABLE_STATES
    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution_slice import sliced
    from waymarks.store.evolution_postings import claims_in

    # a thread of this process building the corpus (:func:`warm_on_a_thread`) folds a
    # long backlog and builds what a plan would otherwise build on its request path; a
    # plan waits for it (at most BUILD_WAIT_S) only when nothing else serves it: waiting
    # first, every plan during a 60k build waited a second, then ranked from postings
    done = _BUILDING.get(str(home))
    building = done is not None and not done.is_set()
    with Evolution(home) as evo:
        limit = HOOK_FOLD_BYTES if building and fold_limit is None else fold_limit
        if limit is not None and (unfolded := evo.unfolded_bytes()) > limit \
                and not (building and fold_limit is None and _waited(done)):
            raise _being_built() if building else _fold_too_long(home, unfolded)
        evo.sync()
        if str(home) not in _CORPORA:
            with sliced(evo, plan, _ms) as part:
                if part is not None:
                    yield part
                    return
            if building and not _waited(done) and str(home) not in _CORPORA:
                raise _being_built()
            if build_limit is not None and (claims := claims_in(
                    evo.store.db, sorted(RECALLABLE_STATES))) > build_limit:
                raise _build_too_long(home, claims)
        yield _whole(evo, home)


def _waited(done: Any) -> bool:
    """Whether the build ``done`` tells of ended within :data:`BUILD_WAIT_S` (a small
    home's does: its plans are as if the corpus had been built on them)."""
    return bool(done.wait(BUILD_WAIT_S))


def _learned(row: ClaimRow, levels: dict[str, str]) -> LearnedClaim:
    from waymarks.recall.learned import LearnedClaim

    return LearnedClaim(row.id, row.kind, row.state, row.origin, row.content, row.search_terms,
                        f"{row.basis}/{row.method}", row.source_id, _ms(row.updated_at),
                        levels.get(row.source_id))


def learned_claims(home: Path) -> list[LearnedClaim]:
    """Every recallable learned claim of ``home`` (none without an evolution ledger)."""
    rows, levels, _bad = _recallable(home)
    return [_learned(r, levels) for r in rows]


def bad_rows(home: Path) -> list[str]:
    """IDs of learned claims left out of recall because their row is malformed."""
    return _recallable(home)[2]


def edited_records(ledger: SessionLog) -> list[str]:
    """IDs of learned claims whose record in the evolution ledger no longer hashes to its
    ID (its text, origin or kind edited by hand): their rows are left out as malformed,
    and ``rebuild-index`` folds the same records again, so only restoring the lines (or
    forgetting the claims) mends them."""
    from waymarks.core.evolution.model import (
        EVOLUTION_CUSTOM_TYPE,
        ClaimRecord,
        claim_id,
        decode_record,
    )
    from waymarks.ledger.entries import custom_entries

    found = (decode_record(entry.data) for entry in custom_entries(ledger,
                                                                    EVOLUTION_CUSTOM_TYPE))
    return list(dict.fromkeys(r.id for r in found if isinstance(r, ClaimRecord)
                              and r.id != claim_id(r.origin, r.kind, r.content)))


def bad_rows_problems(home: Path, ledger: SessionLog, edited: Sequence[str]
                      ) -> list[str]:
    """``health``'s problems for the learned claims left out of recall as malformed
    (:func:`bad_rows`), by cause: a record edited in the ledger (``edited``), or a
    damaged row in the database, which ``rebuild-index`` folds again."""
    bad = bad_rows(home)
    in_ledger = [i for i in bad if i in edited]
    in_db = [i for i in bad if i not in edited]
    problems = []
    if in_ledger:
        problems.append(f"learned claims left out of recall: {', '.join(in_ledger)}: their "
                        f"records in {ledger.path} were edited (the text no longer matches "
                        "the ID, so `waymarks rebuild-index` cannot mend them); restore the"
                        " lines, or forget the claims with `waymarks evolution forget ID`")
    if in_db:
        problems.append(f"learned claims left out of recall: {', '.join(in_db)}: their rows"
                        " in waymarks.db are damaged; run `waymarks rebuild-index` to fold"
                        " the evolution ledger again")
    return problems


#: every reader of a learned recall uses at most this many of its best claims (a digest
#: of 3, search and explain 10): a large corpus scores only enough to hold them exactly
RANKED_LIMIT = 16


def recall_learned(home: Path, query: str, history: Sequence[str] = (), *,
                   egress: Egress | None = None, inherit: bool = True,
                   automatic: bool = False, now: str | None = None,
                   notes: list[str] | None = None,
                   mine: Contradicted | None = None,
                   fold_limit: int | None = None,
                   build_limit: int | None = None) -> RecallResult:
    """Learned claims ``query`` (with the recent user turns) is about, precision first;
    with ``egress``, rendered as a digest for that destination (inadmissible ones left out).
    ``automatic``: for injection nobody asked for, so dormant claims are left out.
    ``notes``: a damaged evolution ledger is added there as one line and nothing learned
    is recalled (recall and plans go on without it); without it, it is raised
    (``LedgerDamaged``: a learning command refuses). ``mine``: the person's own pin or
    claim a learned claim's text says or contradicts (:meth:`OwnClaims.held`): such a
    claim is not a candidate (it was recalled beside the confirmed one, or alone, as the
    answer, when that one was classified above what the destination may receive)."""
    plan = plan_query(query, history) if inherit else direct_plan(query)
    stamp = now or iso(datetime.now(UTC))
    admits = None if egress is None else (
        lambda c: admitted(egress, c) and (mine is None or mine(c.text) is None))
    result = RecallResult(plan, [], "", [], [])  # nothing learned: no candidates, at once
    try:
        with _ranking(home, plan, fold_limit, build_limit) as corpus:
            if corpus is not None:
                from waymarks.service.evolution_rank import rank

                result = rank(plan, corpus, stamp, automatic=automatic, admits=admits,
                              limit=RANKED_LIMIT)
                result = replace(result, scored=_one_per_content(result.scored))
    except (_damaged(), TooLongForAHook) as exc:
        if notes is None:
            raise
        notes.append(str(exc))
    if egress is None:
        return result
    digest, rows = render_digest([_provisional(s) for s in result.eligible], egress)
    return replace(result, digest=digest, selected=[str(r["id"]) for r in rows], rows=rows)


def _provisional(scored: Scored) -> Scored:
    """Scored as recallable ("active" to the gates); shown for what it is: provisional."""
    return replace(scored, candidate=replace(scored.candidate, status="provisional"))


def explain_learned(result: RecallResult) -> dict[str, Any]:
    """:func:`~waymarks.recall.engine.explain` of a learned recall, each claim with the
    status it has (``recall --explain`` and ``evolution explain`` said ``active``)."""
    from waymarks.recall.engine import explain

    return explain(replace(result, scored=[_provisional(s) for s in result.scored]))


def admitted(egress: Egress, candidate: Candidate) -> bool:
    """Whether ``egress``'s destination may receive a learned claim (its level, raised by
    its text's markers, a ceiling: every level up to it must be allowed)."""
    return egress.admits_all_up_to(egress.level(candidate.text, candidate.classification))


def _one_per_content(scored: list[Scored]) -> list[Scored]:
    """``scored`` with one claim per content in each origin, the best ranked (EVOLUTION
    item 24): the same sentence learned as a fact, a preference and a decision took three
    of a digest's three rows. Another origin's copy stays (it says where it was learned).
    The same sentence is what :func:`~waymarks.core.text.normalize` makes of it, as for
    every other duplicate: compared by case and spacing alone, "The CI runs on GitHub
    Actions" and "the CI runs on GitHub Actions." were planned side by side."""
    from waymarks.core.text import normalize

    seen: set[tuple[str, str]] = set()
    kept = []
    for s in scored:
        key = (s.candidate.origin, normalize(s.candidate.text))
        if s.eligible and key in seen:
            continue
        if s.eligible:
            seen.add(key)
        kept.append(s)
    return kept


def _damaged() -> type[Exception]:
    """Imported only when an exception reaches the clause (a home that never learned
    anything does not load the evolution modules)."""
    from waymarks.service.evolution import LedgerDamaged

    return LedgerDamaged


def learned_blocks(home: Path, prompt: str, history: Sequence[str], egress: Egress,
                   now: str | None = None, notes: list[str] | None = None,
                   contradicted: Contradicted | None = None,
                   retired: Contradicted | None = None,
                   said: Contradicted | None = None,
                   fold_limit: int | None = None,
                   build_limit: int | None = None) -> list[LearnedBlock]:
    """The planner's learned block inputs: every eligible learned claim ``egress``'s
    destination may receive, best first (the planner applies the budget, records what it
    left out, and stops at ``MAX_LEARNED`` included). Ranked before the privacy check
    and cut to 3, claims the destination may not receive took the place of one it may
    (their relevance also set the cutoff that left it out), which ``recall`` found.
    Dormant claims are never offered here (they stay recallable on request).
    ``contradicted``: names the person's own pin or claim a learned claim contradicts,
    ``retired`` their claim saying it that they took out of effect, ``said`` their pin or
    claim in effect saying it with marker tags (the planner leaves each one out)."""
    stamp = now or iso(datetime.now(UTC))
    result = recall_learned(home, prompt, history, egress=egress, automatic=True, now=stamp,
                            notes=notes, fold_limit=fold_limit, build_limit=build_limit)
    _remember_snapshot(result, stamp)
    return [_block(s, contradicted, retired, said) for s in result.eligible]


def _block(scored: Scored, contradicted: Contradicted | None,
           retired: Contradicted | None = None,
           said: Contradicted | None = None) -> LearnedBlock:
    from waymarks.planner.learned import LearnedBlock

    c = scored.candidate
    return LearnedBlock(c.id, c.kind, c.text, c.origin, c.evidence, c.source,
                        utc_text(c.created_at, "%Y-%m-%d"), scored.rank, c.classification,
                        aging_note(c.freshness),
                        None if contradicted is None else contradicted(c.text),
                        None if retired is None else retired(c.text),
                        None if said is None else said(c.text))


def _ms(stamp: str) -> int:
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


LEARNED_LABEL = "[learned, provisional — not confirmed by the person]"


def learned_digest(digest: str) -> str:
    """A learned digest, labelled so it is never mistaken for confirmed memory."""
    return f"{LEARNED_LABEL}\n{digest}" if digest else ""


#: what the plan includes of a ranking's learned claims, by ID, and why it leaves out
#: the others it looks at (ID -> the manifest's reason)
Choice = tuple[list[str], dict[str, str]]


#: the last automatic learned recall of this process, for its diagnostics (explained
#: without claim text when asked); held in memory only (never written, never a learning
#: input), replaced on every attempt
_LAST_RESULT: tuple[RecallResult, str, Choice | None] | None = None


def _remember_snapshot(result: RecallResult, at: str) -> None:
    # kept as it is (immutable) and explained when asked: every plan makes one, few are
    # ever looked at, and the explanation serializes itself to check its size
    global _LAST_RESULT
    _LAST_RESULT = (result, at, None)


def remember_plan(entries: Sequence[ManifestEntry]) -> None:
    """The plan's own choice among the last snapshot's learned claims, from its manifest
    (a claim the person holds, or one the room left out, was named selected)."""
    global _LAST_RESULT
    if _LAST_RESULT is not None:
        learned = [e for e in entries if e.kind == "learned"]
        _LAST_RESULT = (*_LAST_RESULT[:2], (
            [e.id for e in learned if e.decision == "included"],
            {e.id: e.reason for e in learned if e.decision == "excluded"}))


def last_snapshot() -> dict[str, object] | None:
    """The last automatic learned recall in this process (``None`` before any)."""
    if _LAST_RESULT is None:
        return None
    result, at, choice = _LAST_RESULT
    return {**injection_report(result, choice=choice), "at": at}


def planned(result: RecallResult, egress: Egress, pins: Sequence[PinInput],
            memories: Sequence[MemoryInput], budget: int,
            contradicted: Contradicted | None = None,
            retired: Contradicted | None = None,
            said: Contradicted | None = None) -> Choice:
    """The planner's own choice among ``result``'s eligible learned claims (the same
    functions): one the person holds as a pin or claim of those the plan weighs is left
    out, and so is one that contradicts the person's own (``contradicted``) or says what
    they took out of effect (``retired``), then the
    learned budget and ``MAX_LEARNED`` apply (a preview knows no host's model limit: no
    room is counted)."""
    from waymarks.planner.learned import choose_learned
    from waymarks.planner.select import offered_learned

    offered, reasons = offered_learned(
        [_block(s, contradicted, retired, said) for s in result.eligible], pins, memories)
    included, excluded, _room = choose_learned(offered, egress, budget, None)
    reasons.update((b.id, reason) for b, _level, reason, _tokens in excluded)
    return [b.id for b, *_ in included], reasons


def injection_report(result: RecallResult, withheld: Sequence[Scored] = (),
                     choice: Choice | None = None) -> dict[str, object]:
    """``result`` (ranked for the destination, as automatic injection ranks) explained as
    injection reads it: ``selected`` are the claims the plan includes (``choice``, from
    :func:`planned`; without it, the best ``MAX_LEARNED`` eligible ones), and every other
    eligible one says why it was not selected (each said ``selected`` while the report
    said none were, or only 3 were; a claim the person holds as a pin was named selected
    while the plan left it out). ``withheld``: eligible claims of a ranking for any
    destination that this one may not receive, listed after them as such."""
    from waymarks.planner.learned import MAX_LEARNED

    eligible = result.eligible
    chosen, reasons = choice or ([s.candidate.id for s in eligible[:MAX_LEARNED]], {})
    rest = [replace(s, reason=reasons.get(
        s.candidate.id, f"not selected (injection takes the best {MAX_LEARNED})"))
        for s in eligible if s.candidate.id not in chosen]
    refused = [replace(s, eligible=False, reason="not allowed for this provider")
               for s in withheld]
    scored = [*(s for s in eligible if s.candidate.id in chosen), *rest, *refused,
              *(s for s in result.scored if not s.eligible)]
    return explain_learned(replace(result, scored=scored, selected=chosen))
