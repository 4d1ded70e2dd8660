"""Benchmark: hybrid recall variants on a LoCoMo split, each beside the lexical engine.

A tuning aid for the semantic signal (issue 20): every record and question is embedded
once (records through ``locomo.py``'s cache, questions in the same cache file under their
own key), the lexical relevance of every record for every question is computed once, and
then each *variant* (a calibration: floor, ceil, weight, qualify, support, cross_script;
and the prefix the question is embedded with) is measured on:

- ranked Recall@1/5/10 by fused relevance over every record (as ``locomo.py``'s ``hy_*``);
- digest hit and foreign-query injection through the production gates (``evaluate`` on
  the production candidates: lexical ones plus the ``SEMANTIC_CANDIDATES`` nearest).

The baseline in the same run is the lexical engine (``lexical``) and the shipped
calibration (``shipped``). Variants are general retrieval knobs, never dataset words.

    .venv/bin/python benchmarks/locomo_variants.py [--data PATH] [--only NAME,...] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import sys
import time
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo
import waymarks
from waymarks.files.atomic import write_atomic
from waymarks.recall.engine import evaluate
from waymarks.recall.fusion import SEMANTIC_CANDIDATES, Calibration, Semantic, semantic_side
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import ranked
from waymarks.store import recall_vectors


@dataclass
class Variant:
    name: str
    calibration: Calibration | None  # None: the lexical engine
    prefix: str = "query"  # the prefix the question is embedded with: query | passage
    candidates: int = SEMANTIC_CANDIDATES
    #: how the ranked measures fuse: ``sum`` (production), ``maxnorm`` (lexical divided
    #: by the query's best lexical score first), ``rrf`` (reciprocal rank fusion, k=60),
    #: ``dense`` (the calibrated similarity alone); each side normalised per query over the
    #: store before the weighted sum (the raw cosine, not calibrated): ``minmax`` (to 0-1),
    #: ``zscore`` (its mean and standard deviation); ``bm25``: issue 20's plain baseline,
    #: Okapi BM25 over the text Waymarks indexes in place of the lexical engine, fused as
    #: ``minmax`` (what the dense side adds to a plain lexical ranking); ``matched``: the
    #: production sum over the records a word of the question matches only (the others
    #: last), as if the dense side found no candidate of its own
    ranking: str = "sum"
    #: False: ranked measures only (hit and injection are not measured)
    digest: bool = True
    #: another per-record signal, supplied by another script (``locomo_sparse.py``):
    #: (records' conversation, question's conversation, question index) -> one score a
    #: record of the first, in the records' order
    extra: Callable[[int, int, int], np.ndarray] | None = None
    #: the extra signal's weight, added to the fused relevance (and coverage, for the
    #: digest: :class:`ExtraSemantic`); ``None``: it stands in for the calibrated similarity
    extra_weight: float | None = 0.0
    #: the digest's fused relevance and coverage divided by ``1 + extra_weight`` (the same
    #: ranking, the gates' thresholds on the usual scale)
    extra_scaled: bool = False
    #: the digest's relevance only takes the extra signal, not the coverage (the gates that
    #: decide eligibility do not see it: it orders and cuts the eligible records)
    extra_relevance_only: bool = False
    #: with ``extra_relevance_only``: another signal (the same call) added to the digest's
    #: coverage alone, by ``coverage_weight``
    coverage_extra: Callable[[int, int, int], np.ndarray] | None = None
    coverage_weight: float = 0.0


def base() -> Calibration:
    from waymarks.semantic.e5 import CALIBRATION

    return CALIBRATION


def cal(**changes: float) -> Calibration:
    """The shipped calibration with ``changes``; every field it does not name stays the
    shipped one (``beside``, ``qualify_han``, ``cross_from``, ``cross_margin`` too: a
    variant that changed one threshold was measured without them, beside ``shipped``
    measured with them)."""
    return msgspec.structs.replace(base(), **changes)


def variants() -> list[Variant]:
    return [
        Variant("lexical", None),
        Variant("shipped", base()),
        Variant("prefix passage", base(), prefix="passage"),
        Variant("w0.6", cal(weight=0.6)),
        Variant("w0.4", cal(weight=0.4)),
        Variant("floor0.70", cal(floor=0.70)),
        Variant("floor0.80", cal(floor=0.80)),
        Variant("ceil0.88", cal(ceil=0.88)),
        Variant("ceil0.95", cal(ceil=0.95)),
        Variant("qualify0.7", cal(qualify=0.7)),
        Variant("qualify0.9", cal(qualify=0.9)),
        Variant("support0.5", cal(support=0.5)),
        Variant("support0.7", cal(support=0.7)),
        Variant("cand40", base(), candidates=40),
        Variant("cand10", base(), candidates=10),
        Variant("rank dense", base(), ranking="dense"),
        Variant("rank rrf", base(), ranking="rrf"),
        Variant("rank maxnorm", base(), ranking="maxnorm"),
        Variant("rank maxnorm w0.6", cal(weight=0.6), ranking="maxnorm"),
        # per-query normalisation of both sides, and the BM25 + e5 baseline
        Variant("rank minmax", base(), ranking="minmax", digest=False),
        Variant("rank minmax w0.5", cal(weight=0.5), ranking="minmax", digest=False),
        Variant("rank zscore", base(), ranking="zscore", digest=False),
        Variant("rank zscore w0.6", cal(weight=0.6), ranking="zscore", digest=False),
        Variant("rank bm25 w0.5", cal(weight=0.5), ranking="bm25", digest=False),
        Variant("rank matched", base(), ranking="matched", digest=False),
        # the dense weight raised where the lexical side is weak; a bonus for the nearest
        Variant("rank adaptive0.3:0.6", base(), ranking="adaptive0.3:0.6", digest=False),
        Variant("rank adaptive0.2:0.7", base(), ranking="adaptive0.2:0.7", digest=False),
        Variant("rank densetop5:0.05", base(), ranking="densetop5:0.05", digest=False),
        Variant("rank densetop3:0.1", base(), ranking="densetop3:0.1", digest=False),
        Variant("w0.3", cal(weight=0.3)),
        Variant("floor0.70 ceil0.90", cal(floor=0.70, ceil=0.90)),
        Variant("floor0.70 qualify0.9", cal(floor=0.70, qualify=0.9)),
        # the veto: a record far in meaning (calibrated similarity below it) is not an
        # answer on shared words alone
        Variant("veto0.2", cal(veto=0.2)),
        Variant("veto0.3", cal(veto=0.3)),
        Variant("veto0.4", cal(veto=0.4)),
        Variant("floor0.70 veto0.45", cal(floor=0.70, veto=0.45)),
        Variant("floor0.70 veto0.5", cal(floor=0.70, veto=0.5)),
        Variant("floor0.70 veto0.45 qualify0.7", cal(floor=0.70, veto=0.45, qualify=0.7)),
        Variant("qualify0.6 veto0.3", cal(qualify=0.6, veto=0.3)),
        Variant("qualify0.65 veto0.3", cal(qualify=0.65, veto=0.3)),
        Variant("support0.4 veto0.3", cal(support=0.4, veto=0.3)),
        Variant("floor0.65 veto0.6", cal(floor=0.65, veto=0.6)),
    ]


def query_vectors(embedder: Any, questions: Sequence[str], prefix: str,
                  cache: Path) -> list[bytes]:
    """Each question's vector, kept in ``cache`` by the text the model is given: a query
    in lower case (``e5.query_case``; a vector kept for the question as typed, before the
    query was embedded in lower case, is not read again), a passage as it is."""
    from waymarks.semantic.e5 import query_case

    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE IF NOT EXISTS q (model TEXT, prefix TEXT, hash TEXT, vector BLOB,"
               " PRIMARY KEY (model, prefix, hash))")
    hashes = [recall_vectors.text_hash(query_case(q) if prefix == "query" else q)
              for q in questions]
    known = {h: bytes(v) for h, v in db.execute(
        "SELECT hash, vector FROM q WHERE model = ? AND prefix = ?", (embedder.model, prefix))}
    for h, q in zip(hashes, questions, strict=True):
        if h in known:
            continue
        vector = (embedder.query(q) if prefix == "query"
                  else embedder.passages([q])[0])
        db.execute("INSERT OR REPLACE INTO q VALUES (?, ?, ?, ?)",
                   (embedder.model, prefix, h, vector))
        known[h] = vector
    db.commit()
    db.close()
    return [known[h] for h in hashes]


#: the package whose code computes the lexical relevance kept by :func:`run`
SOURCES = Path(waymarks.__file__).resolve().parent


def code_digest(sources: Path) -> str:
    """Every module under ``sources``, its path and text: scoring reads analysis, plan,
    gates, the index's features and what they import, so a change anywhere scores the
    lexical relevance again once (about a minute) rather than measuring every variant
    against another code's ranking beside a digest of this one (the default cache is
    shared by every checkout)."""
    digest = blake2b(digest_size=12)
    for path in sorted(sources.rglob("*.py")):
        digest.update(str(path.relative_to(sources)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


#: the code this process imported (read as it starts, not when the scores are kept)
CODE = code_digest(SOURCES)


def lexical_key(data: str, code: str = CODE) -> str:
    """The name of the lexical relevance kept for ``data`` as ``code`` scores it."""
    return blake2b(f"{code}\0{data}".encode(), digest_size=12).hexdigest()


def kept_lexical(path: Path, counts: Sequence[int]) -> list[list[np.ndarray]] | None:
    """The lexical relevance kept at ``path`` (``counts``: each conversation's questions),
    or ``None`` when there is none or it cannot be read whole: one a stopped run cut
    short ended every later run on ``BadZipFile``; it is scored again and written anew."""
    try:
        with np.load(path) as arrays:
            return [[arrays[f"{ci}_{qi}"] for qi in range(n)] for ci, n in enumerate(counts)]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error):
        return None


def keep_lexical(path: Path, lexical: Sequence[Sequence[np.ndarray]]) -> None:
    """Write the lexical relevance to ``path`` whole or not at all."""
    buffer = io.BytesIO()
    np.savez(buffer, **{f"{ci}_{qi}": a for ci, per_q in enumerate(lexical)
                        for qi, a in enumerate(per_q)})
    write_atomic(path, buffer.getvalue())


def run(data: Path, cache: Path, only: set[str] | None,
        custom: Sequence[Variant] = (), overlap: bool = False) -> dict[str, Any]:
    from waymarks import semantic

    embedder = semantic.load()
    if embedder is None:
        raise SystemExit("the semantic extra is not installed")
    conversations = locomo.load(data, "turns")
    indexes = [locomo.build_index(c, "turn") for c in conversations]
    dense = [locomo.dense_for(c, i, embedder, cache) for c, i in
             zip(conversations, indexes, strict=True)]
    matrices = [np.frombuffer(b"".join(d.vectors), dtype="<f4").reshape(len(d.ids), -1)
                for d in dense]
    chosen = [v for v in variants() if only is None or v.name in only] + list(custom)
    prefixes = {v.prefix for v in chosen if v.calibration is not None} | (
        {"query"} if overlap else set())
    questions = [qa["question"] for c in conversations for qa in c.questions]
    qvec = {p: dict(zip(questions, query_vectors(embedder, questions, p, cache), strict=True))
            for p in prefixes}

    # the lexical relevance of every record, per question, computed once (and cached)
    saved = cache.parent / f"lexical-{lexical_key(data.read_text())}.npz"
    kept = kept_lexical(saved, [len(c.questions) for c in conversations])
    lexical: list[list[np.ndarray]] = kept or []
    for conv, index, d in zip(conversations if not lexical else [], indexes, dense,
                              strict=False):
        position = {i: n for n, i in enumerate(d.ids)}
        per_q = []
        for qa in conv.questions:
            plan = direct_plan(qa["question"])
            stats = index.stats(plan.focus + plan.context)
            rel = np.zeros(len(d.ids))
            for s in ranked(plan, d.all_candidates, stats):
                rel[position[s.candidate.id]] = s.relevance
            per_q.append(rel)
        lexical.append(per_q)
    if kept is None:
        keep_lexical(saved, lexical)

    found = _overlap(conversations, dense, matrices, lexical, qvec["query"],
                     base()) if overlap else None
    if found is not None:
        print(f"overlap {found}", file=sys.stderr, flush=True)
    results: dict[str, Any] = {}
    for variant in chosen:
        start, cpu = time.perf_counter(), time.process_time()
        sums = {"r1": 0.0, "r5": 0.0, "r10": 0.0, "hit": 0, "digest": 0, "injected": 0}
        per_cat: dict[int, dict[str, float]] = {}
        # per conversation too: a change that helps one conversation only is not a change
        per_conv: dict[str, dict[str, float]] = {}
        precisions: list[float] = []
        n = 0
        for ci, (conv, index, d) in enumerate(zip(conversations, indexes, dense, strict=True)):
            by_id = {doc.id: doc for doc in conv.docs}
            created = np.array([doc.created_at for doc in conv.docs], dtype=float)
            fj = (ci + 1) % len(conversations)
            bm25 = locomo.BM25([doc.text for doc in conv.docs] if variant.ranking == "bm25"
                               else [])
            for qi, qa in enumerate(conv.questions):
                question, evidence = qa["question"], qa["evidence"]
                rel = (np.array(bm25.scores(question)) if variant.ranking == "bm25"
                       else lexical[ci][qi])
                if variant.calibration is None:
                    fused = rel
                    selected, _ = locomo.answer(index, question)
                    foreign, _ = locomo.answer(indexes[fj], question)
                else:
                    c = variant.calibration
                    qv = np.frombuffer(qvec[variant.prefix][question], dtype="<f4")
                    cos = matrices[ci] @ qv
                    sem = _similarity(variant.ranking, cos, c)
                    if variant.extra is not None and variant.extra_weight is None:
                        sem = variant.extra(ci, ci, qi)
                    fused = _ranking(variant.ranking, rel, sem, c.weight)
                    if variant.extra is not None and variant.extra_weight:
                        fused = fused + variant.extra_weight * variant.extra(ci, ci, qi)
                    if variant.ranking.startswith("prf"):
                        cos = _feedback(variant.ranking, matrices[ci], qv, fused)
                        sem = _similarity("sum", cos, c)
                        fused = _ranking("sum", rel, sem, c.weight)
                    selected, foreign = [], []
                    if variant.digest:
                        selected = _digest(index, d, question, cos, c, variant, (ci, ci, qi))
                        fcos = matrices[fj] @ qv
                        foreign = _digest(indexes[fj], dense[fj], question, fcos, c, variant,
                                          (fj, ci, qi))
                # ties: newer first, then id (as ``ranked``)
                order = np.lexsort((np.array(d.ids), -created, -fused))
                docs = [by_id[d.ids[k]] for k in order[:10]]
                cited = {dia for sid in selected for dia in by_id[sid].cites}
                row = {f"r{k}": locomo.recall_at(docs, evidence, k) for k in (1, 5, 10)}
                row.update(hit=bool(cited & set(evidence)), digest=bool(selected),
                           injected=bool(foreign))
                if selected:  # digest precision: share of its claims citing evidence
                    precisions.append(sum(1 for sid in selected if set(by_id[sid].cites)
                                          & set(evidence)) / len(selected))
                cat = per_cat.setdefault(qa["category"], {k: 0.0 for k in (*sums, "n")})
                group = per_conv.setdefault(conv.name, {k: 0.0 for k in (*sums, "n")})
                for key, value in row.items():
                    sums[key] += value
                    cat[key] += value
                    group[key] += value
                cat["n"] += 1
                group["n"] += 1
                n += 1
        results[variant.name] = {
            "prefix": variant.prefix, "candidates": variant.candidates,
            "calibration": None if variant.calibration is None
            else msgspec.to_builtins(variant.calibration),
            **shares({**sums, "n": n}, variant.digest),
            "categories": {locomo.CATEGORIES[k]: shares(c, variant.digest)
                           for k, c in sorted(per_cat.items())},
            "conversations": {name: shares(c, variant.digest)
                              for name, c in per_conv.items()},
            "digest_precision": round(100 * sum(precisions) / len(precisions), 1)
            if precisions else None,
            "wall_s": round(time.perf_counter() - start, 1),
            "cpu_s": round(time.process_time() - cpu, 1)}
        print(summary_line(variant.name, results[variant.name]), file=sys.stderr, flush=True)
    import os

    return {"split": locomo.split_name(data), "questions": len(questions),
            "model": embedder.model, "load_average": os.getloadavg(), "variants": results,
            **({"overlap": found} if found is not None else {})}


#: the measures only a variant that measures the digest takes (:attr:`Variant.digest`)
DIGEST_MEASURES = ("hit", "digest", "injected")


def shares(sums: Mapping[str, float], digest: bool) -> dict[str, float | None]:
    """Each measure of ``sums`` (``n``: the questions) as a percentage; the digest's
    measures ``None`` for a variant that does not measure them (not a zero: a digest
    that is never filled)."""
    n = sums["n"]
    return {k: None if not digest and k in DIGEST_MEASURES else round(100 * v / n, 1)
            for k, v in sums.items() if k != "n"}


def summary_line(name: str, got: Mapping[str, Any]) -> str:
    """One variant's figures as the run prints them ("-": not measured)."""
    def shown(key: str, width: int) -> str:
        value = got[key]
        return f"{'-':>{width}}" if value is None else f"{value:{width}.1f}"

    return (f"{name:<22} R@1 {shown('r1', 5)} R@5 {shown('r5', 5)} R@10 {shown('r10', 5)} "
            f"hit {shown('hit', 5)} inj {shown('injected', 4)} prec {got['digest_precision']}")


def _overlap(conversations: Sequence[Any], dense: Sequence[Any],
             matrices: Sequence[np.ndarray], lexical: Sequence[Sequence[np.ndarray]],
             qvec: Mapping[str, bytes], c: Calibration) -> dict[str, Any]:
    """What each signal finds (issue 20: why the model adds less to the lexical engine
    than to plain BM25): the evidence turns in a question's top ten by the lexical
    engine, by the cosine alone, by BM25 over the indexed text and by the shipped fusion;
    those the cosine finds that BM25 or the engine does not; of the evidence the fusion
    leaves out of the top ten, how many are below rank 50 on both sides; and R@5 / R@10
    with the fusion weight (0 to 1 in tenths) chosen for each question apart: an oracle,
    the most any fixed-weight sum of these two signals could reach."""
    top: dict[str, int] = dict.fromkeys(("lexical", "cosine", "bm25", "fused"), 0)
    extra = {"cosine_not_bm25": 0, "cosine_not_lexical": 0, "fused_missed": 0,
             "missed_below_50_both": 0, "evidence": 0}
    oracle = {5: 0.0, 10: 0.0}
    n = 0
    for ci, (conv, d) in enumerate(zip(conversations, dense, strict=True)):
        created = np.array([doc.created_at for doc in conv.docs], dtype=float)
        ids = np.array(d.ids)
        bm25 = locomo.BM25([doc.text for doc in conv.docs])

        def order(score: np.ndarray, ids: np.ndarray = ids,
                  created: np.ndarray = created) -> np.ndarray:
            return np.lexsort((ids, -created, -score))  # ties: newer first, then id

        for qi, qa in enumerate(conv.questions):
            evidence = set(qa["evidence"])
            rel = lexical[ci][qi]
            cos = matrices[ci] @ np.frombuffer(qvec[qa["question"]], dtype="<f4")
            sem = _similarity("sum", cos, c)
            orders = {"lexical": order(rel), "cosine": order(cos),
                      "bm25": order(np.array(bm25.scores(qa["question"]))),
                      "fused": order(_ranking("sum", rel, sem, c.weight))}
            found = {name: evidence & set(ids[o[:10]]) for name, o in orders.items()}
            for name, got in found.items():
                top[name] += len(got)
            extra["evidence"] += len(evidence)
            extra["cosine_not_bm25"] += len(found["cosine"] - found["bm25"])
            extra["cosine_not_lexical"] += len(found["cosine"] - found["lexical"])
            at = {name: {ids[k]: r for r, k in enumerate(o[:50])} for name, o in orders.items()
                  if name in ("lexical", "cosine")}
            for turn in evidence - found["fused"]:
                extra["fused_missed"] += 1
                extra["missed_below_50_both"] += all(turn not in a for a in at.values())
            for k in oracle:
                oracle[k] += max(len(evidence & set(ids[order(_ranking(
                    "sum", rel, sem, w / 10))[:k]])) for w in range(11)) / len(evidence)
            n += 1
    return {"top10": top, **extra,
            "oracle_weight_r5": round(100 * oracle[5] / n, 1),
            "oracle_weight_r10": round(100 * oracle[10] / n, 1)}


def _feedback(mode: str, matrix: np.ndarray, qv: np.ndarray, fused: np.ndarray
              ) -> np.ndarray:
    """Pseudo-relevance feedback in the dense space (``prfK:A``): the query vector moved
    towards the mean of the K best records of the first fused ranking by A, renormalised;
    the cosines of every record with it."""
    k_text, _, a_text = mode[3:].partition(":")
    k, alpha = int(k_text or 3), float(a_text or 0.5)
    top = np.argsort(-fused, kind="stable")[:k]
    moved = qv + alpha * matrix[top].mean(axis=0)
    moved /= np.linalg.norm(moved)
    return matrix @ moved


def _similarity(mode: str, cos: np.ndarray, c: Calibration) -> np.ndarray:
    """The calibrated similarity; the ``q*`` modes calibrate per query (issue 20 tried
    them for ranking): ``qmax`` maps the query's best cosine to 1, ``qmed`` takes the
    query's median cosine as the floor (how far above the typical record)."""
    floor, ceil = c.floor, c.ceil
    if mode in _PER_QUERY:
        return cos
    if mode in ("qmax", "qmaxnorm"):
        ceil = max(float(cos.max()), floor + 1e-6)
    elif mode == "qmed":
        floor = min(float(np.median(cos)), ceil - 1e-6)
    return np.clip((cos - floor) / (ceil - floor), 0.0, 1.0)


#: the ranking modes that normalise each side per query (the similarity: the raw cosine)
_PER_QUERY = {"minmax": lambda x: _spread(x, x.min(), x.max() - x.min()),
              "zscore": lambda x: _spread(x, x.mean(), x.std())}
_PER_QUERY["bm25"] = _PER_QUERY["minmax"]


def _spread(x: np.ndarray, origin: float, scale: float) -> np.ndarray:
    return (x - origin) / scale if scale > 0 else np.zeros_like(x)


def _ranking(mode: str, rel: np.ndarray, sem: np.ndarray, weight: float) -> np.ndarray:
    if mode in _PER_QUERY:
        norm = _PER_QUERY[mode]
        return (1 - weight) * norm(rel) + weight * norm(sem)
    if mode.startswith("adaptive"):  # ``adaptiveT:W``: weight W when the best lexical < T
        t_text, _, w_text = mode[8:].partition(":")
        if rel.max() < float(t_text or 0.3):
            weight = float(w_text or 0.6)
        return (1 - weight) * rel + weight * sem
    if mode.startswith("densetop"):  # ``densetopK:B``: the K nearest records get B more
        k_text, _, b_text = mode[8:].partition(":")
        out = (1 - weight) * rel + weight * sem
        out[np.argsort(-sem, kind="stable")[:int(k_text or 5)]] += float(b_text or 0.05)
        return out
    if mode == "qmaxnorm":
        top = rel.max()
        return (1 - weight) * (rel / top if top > 0 else rel) + weight * sem
    if mode == "dense":
        return sem
    if mode == "matched":
        return np.where(rel > 0, (1 - weight) * rel + weight * sem, -1.0)
    if mode == "maxnorm":
        top = rel.max()
        return (1 - weight) * (rel / top if top > 0 else rel) + weight * sem
    if mode == "rrf":
        out = np.zeros(len(rel))
        for score in (rel, sem):
            order = np.argsort(-score, kind="stable")
            ranks = np.empty(len(score))
            ranks[order] = np.arange(1, len(score) + 1)
            out += np.where(score > 0, 1.0 / (60 + ranks), 0.0)
        return out
    return (1 - weight) * rel + weight * sem


class _Tagged(float):
    """A calibrated similarity that carries its record's extra signal (and how many times
    it was fused: scoring fuses a record's coverage first, then its relevance)."""

    extra: float
    coverage: float
    fused: int

    def __new__(cls, value: float, extra: float, coverage: float) -> _Tagged:
        tagged = super().__new__(cls, value)
        tagged.extra, tagged.coverage, tagged.fused = extra, coverage, 0
        return tagged


class ExtraSemantic(Semantic, frozen=True):
    """The production semantic side with an extra signal fused into relevance and
    coverage; the gates (qualify, support, veto, cross-script) still see the similarity."""

    extra: Mapping[str, float] = msgspec.field(default_factory=dict)
    extra_weight: float | None = 0.0
    divide: float = 1.0
    relevance_only: bool = False
    coverage_extra: Mapping[str, float] = msgspec.field(default_factory=dict)
    coverage_weight: float = 0.0

    def score(self, candidate_id: str) -> float | None:
        sem = super().score(candidate_id)
        return None if sem is None else _Tagged(sem, self.extra.get(candidate_id, 0.0),
                                                self.coverage_extra.get(candidate_id, 0.0))

    def fuse(self, lexical: float, sem: float | None) -> float:
        if sem is None:
            return lexical
        extra = float(getattr(sem, "extra", 0.0))
        if isinstance(sem, _Tagged):
            sem.fused += 1
            if self.relevance_only and sem.fused == 1:  # the coverage
                return super().fuse(lexical, float(sem)) + self.coverage_weight * sem.coverage
        if self.extra_weight is None:
            return super().fuse(lexical, extra)
        return (super().fuse(lexical, float(sem)) + self.extra_weight * extra) / self.divide


def _digest(index: Any, d: Any, question: str, cos: np.ndarray, c: Calibration,
            variant: Variant, at: tuple[int, int, int]) -> list[str]:
    """The digest's selection; ``at``: (records' conversation, question's, question)."""
    plan = direct_plan(question)
    cands = index.candidates(plan)
    stats = index.stats(plan.focus + plan.context)
    semantic, extra = semantic_side(d.ids, cos.tolist(), [x.id for x in cands], c,
                                    limit=variant.candidates, query=question)
    if variant.extra is not None:
        w = variant.extra_weight
        coverage = ({} if variant.coverage_extra is None else
                    dict(zip(d.ids, variant.coverage_extra(*at).tolist(), strict=True)))
        semantic = ExtraSemantic(
            semantic.cosines, semantic.calibration, semantic.query_script,
            extra=dict(zip(d.ids, variant.extra(*at).tolist(), strict=True)), extra_weight=w,
            divide=1.0 + (w or 0.0) if variant.extra_scaled else 1.0,
            relevance_only=variant.extra_relevance_only, coverage_extra=coverage,
            coverage_weight=variant.coverage_weight)
    by_id = {x.id: x for x in d.all_candidates}
    return evaluate(plan, [*cands, *(by_id[i] for i in extra)], stats, locomo.EXACT,
                    semantic).selected


def parse_variant(text: str) -> Variant:
    changes = dict(part.split("=", 1) for part in text.split(",") if part)
    ranking = changes.pop("ranking", "sum")
    prefix = changes.pop("prefix", "query")
    candidates = int(changes.pop("candidates", SEMANTIC_CANDIDATES))
    digest = changes.pop("digest", "1") != "0"
    return Variant(text, cal(**{k: float(v) for k, v in changes.items()}), prefix,
                   candidates, ranking, digest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--embed-cache", type=Path, default=locomo.DEFAULT_CACHE)
    parser.add_argument("--only", default="", help="comma-separated variant names")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--overlap", action="store_true",
                        help="also what each signal finds, and the per-question weight oracle")
    parser.add_argument("--variant", action="append", default=[],
                        help="another variant: floor=0.7,veto=0.5[,ranking=maxnorm]"
                             "[,prefix=passage][,candidates=40] (repeatable)")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    custom = [parse_variant(text) for text in args.variant]
    try:
        report = run(args.data.resolve(), args.embed_cache,
                     set() if custom and only is None else only, custom, args.overlap)
    except locomo.NotLoCoMo as exc:
        print(exc, file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2 if args.json else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
