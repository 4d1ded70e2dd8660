"""Natural-language feedback in a Claude Code prompt (EVOLUTION items 34/35 for Claude Code).

A whole user prompt of the form ``memory <24-hex> is incorrect.`` (or useful, unhelpful,
accurate; ``记忆 <id> 错误。`` ...) is the person's verdict on a learned claim, parsed by the
same parser Pi uses (:func:`waymarks.core.evolution.feedback.parse_feedback`, with its
exclusions: questions, quotes, several statements, vague words). It is applied on the
``UserPromptSubmit`` hook, before the plan, so ``incorrect`` already keeps the claim out of
this very turn's injection.

What must stay true:
- the receipt key is the prompt's entry in the session ledger (``claude:<session>:<entry>``):
  a hook done twice (a stalled helper and the hook's own process: the same entry) gives
  one receipt, a later identical prompt (a new entry) is a new one;
- an unknown ID or a refused verdict is a receipt that says so, never an exception: the
  rest of the hook (recording, the plan) always runs;
- the receipt names the claim ID, the verdict, the code and the event (for ``undo``),
  never the claim's content;
- a prompt that is not feedback costs one parse: nothing is opened.

At ``Stop`` (:func:`waymarks.service.evolution_edits.stop_feedback`, called by the
transcript capture), the turn's prompt
is read from Claude Code's own transcript too, so feedback is applied even when the
``UserPromptSubmit`` hook did not run (not installed, timed out, failed):
- only the ended turn's last user message (this turn's prompt) is considered: earlier
  turns had their own ``Stop``, and one message costs at most one ledger read; a turn
  whose prompt is no statement of the person's (a slash command, bash mode) has none
  (the transcript's last statement was an earlier turn's verdict, applied again under
  a new receipt: after an ``undo``, or over a later verdict);
- its receipt key is the one ``UserPromptSubmit`` used when that hook recorded the
  prompt (the session ledger's last user entry with the same text), so the verdict is
  applied once whichever path runs first, and never again after an ``undo``; a prompt
  the hook never recorded is keyed by its transcript entry
  (``claude:<session>:transcript:<uuid>``);
- nothing is printed (the turn is over); counts only, never content.
"""

from __future__ import annotations

from pathlib import Path


def prompt_feedback(home: Path, session_id: str, entry_id: str, prompt: str,
                    busy_timeout_ms: int | None = None) -> str | None:
    """Apply the feedback ``prompt`` gives, if it is feedback; the receipt to show (``None``
    when the prompt is not feedback). ``busy_timeout_ms``: the hook's bound on waiting for
    the learned memory (its database and its ledger's lock); past it the receipt says the
    feedback was not recorded, the log says why, and the prompt goes on to its plan."""
    from waymarks.core.evolution.feedback import parse_feedback

    parsed = parse_feedback(prompt)
    if parsed is None:
        return None
    from waymarks.service.learning import has_ledger

    if not has_ledger(home):  # (a directory or a FIFO in its place is a damaged ledger,
        # named below: it was "nothing has been learned yet")
        return (f"Waymarks: feedback on learned claim {parsed.claim_id} was not recorded "
                "(not_found): nothing has been learned yet.")
    import sqlite3

    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution_edits import natural_feedback
    from waymarks.service.outcomes import ServiceError

    try:
        with Evolution(home, busy_timeout_ms=busy_timeout_ms) as evo:
            outcome = natural_feedback(evo, prompt, f"claude:{session_id}:{entry_id}")
    except (sqlite3.Error, OSError, ServiceError) as exc:  # busy, disk full, damaged
        from datetime import UTC, datetime

        from waymarks.service.capture_spool import failure_code
        from waymarks.service.logs import log_event

        code = failure_code(exc, home)
        log_event(home, datetime.now(UTC), "claude_code_feedback_failed",
                  kind="UserPromptSubmit", code=code)
        why = "the learned memory is in use by another process; send it again in a " \
            "moment" if code.endswith("_busy") else "send it again once that is fixed"
        return (f"Waymarks: feedback on learned claim {parsed.claim_id} was not recorded "
                f"({code}): {why}.")
    if outcome is None:  # parsed above; the service parses the same text the same way
        return None
    if not outcome.ok:
        return (f"Waymarks: feedback on learned claim {parsed.claim_id} was not recorded "
                f"({outcome.code}): {outcome.message}")
    if outcome.event is None:  # a receipt already held, or the same verdict again
        return (f"Waymarks: feedback '{parsed.verdict}' on learned claim {parsed.claim_id}: "
                f"{outcome.message}")
    from waymarks.core.text import named_command

    undo = named_command(str(home), "evolution", "undo", str(outcome.event))
    return (f"Waymarks: recorded '{parsed.verdict}' on learned claim {parsed.claim_id} "
            f"(event {outcome.event}; `{undo}` takes it back).")

