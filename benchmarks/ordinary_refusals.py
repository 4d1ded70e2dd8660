"""Benchmark: how many ordinary claims the write path refuses (issue 20 item 4, the
standing check of false conflicts).

False conflicts are worse than misses: a wrongly refused write blocks a person. This
writes every claim of the ordinary stores into ONE home, through the real write path
(``Waymarks.remember``: the session lock, the write decision, the ledger, the
projection), and counts the refusals:

- the everyday stores (``tests/recall/everyday_store.py``, ``everyday_heldout.py``,
  ``everyday_heldout2.py``, the Chinese store of ``everyday_xling.py``), each a project
  of its own in the home (each was written by one person about one project);
- the LoCoMo-derived claims the benchmarks use (``locomo.py --corpus observations``: each
  conversation's generated observations, one project a conversation), when the data file
  is there (``--data``, never copied into the repository);
- each non-conflicting pair of ``conflict_pairs.json``, ``conflict_pairs_words.json`` and
  ``conflict_pairs_registers.json``
  (``conflict`` false, ``scopes`` same), its two claims in a project of their own
  (``--pairs`` for the fixture pairs: they are ~1,300 projects).

A refusal of an everyday store's or a pair's claim is a false conflict; a LoCoMo
conversation holds facts that change over months ("moved to …"), so its refusals are
listed to be read, not all false. Prints JSON: per source, claims written and refused,
and each refusal's claim and the claim it was refused for.

    .venv/bin/python benchmarks/ordinary_refusals.py [--data PATH] [--pairs]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(REPO), str(HERE)]  # the tests' everyday store, the held-out ones

import everyday_heldout  # noqa: E402
import everyday_heldout2  # noqa: E402
import everyday_xling  # noqa: E402
from tests.recall import everyday_store  # noqa: E402
from waymarks.service.app import Waymarks  # noqa: E402

LOCOMO = REPO / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"


def stores() -> dict[str, Sequence[str]]:
    """The everyday stores, by name."""
    return {"everyday": everyday_store.CLAIMS, "everyday_heldout": everyday_heldout.CLAIMS,
            "everyday_heldout2": everyday_heldout2.CLAIMS,
            "everyday_xling_zh": everyday_xling.ZH_CLAIMS}


def observations(path: Path) -> dict[str, list[str]]:
    """Each LoCoMo conversation's generated observations, in session order."""
    samples = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    for number, sample in enumerate(samples):
        facts: list[str] = []
        by_session = sample.get("observation", {})
        for session in sorted(by_session, key=lambda k: int(k.split("_")[1])):
            for said in by_session[session].values():
                facts.extend(fact for fact, _ in said if isinstance(fact, str))
        found[f"locomo:{sample.get('sample_id', number)}"] = facts
    return found


def quiet_pairs(names: Iterable[str]) -> dict[str, list[str]]:
    """The non-conflicting pairs of the pair files named, each as a store of two."""
    found: dict[str, list[str]] = {}
    for name in names:
        for number, pair in enumerate(json.loads((HERE / name).read_text(encoding="utf-8"))):
            if not pair["conflict"] and pair["scopes"] == "same":
                found[f"{name}:{number}"] = [pair["a"], pair["b"]]
    return found


def write_all(home: Path, root: Path, by_store: dict[str, Sequence[str]]
              ) -> dict[str, dict[str, Any]]:
    """Each store's claims written into ``home``, a project each: written and refused."""
    report: dict[str, dict[str, Any]] = {}
    for number, (name, claims) in enumerate(by_store.items()):
        project = root / f"p{number}"
        project.mkdir()
        refused: list[dict[str, Any]] = []
        with Waymarks(home, cwd=str(project)) as app:
            texts: dict[str, str] = {}
            for claim in claims:
                outcome = app.remember(claim)
                if outcome.outcome == "committed":
                    texts[outcome.id] = claim  # type: ignore[union-attr]
                elif outcome.outcome == "rejected":
                    refused.append({"claim": claim, "code": outcome.code,  # type: ignore[union-attr]
                                    "for": [texts.get(i, i) for i in
                                            getattr(outcome, "conflicts", ())]})
        report[name] = {"claims": len(claims), "refused": refused}
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--pairs", action="store_true",
                        help="also each non-conflicting pair of conflict_pairs.json")
    args = parser.parse_args(argv)
    os.environ["WAYMARKS_SEMANTIC"] = "off"
    sources: dict[str, dict[str, Sequence[str]]] = {"stores": dict(stores())}
    if args.data.is_file():
        sources["locomo"] = dict(observations(args.data))
    sources["pairs"] = dict(quiet_pairs(
        ["conflict_pairs_words.json", "conflict_pairs_registers.json"]
        + (["conflict_pairs.json"] if args.pairs else [])))
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        for kind, by_store in sources.items():
            folder = root / kind
            folder.mkdir()
            written = write_all(home, folder, by_store)
            refusals = [dict(r, store=name) for name, got in written.items()
                        for r in got["refused"]]
            result[kind] = {"stores": len(written),
                            "claims": sum(got["claims"] for got in written.values()),
                            "refused": len(refusals), "refusals": refusals}
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
