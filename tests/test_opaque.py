"""tests/opaque.py: what a test's "not in" reads masks the random values, never what was said."""

from __future__ import annotations

import uuid

from tests.opaque import MASK, content
from waymarks.tool.revisions import Context, Revisions, SourceRefs


def test_every_random_value_is_masked_and_what_was_said_stays() -> None:
    revision = Revisions().issue("pin:1", "state", Context("s", "/p"), "e1", 0)
    ref = SourceRefs().ref_for("session", 0)
    answer = {"revision": revision, "source": ref, "id": str(uuid.uuid4()),
              "claim": "da2c59b11c29fde7ae29a11b", "sourceId": "s0b2ce89682339d7d927ea98",
              "withheld": ["3a8bd48f"], "path": "/dev/shm/waymarks-tests.k8sQ1P/h",
              "text": "The k8s cluster listens on port 8080 (deadbeef), ok"}
    said = content(answer, "/dev/shm/waymarks-tests.k8sQ1P")
    assert said.count(MASK) == 8, said
    for token in (revision, ref, answer["id"], "da2c59b1", "0b2ce896", "3a8bd48f", "Q1P"):
        assert token not in said
    assert '"text": "The k8s cluster listens on port 8080 (<opaque>), ok"' in said
    assert content("port 8080, 80808080") == "port 8080, <opaque>"
