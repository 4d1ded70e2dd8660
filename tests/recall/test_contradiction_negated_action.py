"""A claim and its very negation, neither stating a value ("The CLI supports Windows." /
"The CLI does not support Windows.", "导入器校验邮箱。" / "导入器不校验邮箱。"): no signature
compared them, and both were written, both in effect for the model. Written through the
service (real session files, real SQLite); the pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.claim_negations import opposite_norms
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected

if TYPE_CHECKING:
    from collections.abc import Callable


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The importer does not validate emails.", "The importer validates emails."),
    ("The CLI supports Windows.", "The CLI does not support Windows."),
    ("The worker never retries.", "The worker retries."),
    ("The backup job pushes to S3.", "The backup job doesn't push to S3."),
    ("Workers do not share state.", "Workers share state."),
    ("The admin can delete projects.", "The admin cannot delete projects."),
    ("导入器不校验邮箱。", "导入器校验邮箱。"),
    ("网关缓存响应。", "网关不缓存响应。"),
])
def test_an_action_and_its_negation_contradict(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Always run the linters before commit.", "Never run the linters before commit."),
    ("Run the linters before commit.", "Don't run the linters before commit."),
    ("Never force-push to main.", "Always force-push to main."),
    ("Do not squash merge commits.", "Squash merge commits."),
    ("We always rebase before merging.", "We never rebase before merging."),
    ("The bot never retries failed jobs.", "The bot always retries failed jobs."),
])
def test_an_instruction_and_its_negation_contradict(
        app: Waymarks, first: str, contradicting: str) -> None:
    """An instruction with no subject ("Always run …" / "Never run …") and "always"
    beside "never": the very negation, refused as the action denied is."""
    _written(app, first)
    _refused(app, contradicting)


def test_an_instruction_contradicts_its_negation_across_scopes(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    """A project instruction from one session, its negation from another session."""
    first, second = two_sessions()
    written = first.remember("Always run the linters before commit.", scope="project")
    assert isinstance(written, Committed), written
    refused = second.remember("Never run the linters before commit.", scope="project")
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (written.id,)


@pytest.mark.parametrize(("first", "second"), [
    ("Always run the linters before commit.", "Never run the formatter before commit."),
    ("Never force-push to main.", "Always force-push to your own branch."),
    ("The CLI does not support Windows.", "The CLI supports macOS and Linux."),
    ("The service never retries on 4xx errors.", "The service retries on 5xx errors."),
    ("The API does not use cookies.", "The API uses bearer tokens."),
    ("导入器不校验邮箱。", "导入器校验电话号码。"),
])
def test_another_object_is_another_fact(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


def test_the_lookup_stays_small() -> None:
    """An affirmative claim is negated after each of its first words only: one indexed
    lookup of a bounded number of texts, however long the claim."""
    assert len(opposite_norms(" ".join(["word"] * 500))) <= 64
    assert len(opposite_norms("网关" * 500 + "。")) <= 64
