"""Benchmark: a learned pair judge of contradictions beside the rules (issue 20 item 4, an
experiment).

The rules (``core/contradiction.py``, ``core/claim_masked.py``, ``core/claim_*``) catch
20-30 % of the contradictions of pair sets written blind. This trains a small judge on
features of the two claims' e5 vectors (the semantic extra's multilingual e5-small:
``|u-v|``, ``u*v`` and the cosine, of the raw texts and of the value-masked ones) and the
rules' own signals (refused by the write check, flagged by the replay rule, one typed
value each and its kind, the masked subjects' overlap, the signatures' subject overlap,
values that differ), with NumPy only (L2 logistic regression), and measures it honestly:

- training sets: the fixture's untagged pairs and the ``dev-masked``, ``dev-paraphrase``,
  ``dev-s68`` and ``dev-words`` tags; the feature set, the L2 strength and the threshold
  are chosen by leave-one-set-out cross-validation on them alone (the threshold: the most
  contradictions caught by "rules OR judge" out of fold with at most ``--max-false`` %
  false conflicts on the non-conflicting pairs the rules accept);
- held-out sets, never trained or tuned on: ``dev-reg-*`` (``conflict_pairs_registers
  .json``) and every ``heldout-*`` tag (``heldout-s68`` the blind one), each reported for
  the rules alone, the judge alone and rules OR judge;
- ordinary refusals: the judge asked about every earlier claim of each everyday store
  (and each LoCoMo conversation when its data file is there): a claim it would refuse is
  an ordinary write refused (the rules' own refusals are ``ordinary_refusals.py``'s).

Deterministic: fixed folds, no random state. Prints JSON.

    .venv/bin/python benchmarks/conflict_judge.py [--cache PATH] [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(REPO), str(HERE)]

import conflicts  # noqa: E402
import ordinary_refusals  # noqa: E402
from waymarks.core.claim_masked import _overlap, masked, valued  # noqa: E402
from waymarks.core.contradiction import negates, signature  # noqa: E402

FILES = ("conflict_pairs.json", "conflict_pairs_words.json", "conflict_pairs_registers.json")
TRAIN = ("fixture", "dev-masked", "dev-paraphrase", "dev-s68", "dev-words")
LOCOMO = ordinary_refusals.LOCOMO

Pair = dict[str, Any]


def set_of(pair: Pair) -> str:
    """The set a pair belongs to: its tag, ``fixture`` for the untagged."""
    return str(pair.get("tag", "fixture"))


def held_out(name: str) -> bool:
    return name.startswith(("heldout-", "dev-reg-"))


def all_pairs() -> list[Pair]:
    pairs: list[Pair] = []
    for name in FILES:
        pairs.extend(json.loads((HERE / name).read_text(encoding="utf-8")))
    return pairs


# --- the rules' signals -------------------------------------------------------------------

RULE_NAMES = ("rules", "replay", "valued_both", "same_kind", "value_differs", "overlap",
              "sig_both", "sig_subject", "sig_values_differ", "negates_one", "han_one")


def _han(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def rule_signals(a: str, b: str, scopes: str = "same") -> list[float]:
    """The rules' own signals for the pair (``scopes``: as a pair file says)."""
    rules, replay, _ = conflicts.judge({"a": a, "b": b, "scopes": scopes})
    one, other = valued(a), valued(b)
    both = one is not None and other is not None
    same_kind = both and one.kind == other.kind  # type: ignore[union-attr]
    overlap = _overlap(one, other) if same_kind else None  # type: ignore[arg-type]
    sa, sb = signature(a), signature(b)
    sig_subject = 0.0
    if sa is not None and sb is not None and (sa.subject | sb.subject):
        sig_subject = len(sa.subject & sb.subject) / len(sa.subject | sb.subject)
    return [float(rules), float(replay), float(both), float(same_kind),
            float(same_kind and one.value != other.value),  # type: ignore[union-attr]
            overlap or 0.0, float(sa is not None and sb is not None), sig_subject,
            float(sa is not None and sb is not None and bool(sa.values ^ sb.values)),
            float(negates(a) != negates(b)), float(_han(a) != _han(b))]


# --- vectors -----------------------------------------------------------------------------

def embed_all(texts: Sequence[str], cache: Path | None) -> dict[str, np.ndarray]:
    """Each text's passage vector (float32, unit), cached in ``cache`` when given."""
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.is_file():
        stored = np.load(cache, allow_pickle=False)
        known = dict(zip(stored["texts"].tolist(), stored["vectors"], strict=True))
    wanted = sorted(set(texts) - set(known))
    if wanted:
        from waymarks import semantic

        embedder = semantic.load()
        if embedder is None:
            raise SystemExit("conflict_judge.py: the semantic extra is not installed or is "
                             "switched off (pip install 'waymarks[semantic]')")
        for text, vector in zip(wanted, embedder.passages(wanted), strict=True):
            known[text] = np.frombuffer(vector, dtype="<f4")
        if cache is not None:
            names = sorted(known)
            np.savez(cache, texts=np.array(names), vectors=np.stack([known[t] for t in names]))
    return known


