"""Text for work-observation diagnostics (issue 19, EVOLUTION item 46): the last
capture/nomination decision and processed-versus-changed counts, as lines under
``waymarks evolution learning`` and ``waymarks evolution status``. Codes, counts and claim
IDs only: never a request, an operation, an output or a claim's text."""

from __future__ import annotations

from typing import Any

_WHY = {"captured": "captured as a work source", "no_request": "no work request",
        "no_observation": "no linked tool result from an allowed tool",
        "no_work": "only inspection, no work operation",
        "no_target": "no related project state to update (no model call)",
        "duplicate": "already captured", "learning_off": "learning is off",
        "local_only": "not kept: unmarked text is local-only (defaultClassification)",
        "untrusted": "not kept: the project is not trusted, and its tool output is the "
                     "repository's text (`waymarks trust DIR`; in Pi, Pi's own trust)"}

#: what the request was (:func:`waymarks.core.evolution.cues.intent`)
_INTENT = {"explicit": "an explicit statement to learn (a cue: remember, prefer…)",
           "natural": "a natural statement to learn (a declaration: we use…, our …)",
           "none": "no statement to learn (an ordinary request)",
           "vague": "no statement to learn (too short or a continuation)",
           "quoted": "no statement to learn (quoted or pasted material)",
           "recall_question": "no statement to learn (a recall question)",
           "question": "no statement to learn (a question)",
           "one_off": "no statement to learn (a one-off instruction)",
           "own_prompt": "no statement to learn (a prompt Waymarks started)"}


def learning_lines(data: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    last = data.get("lastCapture")
    if isinstance(last, dict):
        scan = last.get("scan") or {}
        decision = str(last.get("decision"))
        ignored = ", ".join(f"{k} {v}" for k, v in sorted((scan.get("ignored") or {}).items()))
        said = last.get("statementsCaptured")
        intent = last.get("intent") or scan.get("intent")
        lines.append(f"Last turn ({last.get('host')}, {last.get('at')}): "
                     f"{_WHY.get(decision, decision)}"
                     + (f"; {said} statement(s) captured beside it" if said else ""))
        if isinstance(intent, str):
            lines.append(f"  request: {_INTENT.get(intent, intent)}")
        lines.append(f"  scanned {scan.get('scanned', 0)} messages"
                     f"{' (limit reached)' if scan.get('scanLimited') else ''}, "
                     f"{scan.get('calls', 0)} calls, {scan.get('linked', 0)} linked, "
                     f"{scan.get('retained', 0)} retained, {scan.get('omitted', 0)} omitted"
                     f"{f', ignored: {ignored}' if ignored else ''}; completion "
                     f"{scan.get('completion', 'none')}"
                     + (" (unfinished: the last reply asked for tools)"
                        if scan.get("unfinished") else ""))
        for target in last.get("targets") or []:
            lines.append(f"  target {target.get('id')} score {target.get('score')} "
                         f"({', '.join(target.get('reasons') or [])})")
    if isinstance(data.get("outcomes"), dict):
        lines.append(outcome_line(data["outcomes"]))
    return lines


def outcome_line(counts: dict[str, Any]) -> str:
    if counts.get("unavailable"):
        return "Processed and changed sources: not counted now (the database is busy)"
    untrusted = counts.get("untrusted") or 0
    return (f"Processed {counts.get('processed', 0)} sources: {counts.get('changed', 0)} "
            f"changed learned memory, {counts.get('unchanged', 0)} changed nothing "
            "(processed is not learned)" + (
                f"; {untrusted} of them retired unsent, their project not trusted"
                if untrusted else ""))
