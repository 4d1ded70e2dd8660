"""Benchmark: recall quality on a LoCoMo split (the development one by default), against BM25.

The report names the split from the data file it was given (``split``, ``data``).

Each conversation gets its own in-memory recall index (``RecallIndex(db, items_backed=False)``);
each turn (``--corpus turns``) or generated observation (``--corpus observations``) is one
record, dated by its session (a session's turns ``TURN_MS`` apart, in their order: the data
gives the session's time only, and a host captures each turn as it comes). Each question
is asked against its own conversation:

- ranked Recall@1/5/10: ``ranked(direct_plan(q), candidates(plan, limit=LARGE), stats)``;
  records that are not candidates rank after every candidate (misses). For observations,
  the turns the ranked observations cite are deduplicated in rank order and counted;
- digest hit rate: share of questions whose digest (``evaluate(...)`` on the production
  candidate limit) holds at least one evidence turn; ``digest`` = share with any digest;
- foreign-query injection rate: each question asked against the NEXT conversation's
  store (i+1 mod n): share with a non-empty digest (should stay near zero);
- latency of plan + candidates + stats + evaluate per query (``perf_counter``), p50/p99.

Baseline in the same run: Okapi BM25 (k1=1.2, b=0.75, lowercase ``[a-z0-9]+`` tokens, no
stop words) over the turn text alone (the README's reference figures), and over the exact
text Waymarks indexes (speaker + text + image caption) for a like-for-like comparison.
Recall@k = share of a question's evidence turns in the top k, averaged over questions of all
5 categories; malformed evidence ids are normalised and ids absent from the conversation are
dropped (questions left with no evidence are skipped).

Hybrid (``hy_*``, when the semantic extra is installed and ``--lexical-only`` is not given),
in the same run: every record embedded once (cached by model and text hash in
``--embed-cache``, outside the repository), each question embedded; ranked measures fuse
over every record, the digest takes the production candidates (lexical ones plus the
``SEMANTIC_CANDIDATES`` nearest by meaning) through ``evaluate(..., semantic)``.

The data (CC BY-NC 4.0) is read from ``--data``; never copy it into the repository.

    .venv/bin/python benchmarks/locomo.py [--data PATH] [--corpus turns|observations] [--json]
        [--lexical-only] [--embed-cache PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sqlite3
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from waymarks.core.egress import Egress
from waymarks.core.privacy import LEVELS
from waymarks.recall.engine import evaluate
from waymarks.recall.fusion import Embedder, Semantic, semantic_side
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, ranked
from waymarks.store import recall_vectors
from waymarks.store.recall_index import CANDIDATE_LIMIT, RecallIndex, RecordInput, create_tables

#: a local destination that sees every stored text exactly (no privacy policy in play)
EXACT = Egress("local", frozenset(LEVELS), redacts=False)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"
DEFAULT_CACHE = Path.home() / ".cache" / "waymarks-bench" / "embeddings.sqlite"
KS = (1, 5, 10)
#: a session's turns are captured this far apart (ms), in order, from the session's time
TURN_MS = 30_000
RANK_LIMIT = 100_000  # "all candidates" for ranked measures
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
              5: "adversarial"}
REFERENCE_BM25 = {"turns": (24.3, 44.7, 52.6), "observations": (34.4, 50.0, 55.5)}
_SESSION = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass
class Doc:
    id: str
    text: str  # what Waymarks indexes
    plain: str  # what the reference BM25 indexes
    cites: list[str]  # the turns this record stands for
    session: int
    created_at: int


@dataclass
class Conversation:
    name: str
    docs: list[Doc]
    questions: list[dict[str, Any]] = field(default_factory=list)


# ---------------------------------------------------------------- data


def session_ms(stamp: str) -> int:
    """'1:56 pm on 8 May, 2023' as epoch milliseconds (UTC)."""
    moment = datetime.strptime(stamp.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def normalise_evidence(raw: Sequence[str], valid: set[str]) -> list[str]:
    """'D8:6; D9:17' -> two ids, 'D:11:26' -> 'D11:26', 'D30:05' -> 'D30:5'; unknown dropped."""
    out: list[str] = []
    for entry in raw:
        for part in re.split(r"[;,\s]+", str(entry)):
            match = _EVIDENCE.fullmatch(part.strip())
            if match:
                dia = f"D{int(match[1])}:{int(match[2])}"
                if dia in valid and dia not in out:
                    out.append(dia)
    return out


class NotLoCoMo(Exception):
    """The data cannot be read as LoCoMo's (a folder, not JSON, another layout)."""