#: the parts of each feature set tried; ``signals`` without the rules' verdicts (the
#: judge only adds to them: with the verdicts, trained where the rules catch nearly all,
#: the model learnt the verdict and nothing else)
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "cos": ("signals", "cos", "mcos"),
    "raw": ("signals", "cos", "mcos", "diff", "prod"),
    "raw+masked": ("signals", "cos", "mcos", "diff", "prod", "mdiff", "mprod"),
}
#: trained on every training pair, or only on those the rules accept (the judge's work)
MODES: tuple[str, ...] = ("all", "residual")


def features(signals: np.ndarray, u: np.ndarray, v: np.ndarray, mu: np.ndarray,
             mv: np.ndarray, parts: Sequence[str]) -> np.ndarray:
    """The feature rows of pairs: their rule signals and the parts named of their vectors
    (raw ``u``/``v``, masked ``mu``/``mv``; rows are pairs)."""
    blocks = {"signals": signals[:, 2:],
              "cos": np.sum(u * v, axis=1, keepdims=True),
              "mcos": np.sum(mu * mv, axis=1, keepdims=True),
              "diff": np.abs(u - v), "prod": u * v,
              "mdiff": np.abs(mu - mv), "mprod": mu * mv}
    return np.hstack([blocks[name] for name in parts]).astype(np.float64)


# --- the model ---------------------------------------------------------------------------

