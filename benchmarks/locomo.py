"""Benchmark: recall quality on a LoCoMo split (the development one by default), against BM25.

The report names the split from the data file it was given (``split``, ``data``).

Each conversation gets its own in-memory recall index (``RecallIndex(db, items_backed=False)``);
each turn (``--corpus turns``) or generated observation (``--corpus observations``) is one
record, dated by its session. Each question is asked against its own conversation:

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

The data (CC BY-NC 4.0) is read from ``--data``; never copy it into the repository.

    .venv/bin/python benchmarks/locomo.py [--data PATH] [--corpus turns|observations] [--json]
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
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import ranked
from waymarks.store.recall_index import CANDIDATE_LIMIT, RecallIndex, RecordInput, create_tables

#: a local destination that sees every stored text exactly (no privacy policy in play)
EXACT = Egress("local", frozenset(LEVELS), redacts=False)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"
KS = (1, 5, 10)
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


def load(path: Path, corpus: str) -> list[Conversation]:
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        sessions = sorted(int(m[1]) for k in conv if (m := _SESSION.fullmatch(k)))
        dates = {n: session_ms(conv[f"session_{n}_date_time"]) for n in sessions}
        turns = [(n, t) for n in sessions for t in conv[f"session_{n}"]]
        valid = {t["dia_id"] for _, t in turns}
        docs: list[Doc] = []
        if corpus == "turns":
            for n, t in turns:
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [image: {t['blip_caption']}]"
                docs.append(Doc(t["dia_id"], text, t["text"], [t["dia_id"]], n, dates[n]))
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
        return sorted(range(self.n), key=lambda i: (-scores[i], i))


def build_index(conv: Conversation, kind: str) -> RecallIndex:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    create_tables(db)
    # row checksums arrive with a later migration (store/migrations.py, 7), as in a real store
    db.execute("ALTER TABLE recall_records ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0")
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


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return ordered[rank]


def run(data: Path, corpus: str) -> dict[str, Any]:
    conversations = load(data, corpus)
    kind = "turn" if corpus == "turns" else "observation"
    start = time.perf_counter()
    indexes = [build_index(c, kind) for c in conversations]
    build_s = time.perf_counter() - start

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
            rows.append(row)

    def summary(selection: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(selection)
        out: dict[str, Any] = {"questions": n}
        for name in ("wm", "bm25", "bm25_same"):
            for k in KS:
                out[f"{name}_r{k}"] = round(100 * sum(r[f"{name}_r{k}"] for r in selection) / n, 1)
        for key in ("digest", "hit", "injected"):
            out[key] = round(100 * sum(r[key] for r in selection) / n, 1)
        precisions = [r["digest_precision"] for r in selection if r["digest_precision"] is not None]
        out["digest_precision"] = (round(100 * sum(precisions) / len(precisions), 1)
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
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--corpus", choices=("turns", "observations"), default="turns")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no LoCoMo data at {args.data} (pass --data PATH)", file=sys.stderr)
        return 2
    report = run(args.data.resolve(), args.corpus)
    print(json.dumps(report, indent=2) if args.json else table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
