"""Two claims of no value whose words are opposites of one attribute still contradict
(04b19af6 let a participle stand beside another word of the thing as another fact, and
its list of opposites missed these): written through the service (real session files,
real SQLite), the second is refused."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The Kubernetes cluster is managed.", "The Kubernetes cluster is self-managed."),
    ("The GitLab runner is self-hosted.", "The GitLab runner is hosted."),
    ("The status dashboard is public.", "The status dashboard is restricted."),
    ("The staging database is shared.", "The staging database is dedicated."),
    ("The legacy SDK is maintained.", "The legacy SDK is archived."),
    ("The mobile app repo is abandoned.", "The mobile app repo is maintained."),
])
def test_opposite_words_of_one_attribute_contradict(app: Waymarks, first: str,
                                                    contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