def load(path: Path, corpus: str) -> list[Conversation]:
    """The conversations of a LoCoMo file (``locomo10.json`` or a split of it), each
    turn or observation a record; :class:`NotLoCoMo` when it cannot be read as one."""
    try:
        return _conversations(json.loads(path.read_text(encoding="utf-8")), corpus)
    except (OSError, UnicodeDecodeError, ValueError, LookupError, TypeError,
            AttributeError) as exc:
        raise NotLoCoMo(f"{path} cannot be read as LoCoMo data ({type(exc).__name__}: "
                        f"{exc}): pass --data PATH of locomo10.json or a split of it "
                        f"(a list of conversations, each with 'conversation' and 'qa')"
                        ) from exc


def _conversations(samples: list[dict[str, Any]], corpus: str) -> list[Conversation]:
    conversations = []
    for sample in samples:
        conv = sample["conversation"]
        sessions = sorted(int(m[1]) for k in conv if (m := _SESSION.fullmatch(k)))
        dates = {n: session_ms(conv[f"session_{n}_date_time"]) for n in sessions}
        turns = [(n, t) for n in sessions for t in conv[f"session_{n}"]]
        valid = {t["dia_id"] for _, t in turns}
        docs: list[Doc] = []
        if corpus == "turns":
            place: Counter[int] = Counter()
            for n, t in turns:
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [image: {t['blip_caption']}]"
                # captured in turn order, TURN_MS apart (the data has the session's time only)
                docs.append(Doc(t["dia_id"], text, t["text"], [t["dia_id"]], n,
                                dates[n] + TURN_MS * place[n]))
                place[n] += 1
        else:
            for n in sessions:
                by_speaker = sample.get("observation", {}).get(f"session_{n}_observation", {})
                for speaker, facts in by_speaker.items():
                    for j, (fact, refs) in enumerate(facts):
                        refs = [refs] if isinstance(refs, str) else refs
                        docs.append(Doc(f"O{n}:{speaker}:{j}", fact, fact,
                                        normalise_evidence(refs, valid), n, dates[n]))
        questions = []
        for qa in sample["qa"]:
            evidence = normalise_evidence(qa.get("evidence", []), valid)
            if evidence:
                questions.append({"question": qa["question"], "category": int(qa["category"]),
                                  "evidence": evidence})
        conversations.append(Conversation(sample["sample_id"], docs, questions))
    return conversations


# ---------------------------------------------------------------- measures


def recall_at(order: Sequence[Doc], evidence: Sequence[str], k: int) -> float:
    """Share of evidence turns cited by the top-k records (cited turns deduplicated)."""
    found: dict[str, None] = {}
    for doc in order[:k]:
        for dia in doc.cites:
            found.setdefault(dia, None)
    return len(set(found) & set(evidence)) / len(evidence)


