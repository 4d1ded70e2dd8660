"""Natural-language feedback in a user message (EVOLUTION item 35).

A whole user message of exactly one of these forms is feedback on one learned claim:

- ``memory <24 hex> is useful|unhelpful|accurate|incorrect`` (optional final ``.`` or ``!``);
- ``记忆 <24 hex> 有用|没用|正确|错误`` (optional final ``。``/``！``/``.``).

Everything else is not feedback: quoted text, a question (``?``/``？`` anywhere), more than
one statement, vague words (``wrong``, ``bad``, ``不对``), text around the statement, and
anything an assistant or a tool wrote (callers pass user messages only). Pure; cheap enough
for every turn (one anchored regular expression).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_ENGLISH: Final = re.compile(
    r"memory\s+([0-9a-f]{24})\s+is\s+(useful|unhelpful|accurate|incorrect)\s*[.!]?",
    re.IGNORECASE)
_CHINESE: Final = re.compile(r"记忆\s*([0-9a-f]{24})\s*(有用|没用|正确|错误)\s*[。！.!]?",
                             re.IGNORECASE)
_CHINESE_VERDICTS: Final = {"有用": "useful", "没用": "unhelpful", "正确": "accurate",
                            "错误": "incorrect"}
MAX_MESSAGE_CHARS: Final = 128


@dataclass(frozen=True, slots=True)
class NaturalFeedback:
    claim_id: str
    verdict: str


def parse_feedback(message: str) -> NaturalFeedback | None:
    """The feedback a whole user message gives, or ``None`` when it is not feedback."""
    text = message.strip()
    if not text or len(text) > MAX_MESSAGE_CHARS or "?" in text or "？" in text:
        return None
    match = _ENGLISH.fullmatch(text)
    if match is not None:
        return NaturalFeedback(match.group(1).lower(), match.group(2).lower())
    match = _CHINESE.fullmatch(text)
    if match is not None:
        return NaturalFeedback(match.group(1).lower(), _CHINESE_VERDICTS[match.group(2)])
    return None