def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 400) -> dict[str, np.ndarray]:
    """L2 logistic regression on standardised features, by Nesterov's accelerated gradient
    with the step of the loss's Lipschitz bound (deterministic; a Newton step's Hessian of
    ~1,500 features made the cross-validation hours long)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    probe = np.ones(z.shape[1]) / np.sqrt(z.shape[1])
    for _ in range(30):  # (power iteration: the largest eigenvalue of z'z)
        probe = z.T @ (z @ probe)
        top = float(np.linalg.norm(probe))
        probe /= top
    rate = 1.0 / (top / 4 + l2)
    w = np.zeros(z.shape[1])
    ahead = w.copy()
    for step in range(steps):
        p = 1 / (1 + np.exp(-np.clip(z @ ahead, -30, 30)))
        new = ahead - rate * (z.T @ (p - y) + penalty * ahead)
        ahead = new + (step / (step + 3)) * (new - w)
        w = new
    return {"mean": mean, "scale": scale, "w": w}


def predict(model: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    z = (x - model["mean"]) / model["scale"]
    return 1 / (1 + np.exp(-np.clip(z @ model["w"][:-1] + model["w"][-1], -30, 30)))


def rates(flagged: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    pos, neg = y == 1, y == 0
    return {"conflicting": int(pos.sum()),
            "caught_pct": round(100 * float(flagged[pos].mean()), 1) if pos.any() else None,
            "other": int(neg.sum()),
            "false_pct": round(100 * float(flagged[neg].mean()), 1) if neg.any() else None}


def threshold_for(scores: np.ndarray, rules: np.ndarray, y: np.ndarray,
                  max_false: float) -> float:
    """The lowest threshold (most caught) at which rules OR judge stays within
    ``max_false`` % false conflicts."""
    best = 1.0
    for t in sorted(set(np.round(scores, 4).tolist()) | {1.0}, reverse=True):
        flagged = rules | (scores >= t)
        if 100 * flagged[y == 0].mean() > max_false:
            break
        best = t
    return float(best)


def cross_validate(x: np.ndarray, y: np.ndarray, rules: np.ndarray, sets: np.ndarray,
                   l2: float, mode: str) -> np.ndarray:
    """Out-of-fold scores, leaving each training set out in turn (the fixture, the
    largest, in three folds by its pair number); ``mode`` ``residual``: fitted on the
    pairs the rules accept only."""
    folds = sets.copy()
    fixture = np.flatnonzero(sets == "fixture")
    for number, at in enumerate(fixture):
        folds[at] = f"fixture{number * 3 // len(fixture)}"
    scores = np.zeros(len(y))
    for fold in sorted(set(folds.tolist())):
        out = folds == fold
        fitted = ~out & (~rules if mode == "residual" else True)
        scores[out] = predict(fit(x[fitted], y[fitted], l2), x[out])
    return scores


def ordinary(stores: dict[str, Sequence[str]], vectors: dict[str, np.ndarray],
             parts: Sequence[str], model: dict[str, np.ndarray], threshold: float
             ) -> dict[str, Any]:
    """Claims of ordinary stores the judge would refuse where the rules accept: each claim
    against every earlier claim of its store (more than a write compares: an upper
    bound)."""
    refused: list[dict[str, str]] = []
    claims = 0
    for name, texts in stores.items():
        claims += len(texts)
        for at in range(1, len(texts)):
            b = texts[at]
            earlier = list(texts[:at])
            sig = np.array([rule_signals(a, b) for a in earlier])
            u = np.stack([vectors[a] for a in earlier])
            v = np.repeat(vectors[b][None, :], len(earlier), axis=0)
            mu = np.stack([vectors[masked(a)] for a in earlier])
            mv = np.repeat(vectors[masked(b)][None, :], len(earlier), axis=0)
            scores = predict(model, features(sig, u, v, mu, mv, parts)) * (sig[:, 0] == 0)
            if scores.max() >= threshold:
                refused.append({"store": name, "claim": b,
                                "for": earlier[int(scores.argmax())]})
    return {"claims": claims, "refused": len(refused), "refusals": refused[:40]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, help="a .npz file keeping the texts' vectors")
    parser.add_argument("--data", type=Path, default=LOCOMO, help="LoCoMo's data file")
    parser.add_argument("--max-false", type=float, default=1.0,
                        help="the false-conflict percentage the threshold may reach in "
                        "cross-validation (default 1.0: a margin under the target 2)")
    args = parser.parse_args(argv)
    pairs = all_pairs()
    y = np.array([int(p["conflict"]) for p in pairs])
    sets = np.array([set_of(p) for p in pairs])
    signals = np.array([rule_signals(p["a"], p["b"], p["scopes"]) for p in pairs])
    rules = signals[:, 0] > 0
    stores: dict[str, Sequence[str]] = dict(ordinary_refusals.stores())
    if args.data.is_file():
        stores.update(ordinary_refusals.observations(args.data))
    texts = [t for p in pairs for t in (p["a"], p["b"])] + [
        t for claims in stores.values() for t in claims]
    vectors = embed_all(texts + [masked(t) for t in texts], args.cache)

    def stack(field: str, mask: bool = False) -> np.ndarray:
        return np.stack([vectors[masked(p[field]) if mask else p[field]] for p in pairs])

    u, v, mu, mv = stack("a"), stack("b"), stack("a", True), stack("b", True)
    train = np.array([s in TRAIN for s in sets])
    assert not any(held_out(s) for s in sets[train])
    choices: list[dict[str, Any]] = []
    for name, parts in FEATURE_SETS.items():
        x = features(signals, u, v, mu, mv, parts)
        for mode in MODES:
            for l2 in (10.0, 100.0, 1000.0):
                scores = cross_validate(x[train], y[train], rules[train], sets[train], l2,
                                        mode)
                t = threshold_for(scores, rules[train], y[train], args.max_false)
                both = rules[train] | (scores >= t)
                missed = ~rules[train] & (y[train] == 1)
                choices.append({"features": name, "mode": mode, "l2": l2, "threshold": t,
                                "cv_or": rates(both, y[train]),
                                "cv_judge": rates(scores >= t, y[train]),
                                "cv_added": int((scores >= t)[missed].sum()),
                                "cv_rules_missed": int(missed.sum())})
    best = max(choices, key=lambda c: (c["cv_or"]["caught_pct"], -c["cv_or"]["false_pct"]))
    parts = FEATURE_SETS[best["features"]]
    x = features(signals, u, v, mu, mv, parts)
    fitted = train & (~rules if best["mode"] == "residual" else True)
    model = fit(x[fitted], y[fitted], best["l2"])
    scores = predict(model, x)
    judged = scores >= best["threshold"]
    report: dict[str, Any] = {}
    for name in sorted(set(sets.tolist())):
        at = sets == name
        report[name] = {"held_out": held_out(name), "rules": rates(rules[at], y[at]),
                        "judge": rates(judged[at], y[at]),
                        "rules_or_judge": rates((rules | judged)[at], y[at])}
    for name, test in (("held_out:dev-reg", np.char.startswith(sets, "dev-reg-")),
                       ("held_out:all", np.array([held_out(s) for s in sets]))):
        report[name] = {"rules": rates(rules[test], y[test]),
                        "judge": rates(judged[test], y[test]),
                        "rules_or_judge": rates((rules | judged)[test], y[test])}
    result = {"chosen": best, "cross_validation": choices, "sets": report,
              "ordinary_refusals_judge_alone": ordinary(
                  stores, vectors, parts, model, best["threshold"])}
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
