"""The ``recall`` command's work and result, without the command-line library.

Both the command table's ``recall`` (click, :mod:`waymarks.commands.planning`) and the lean
path of ``waymarks recall`` (:mod:`waymarks.cli.lean`, which parses its few options itself
so that a one-shot recall imports neither click nor the command table) call
:func:`recall_result`: one implementation, so the two cannot answer differently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from waymarks.commands.results import Result

if TYPE_CHECKING:
    from waymarks.recall.engine import RecallResult
    from waymarks.service.app import Waymarks


def explain_text(report: Mapping[str, Any]) -> str:
    """An explanation (:func:`waymarks.recall.engine.explain`) for people: the plan's
    features, then one line per scored candidate (``+`` eligible) with its verdict."""
    lines = [f"mode {report['mode']}; focus {' '.join(report['focus']) or '(none)'}"
             + (f"; context {' '.join(report['context'])}" if report["context"] else "")
             + (f"; earlier {' '.join(report['earlier'])}" if report.get("earlier") else ""),
             *_verdict_lines(report)]
    if report.get("learned"):
        lines += ["learned (provisional, from any directory):",
                  *_verdict_lines(report["learned"])]
    return "\n".join(lines)


def _verdict_lines(report: Mapping[str, Any]) -> list[str]:
    return [f"{report['candidates']} candidates, {report['eligible']} eligible, "
            f"selected: {', '.join(report['selected']) or 'none'}",
            *(f"  {s['id'][:8]} {'+' if s['eligible'] else '-'} rel "
              f"{s['relevance']:.3f} cov {s['coverage']:.2f} "
              f"[{' '.join(s['matched'])}] {s['verdict']}" for s in report["scored"])]


def recall_result(app: Waymarks, query: Sequence[str], history: Sequence[str],
                  provider: str | None, explain_: bool) -> Result:
    """The digest (``--json``: selected IDs, digest, rows), or with ``explain_`` the scored
    candidates and the gates' verdicts (never claim text)."""
    from waymarks.recall.engine import explain
    from waymarks.service.learning_ledger import has_ledger

    notes: list[str] = []  # a damaged evolution ledger: recalled without learned memory
    # one request: each learned claim's read of the own claims it bears on refreshed again
    with app.begin():
        result = app.recall(" ".join(query), tuple(history),
                            provider=provider, every_candidate=explain_)
        # a home that never learned anything recalls no learned claim: its modules are
        # not even imported (a one-shot recall's start, tests/test_lean_paths.py)
        learned = (_learned(app, query, history, provider, notes) if has_ledger(app.home)
                   else None)
    if explain_:
        # the learned claims this recall selects are explained too (they were left out:
        # "0 candidates, selected: none" while the same recall answered with one)
        report = explain(result)
        if learned is not None and learned.scored:
            from waymarks.service.evolution_recall import explain_learned

            report["learned"] = explain_learned(learned)
        if notes:
            report["notes"] = notes
        return Result(report, "\n".join([explain_text(report),
                                          *(f"note: {n}" for n in notes)]))
    data: dict[str, object] = {"selected": result.selected, "digest": result.digest,
                               "rows": result.rows}
    if learned is not None and learned.rows:  # provisional, with provenance; after
        data["learned"] = learned.rows           # confirmed memory
    if notes:
        data["notes"] = notes
    text = result.digest
    if learned is not None and learned.digest:
        from waymarks.service.evolution_recall import learned_digest

        text = "\n".join(t for t in (text, learned_digest(learned.digest)) if t)
    return Result(data, "\n".join([text or "Nothing recalled.",
                                   *(f"note: {n}" for n in notes)]))


def _learned(app: Waymarks, query: Sequence[str], history: Sequence[str],
             provider: str | None, notes: list[str]) -> RecallResult:
    """The learned claims the query recalls, for ``provider`` (not one the person holds,
    or says otherwise of)."""
    from waymarks.service.evolution_recall import recall_learned
    from waymarks.service.planning import egress_for
    from waymarks.service.team_here import held_here

    return recall_learned(app.home, " ".join(query), tuple(history),
                          egress=egress_for(app, provider), notes=notes, mine=held_here(app))