class BM25:
    """Plain Okapi BM25 (k1=1.2, b=0.75) over lowercase [a-z0-9]+ tokens, no stop words."""

    def __init__(self, texts: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.tfs = [Counter(_TOKEN.findall(t.lower())) for t in texts]
        lengths = [sum(tf.values()) for tf in self.tfs]
        self.n = len(texts)
        average = sum(lengths) / max(1, self.n)
        self.norms = [k1 * (1 - b + b * length / average) for length in lengths]
        self.k1 = k1
        self.df = Counter(term for tf in self.tfs for term in tf)

    def order(self, query: str) -> list[int]:
        scores = self.scores(query)
        return sorted(range(self.n), key=lambda i: (-scores[i], i))

    def scores(self, query: str) -> list[float]:
        """Each text's score for ``query``, in the texts' order."""
        terms = _TOKEN.findall(query.lower())  # repeated query terms count again
        scores = []
        for tf, norm in zip(self.tfs, self.norms, strict=True):
            score = 0.0
            for term in terms:
                freq = tf.get(term)
                if freq:
                    df = self.df[term]
                    idf = math.log((self.n - df + 0.5) / (df + 0.5) + 1)
                    score += idf * freq * (self.k1 + 1) / (freq + norm)
            scores.append(score)
        return scores


def build_index(conv: Conversation, kind: str) -> RecallIndex:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    create_tables(db)
    # row checksums arrive with a later migration (store/migrations.py, 7), as in a real store
    db.execute("ALTER TABLE recall_records ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0")
    recall_vectors.create_tables(db)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(RecordInput(id=d.id, text=d.text, kind=kind, origin=f"session {d.session}",
                          created_at=d.created_at) for d in conv.docs)
    db.execute("COMMIT")
    return index


def answer(index: RecallIndex, question: str) -> tuple[list[str], float]:
    """The production path: plan, candidates (default limit), stats, evaluate; ids, ms."""
    start = time.perf_counter()
    plan = direct_plan(question)
    cands = index.candidates(plan)
    stats = index.stats(plan.focus + plan.context)
    result = evaluate(plan, cands, stats, EXACT)
    return result.selected, (time.perf_counter() - start) * 1000


@dataclass
class Dense:
    """One conversation's embedded records (for the hybrid side)."""

    ids: list[str]
    vectors: list[bytes]
    all_candidates: list[Candidate]


def embed_all(embedder: Embedder, texts: list[str], cache: Path) -> list[bytes]:
    """Passage vectors of ``texts``, from the cache where it has them."""
    from waymarks.semantic import cosines  # noqa: F401  (the extra's NumPy side is present)

    cache.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE IF NOT EXISTS v (model TEXT, hash TEXT, vector BLOB,"
               " PRIMARY KEY (model, hash))")
    hashes = [recall_vectors.text_hash(t) for t in texts]
    known = {h: bytes(v) for h, v in db.execute(
        "SELECT hash, vector FROM v WHERE model = ?", (embedder.model,))}
    todo = sorted({h: t for h, t in zip(hashes, texts, strict=True) if h not in known}.items())
    for start in range(0, len(todo), 64):
        part = todo[start:start + 64]
        vectors = embedder.passages([t for _, t in part])
        db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?, ?)",
                       [(embedder.model, h, v) for (h, _), v in zip(part, vectors, strict=True)])
        db.commit()
        known.update({h: v for (h, _), v in zip(part, vectors, strict=True)})
    db.close()
    return [known[h] for h in hashes]


def dense_for(conv: Conversation, index: RecallIndex, embedder: Embedder,
              cache: Path) -> Dense:
    ids = [d.id for d in conv.docs]
    vectors = embed_all(embedder, [d.text for d in conv.docs], cache)
    store = recall_vectors.VectorStore(index.db, items_backed=False)
    return Dense(ids, vectors, store.candidates(ids))


def hybrid_answer(index: RecallIndex, dense: Dense, question: str, query: bytes,
                  embedder: Embedder) -> tuple[list[str], float]:
    """The hybrid production path (the query already embedded): ids, ms."""
    from waymarks.semantic import cosines

    start = time.perf_counter()
    plan = direct_plan(question)
    cands = index.candidates(plan)
    stats = index.stats(plan.focus + plan.context)
    semantic, extra = semantic_side(dense.ids, cosines(query, dense.vectors),
                                    [c.id for c in cands], embedder.calibration,
                                    query=question)
    by_id = {c.id: c for c in dense.all_candidates}
    result = evaluate(plan, [*cands, *(by_id[i] for i in extra)], stats, EXACT, semantic)
    return result.selected, (time.perf_counter() - start) * 1000


