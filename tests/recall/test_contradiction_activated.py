"""States said with "activated" and "deactivated", written through the service (real
session files, real SQLite). The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Telemetry is enabled.", "Telemetry is activated.", "Telemetry is deactivated."),
    ("The new checkout is disabled.", "The new checkout is deactivated.",
     "The new checkout is activated."),
    ("The new checkout flag is activated.", "The new checkout flag is not deactivated.",
     "The new checkout flag is off."),
])
def test_activated_is_a_state(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"activated" was no state word: "Telemetry is activated." stated no value, and the
    replay rule's shared derived key refused it beside "Telemetry is enabled.", the same
    state."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


def test_activation_of_another_thing_is_another_fact(app: Waymarks) -> None:
    _written(app, "Telemetry is activated.")
    _written(app, "The new checkout is deactivated.")


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("强制推送到 main 是禁止的。", "强制推送到 main 是不允许的。", "强制推送到 main 是允许的。"),
    ("Force pushes to main are forbidden.", "Force pushes to main are prohibited.",
     "Force pushes to main are permitted."),
    ("匿名访问被禁止。", "Anonymous access is forbidden.", "匿名访问是允许的。"),
    ("Self-signup is allowed.", "Self-signup is permitted.", "Self-signup is prohibited."),
    ("Guest checkout is disallowed.", "Guest checkout is not allowed.",
     "Guest checkout is permitted."),
])
def test_allowed_and_forbidden_are_states_in_either_language(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """允许 and 禁止 were no state words (characters of the subject), so "强制推送到 main 是允许
    的。" was written beside "… 是禁止的。"; "permitted", "prohibited" and "disallowed" were
    none either, and "Self-signup is permitted." was refused beside "… is allowed." by the
    replay rule's shared derived key, the same state."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)
