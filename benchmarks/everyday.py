"""Benchmark: everyday recall precision (issue 20, "precision is the product").

Each store's claims are remembered in a fresh home (lexical engine, ``WAYMARKS_SEMANTIC=off``)
and each question is asked once, with no turn before it. A question with answers is
``right`` when it recalls at least one claim and every claim it recalls holds one of its
answers, ``missed`` when it recalls nothing, ``wrong`` when it recalls a claim that answers
nothing; a question no claim answers is ``right`` when it recalls nothing, else ``wrong``.
``wrong_claims`` counts the claims recalled that answer nothing.

Sets, reported apart:

- ``everyday``: the tests' everyday store (:mod:`tests.recall.everyday_store`) with the
  questions of :mod:`tests.recall.test_everyday_questions` and
  :mod:`tests.recall.test_everyday_more` (which their tests hold right) and the leftover
  questions below (wrong or missed when they were written down);
- ``heldout``: another project's memory and questions (:mod:`everyday_heldout`), written
  before the rules that answer them were read, and never tuned on;
- ``heldout2``: a third project's memory, questions and follow-ups (:mod:`everyday_heldout2`,
  some in Chinese), written the same way a stop later. A follow-up is asked with its turn
  before as the history;
- ``heldout3``: questions and follow-ups of the everyday store itself
  (:mod:`everyday_heldout3`, English and Chinese, some in other words than the claims', some
  of what no claim says), written blind: neither the recall rules nor the other sets'
  questions read.

    PYTHONPATH=src .venv/bin/python benchmarks/everyday.py [--show] [--semantic]

``--show`` lists each question that is not right with what it recalled. ``--semantic``
measures hybrid recall instead (the ``semantic`` extra with its bundled model): the same
stores, every claim embedded before the first question by the path ``waymarks index
--semantic`` and the background worker take (:meth:`Waymarks.embed_recall`); the output
says ``"engine": "hybrid"``, and a missing extra is an error (exit 2), not lexical figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]  # the tests' question sets

import everyday_heldout  # noqa: E402
import everyday_heldout2  # noqa: E402
import everyday_heldout3  # noqa: E402
from tests.recall import everyday_store, test_everyday_more, test_everyday_questions  # noqa: E402
from waymarks.service.app import Waymarks  # noqa: E402

#: questions of the everyday store a stop left wrong or missed (issue 20 follow-ups):
#: question -> answers, or () when no claim answers it
LEFTOVER: Final[Mapping[str, tuple[str, ...]]] = {
    "how do I run the payments tests?": (),
    "how does the mailer deploy?": (),
    "how does payments deploy?": (),
    "how does auth deploy?": ("Auth deploys via Argo CD",),
    "how do I deploy auth?": ("Auth deploys via Argo CD",),
    "what does the mailer send through?": ("Amazon SES",),
    "what is the coverage threshold?": ("Coverage must stay above",),
    "which payment provider do we use?": ("Adyen", "Stripe"),
    "which payment provider does payments use?": ("Adyen",),
    "when do the TLS certificates expire?": ("TLS certificates renew",),
    "what is the payments timeout?": ("Payments timeouts",),
    "how long is the gateway timeout?": ("gateway timeout",),
}


Questions = dict[str, tuple[str, ...]]
#: (turn before, follow-up, answers)
FollowUps = Sequence[tuple[str, str, tuple[str, ...]]]


def _held_out(module: Any) -> Questions:
    questions = dict(module.ANSWERED)
    questions.update({question: () for question in module.UNSTORED})
    return questions


def _questions() -> tuple[Questions, Questions]:
    everyday: dict[str, tuple[str, ...]] = {}
    for module in (test_everyday_questions, test_everyday_more):
        everyday.update(module.ANSWERED)
        everyday.update({question: () for question in module.UNSTORED})
    everyday.update(LEFTOVER)
    return everyday, _held_out(everyday_heldout)


def measure(claims: Sequence[str], questions: Mapping[str, tuple[str, ...]],
            show: bool, follow_ups: FollowUps = (), *, semantic: bool = False
            ) -> dict[str, Any]:
    """Right, wrong and missed questions of one store (see the module's docstring)."""
    asked = [((), question, answers) for question, answers in questions.items()]
    asked += [((before,), question, answers) for before, question, answers in follow_ups]
    counts = {"questions": len(asked), "right": 0, "wrong": 0, "missed": 0,
              "wrong_claims": 0}
    shown: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as temp:
        project = Path(temp, "project")
        project.mkdir()
        with Waymarks(Path(temp, "home"), cwd=str(project)) as app:
            texts = {app.remember(claim).id: claim for claim in claims}  # type: ignore[union-attr]
            if semantic:
                _embed_all(app)
            for history, question, answers in asked:
                recalled = [texts[i] for i in app.recall(question, history).selected]
                stray = [text for text in recalled
                         if not answers or not any(part in text for part in answers)]
                counts["wrong_claims"] += len(stray)
                outcome = ("wrong" if stray else "missed" if answers and not recalled
                           else "right")
                counts[outcome] += 1
                if show and outcome != "right":
                    shown[f"{outcome}: {' / '.join((*history, question))}"] = recalled
    return {**counts, **({"not_right": shown} if show else {})}


def _embed_all(app: Waymarks) -> None:
    """Embed every claim as the background worker does; fail when any is left lexical."""
    from waymarks.service.semantic_recall import missing_vectors

    counts = app.embed_recall()
    if not counts.get("available") or missing_vectors(app):
        raise SystemExit(f"everyday --semantic: the claims were not all embedded: {counts}")


def parse_args(doc: str, name: str, argv: Sequence[str] | None) -> argparse.Namespace | None:
    """``--show`` and ``--semantic``, the engine set for them; None: no semantic extra."""
    parser = argparse.ArgumentParser(description=doc.split("\n", 1)[0])
    parser.add_argument("--show", action="store_true", help="list the questions not right")
    parser.add_argument("--semantic", action="store_true",
                        help="hybrid recall: every claim embedded with the bundled model")
    args = parser.parse_args(argv)
    os.environ["WAYMARKS_SEMANTIC"] = "on" if args.semantic else "off"
    os.environ["WAYMARKS_SEMANTIC_BACKFILL"] = "off"  # (embedded here, in the foreground)
    if args.semantic:
        from waymarks import semantic

        if semantic.load() is None:
            print(f"{name} --semantic: the semantic extra is not installed", file=sys.stderr)
            return None
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(__doc__, "everyday", argv)
    if args is None:
        return 2
    everyday, heldout = _questions()
    hybrid = args.semantic
    print(json.dumps({
        "engine": "hybrid" if hybrid else "lexical",
        "everyday": measure(everyday_store.CLAIMS, everyday, args.show, semantic=hybrid),
        "heldout": measure(everyday_heldout.CLAIMS, heldout, args.show, semantic=hybrid),
        "heldout2": measure(everyday_heldout2.CLAIMS, _held_out(everyday_heldout2), args.show,
                            everyday_heldout2.FOLLOW_UPS, semantic=hybrid),
        "heldout3": measure(everyday_store.CLAIMS, _held_out(everyday_heldout3), args.show,
                            everyday_heldout3.FOLLOW_UPS, semantic=hybrid),
    }, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
