"""The prompts Waymarks itself starts as the person's turn (``remember``'s curation,
``notes promote``): their fixed first lines, and the test for one. Apart from
:mod:`waymarks.core.evolution.cues` (which re-exports them) so that a plan's history can
leave them out without importing the cues' expressions on every prompt's path."""

from __future__ import annotations

from typing import Final

#: the first line of each (:mod:`waymarks.personal.curation` builds them from these):
#: Waymarks' words, never the person's statement
CURATION_MARK: Final = "[waymarks-memory-curation]"
PROMOTION_MARK: Final = "[waymarks-project-lesson-promotion]"
OWN_PROMPT_MARKS: Final = (CURATION_MARK, PROMOTION_MARK)


def is_own_prompt(text: str) -> bool:
    """Whether a user message is a prompt Waymarks started (its fixed first line)."""
    return text.lstrip().startswith(OWN_PROMPT_MARKS)
