"""Natural-language feedback (EVOLUTION item 35): the seed's forms in English and Chinese,
and what is not feedback."""

from __future__ import annotations

import pytest

from waymarks.core.evolution.feedback import NaturalFeedback, parse_feedback

ID = "3f2a9c0d1e4b5a6978877665"


@pytest.mark.parametrize(("message", "verdict"), [
    (f"memory {ID} is incorrect.", "incorrect"),
    (f"memory {ID} is useful", "useful"),
    (f"  Memory {ID.upper()} is Unhelpful!  ", "unhelpful"),
    (f"memory {ID} is accurate.", "accurate"),
    (f"记忆 {ID} 有用。", "useful"),
    (f"记忆{ID}没用", "unhelpful"),
    (f"记忆 {ID} 正确！", "accurate"),
    (f"记忆 {ID} 错误。", "incorrect"),
])
def test_feedback_forms(message: str, verdict: str) -> None:
    assert parse_feedback(message) == NaturalFeedback(ID, verdict)


@pytest.mark.parametrize("message", [
    f"memory {ID} is wrong.",                       # vague
    f"memory {ID} is incorrect?",                   # a question
    f"is memory {ID} incorrect?",
    f"\"memory {ID} is incorrect.\"",               # quoted
    f"> memory {ID} is incorrect.",
    f"memory {ID} is incorrect. memory {ID} is useful.",  # more than one statement
    f"I think memory {ID} is incorrect.",           # text around it
    f"memory {ID} is incorrect. Also fix the build",
    f"memory {ID[:-1]} is useful.",                 # not an ID
    f"记忆 {ID} 不对。",                             # vague in Chinese
    f"记忆 {ID} 有用吗？",
    "",
])
def test_not_feedback(message: str) -> None:
    assert parse_feedback(message) is None