def hybrid_order(index: RecallIndex, dense: Dense, question: str, query: bytes,
                 embedder: Embedder) -> tuple[list[str], Semantic]:
    """Every record ranked by fused relevance (records no side finds: last)."""
    from waymarks.semantic import cosines

    plan = direct_plan(question)
    stats = index.stats(plan.focus + plan.context)
    semantic, _ = semantic_side(dense.ids, cosines(query, dense.vectors), [],
                                embedder.calibration, limit=0)
    return [s.candidate.id for s in ranked(plan, dense.all_candidates, stats, semantic)], semantic


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return ordered[rank]


def run(data: Path, corpus: str, embedder: Embedder | None = None,
        cache: Path = DEFAULT_CACHE) -> dict[str, Any]:
    conversations = load(data, corpus)
    kind = "turn" if corpus == "turns" else "observation"
    start = time.perf_counter()
    indexes = [build_index(c, kind) for c in conversations]
    build_s = time.perf_counter() - start
    embed_s = 0.0
    dense: list[Dense] = []
    hybrid_latencies: list[float] = []
    query_ms: list[float] = []
    if embedder is not None:
        start = time.perf_counter()
        dense = [dense_for(c, i, embedder, cache) for c, i in zip(conversations, indexes,
                                                                  strict=True)]
        embed_s = time.perf_counter() - start
    names = ("wm", "bm25", "bm25_same", *(("hy",) if embedder is not None else ()))

    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    foreign_latencies: list[float] = []
    large_mismatch = 0
    for i, (conv, index) in enumerate(zip(conversations, indexes, strict=True)):
        by_id = {d.id: d for d in conv.docs}
        bm25_plain = BM25([d.plain for d in conv.docs])
        bm25_same = BM25([d.text for d in conv.docs])
        foreign = indexes[(i + 1) % len(indexes)]
        for qa in conv.questions:
            question, evidence = qa["question"], qa["evidence"]
            plan = direct_plan(question)
            cands = index.candidates(plan, limit=RANK_LIMIT)
            stats = index.stats(plan.focus + plan.context)
            order = [by_id[s.candidate.id] for s in ranked(plan, cands, stats)]
            selected, ms = answer(index, question)
            latencies.append(ms)
            if evaluate(plan, cands, stats, EXACT).selected != selected:
                large_mismatch += 1
            foreign_selected, foreign_ms = answer(foreign, question)
            foreign_latencies.append(foreign_ms)
            cited = {dia for sid in selected for dia in by_id[sid].cites}
            row: dict[str, Any] = {
                "conversation": conv.name, "category": qa["category"],
                "digest": bool(selected), "hit": bool(cited & set(evidence)),
                "digest_precision": (sum(1 for s in selected if set(by_id[s].cites)
                                         & set(evidence)) / len(selected)) if selected else None,
                "injected": bool(foreign_selected),
                "focus": len(plan.focus), "candidates": len(cands),
            }
            for name, ranking in (
                    ("wm", order),
                    ("bm25", [conv.docs[j] for j in bm25_plain.order(question)]),
                    ("bm25_same", [conv.docs[j] for j in bm25_same.order(question)])):
                for k in KS:
                    row[f"{name}_r{k}"] = recall_at(ranking, evidence, k)
            if embedder is not None:
                start = time.perf_counter()
                query = embedder.query(question)
                query_ms.append((time.perf_counter() - start) * 1000)
                hy_order, _ = hybrid_order(index, dense[i], question, query, embedder)
                for k in KS:
                    row[f"hy_r{k}"] = recall_at([by_id[d] for d in hy_order], evidence, k)
                hy_selected, hy_ms = hybrid_answer(index, dense[i], question, query, embedder)
                hybrid_latencies.append(hy_ms)
                j = (i + 1) % len(indexes)
                hy_foreign, _ = hybrid_answer(indexes[j], dense[j], question, query, embedder)
                hy_cited = {dia for sid in hy_selected for dia in by_id[sid].cites}
                row.update({
                    "hy_digest": bool(hy_selected), "hy_hit": bool(hy_cited & set(evidence)),
                    "hy_injected": bool(hy_foreign),
                    "hy_digest_precision": (sum(1 for s in hy_selected if set(by_id[s].cites)
                                                & set(evidence)) / len(hy_selected))
                    if hy_selected else None})
            rows.append(row)

    def summary(selection: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(selection)
        out: dict[str, Any] = {"questions": n}
        for name in names:
            for k in KS:
                out[f"{name}_r{k}"] = round(100 * sum(r[f"{name}_r{k}"] for r in selection) / n, 1)
        for prefix in ("", *(("hy_",) if embedder is not None else ())):
            for key in ("digest", "hit", "injected"):
                out[prefix + key] = round(100 * sum(r[prefix + key] for r in selection) / n, 1)
            precisions = [r[prefix + "digest_precision"] for r in selection
                          if r[prefix + "digest_precision"] is not None]
            out[prefix + "digest_precision"] = (round(100 * sum(precisions) / len(precisions), 1)
                                                if precisions else None)
        return out

    categories = {str(c): summary([r for r in rows if r["category"] == c])
                  for c in sorted({r["category"] for r in rows})}
    return {
        "split": split_name(data),
        "data_file": data.name,
        "corpus": corpus,
        "data": str(data),
        "conversations": [{"name": c.name, "records": len(c.docs), "questions": len(c.questions)}
                          for c in conversations],
        "records": sum(len(c.docs) for c in conversations),
        "build_s": round(build_s, 3),
        "candidate_limit": CANDIDATE_LIMIT,
        "digest_differs_with_all_candidates": large_mismatch,
        "categories": categories,
        "overall": summary(rows),
        "reference_bm25": dict(zip(("r1", "r5", "r10"), REFERENCE_BM25[corpus], strict=True)),
        "latency_ms": {"p50": round(statistics.median(latencies), 3),
                       "p99": round(percentile(latencies, 99), 3),
                       "max": round(max(latencies), 3)},
        "foreign_latency_ms": {"p50": round(statistics.median(foreign_latencies), 3),
                               "p99": round(percentile(foreign_latencies, 99), 3)},
        "hybrid": None if embedder is None else {
            "model": embedder.model,
            "calibration": {name: getattr(embedder.calibration, name) for name in (
                "floor", "ceil", "weight", "qualify", "support", "cross_script", "veto",
                "relative")},
            "embed_records_s": round(embed_s, 3),
            "query_embedding_ms": {"p50": round(statistics.median(query_ms), 3),
                                   "p99": round(percentile(query_ms, 99), 3)},
            "fused_recall_ms": {"p50": round(statistics.median(hybrid_latencies), 3),
                                "p99": round(percentile(hybrid_latencies, 99), 3)},
        },
    }


def split_name(data: Path) -> str:
    """The split a data file holds, from its name (``locomo-dev.json`` -> ``dev``,
    ``locomo10.json`` -> ``locomo10``), so a run on any other file is never labelled dev."""
    stem = data.stem
    return stem.split("-", 1)[1] if stem.startswith("locomo-") and "-" in stem else stem


def table(report: dict[str, Any]) -> str:
    head = (f"{'category':<16}{'n':>5} | {'R@1':>5}{'R@5':>6}{'R@10':>6}{'hit':>6}{'dig':>6}"
            f"{'prec':>6}{'inj':>5} | {'R@1':>5}{'R@5':>6}{'R@10':>6} | {'R@1':>5}{'R@5':>6}"
            f"{'R@10':>6}")
    sizes = ", ".join(f"{c['name']}={c['records']}" for c in report["conversations"])
    lines = [
        f"LoCoMo {report['split']} ({report['data_file']}), "
        f"corpus={report['corpus']}: {report['records']} records in "
        f"{len(report['conversations'])} conversations "
        f"({sizes}); "
        f"index build {report['build_s']:.2f} s",
        f"{'':<22}| {'Waymarks (ranked; digest %)':<40}| {'BM25 (reference)':<18}| "
        f"BM25 (same text)",
        head, "-" * len(head),
    ]
    items = [(f"{k} {CATEGORIES.get(int(k), '')}", v) for k, v in report["categories"].items()]
    for name, s in [*items, ("overall", report["overall"])]:
        prec = "-" if s["digest_precision"] is None else f"{s['digest_precision']:.1f}"
        lines.append(
            f"{name:<16}{s['questions']:>5} | {s['wm_r1']:>5.1f}{s['wm_r5']:>6.1f}"
            f"{s['wm_r10']:>6.1f}{s['hit']:>6.1f}{s['digest']:>6.1f}{prec:>6}"
            f"{s['injected']:>5.1f} | {s['bm25_r1']:>5.1f}{s['bm25_r5']:>6.1f}"
            f"{s['bm25_r10']:>6.1f} | {s['bm25_same_r1']:>5.1f}{s['bm25_same_r5']:>6.1f}"
            f"{s['bm25_same_r10']:>6.1f}")
    ref = report["reference_bm25"]
    lat, flat = report["latency_ms"], report["foreign_latency_ms"]
    lines += [
        "",
        "hit = digest holds >=1 evidence turn; dig = digest non-empty; prec = share of digest"
        " claims citing evidence; inj = foreign store gave a non-empty digest",
        f"README reference BM25: R@1 {ref['r1']} R@5 {ref['r5']} R@10 {ref['r10']}",
        f"query latency (plan+candidates+stats+evaluate, limit {report['candidate_limit']}):"
        f" p50 {lat['p50']:.2f} ms, p99 {lat['p99']:.2f} ms, max {lat['max']:.2f} ms;"
        f" foreign p50 {flat['p50']:.2f} ms, p99 {flat['p99']:.2f} ms",
        f"digests that differ when every candidate is scored: "
        f"{report['digest_differs_with_all_candidates']}",
    ]
    hybrid = report.get("hybrid")
    if hybrid:
        lines += ["", f"Hybrid ({hybrid['model']}, {hybrid['calibration']}); lexical"
                  " Waymarks beside it, same run:",
                  f"{'category':<16}{'n':>5} | {'R@1':>5}{'R@5':>6}{'R@10':>6}{'hit':>6}"
                  f"{'dig':>6}{'prec':>6}{'inj':>5} | lexical {'R@5':>5}{'R@10':>6}{'hit':>6}"
                  f"{'inj':>5}"]
        for name, s in [*items, ("overall", report["overall"])]:
            prec = "-" if s["hy_digest_precision"] is None else f"{s['hy_digest_precision']:.1f}"
            lines.append(
                f"{name:<16}{s['questions']:>5} | {s['hy_r1']:>5.1f}{s['hy_r5']:>6.1f}"
                f"{s['hy_r10']:>6.1f}{s['hy_hit']:>6.1f}{s['hy_digest']:>6.1f}{prec:>6}"
                f"{s['hy_injected']:>5.1f} |         {s['wm_r5']:>5.1f}{s['wm_r10']:>6.1f}"
                f"{s['hit']:>6.1f}{s['injected']:>5.1f}")
        q, f = hybrid["query_embedding_ms"], hybrid["fused_recall_ms"]
        lines.append(f"query embedding p50 {q['p50']:.2f} ms, p99 {q['p99']:.2f} ms; fused"
                     f" recall (query embedded) p50 {f['p50']:.2f} ms, p99 {f['p99']:.2f} ms;"
                     f" records embedded in {hybrid['embed_records_s']:.1f} s (cache)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--corpus", choices=("turns", "observations"), default="turns")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--lexical-only", action="store_true",
                        help="skip the hybrid side even when the semantic extra is installed")
    parser.add_argument("--embed-cache", type=Path, default=DEFAULT_CACHE,
                        help="record embeddings cached here (outside the repository)")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no LoCoMo data at {args.data} (pass --data PATH)", file=sys.stderr)
        return 2
    from waymarks import semantic

    embedder = None if args.lexical_only else semantic.load()
    try:
        report = run(args.data.resolve(), args.corpus, embedder, args.embed_cache)
    except NotLoCoMo as exc:
        print(exc, file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
