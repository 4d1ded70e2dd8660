"""Text the person marked ``incorrect`` is not learned back in its origin as another kind.

``incorrect`` quarantines the claim and every claim of the same text in its origin, and a
reply naming the same text with the same kind is the same ID (already known: nothing is
written). The same text proposed as another kind is a new ID: it was written provisional
and injected again, the person's verdict overturned by the model's choice of a kind; a
compaction summary's bullet (a ``fact``) brought it back the same way."""

from __future__ import annotations

import json
from pathlib import Path

from tests.evolution.test_aging import days_ago, learn
from waymarks.core.model_port import ModelReply
from waymarks.service import evolution_edits as edits
from waymarks.service.evolution import Evolution

TEXT = "Deployments use Kamal"


def _provisional(evo: Evolution) -> list[str]:
    return [c.kind for c in evo.claims(["provisional"]) if c.content == TEXT]


def test_a_claim_marked_incorrect_is_not_relearned_as_another_kind(tmp_path: Path) -> None:
    home, origin = tmp_path / "home", str(tmp_path / "a")
    wrong = learn(home, origin, {"kind": "decision", "content": TEXT},
                  days_ago(14))
    with Evolution(home) as evo:
        assert edits.feedback(evo, wrong, "incorrect").ok
        said = evo.capture(origin, "statement", "Remember: deployments use Kamal now",
                           session="s2", key="k2")
        assert said is not None
        outcome = evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
            {"kind": "fact", "content": TEXT},
            {"kind": "fact", "content": "The registry is ghcr.io"}]}), "f", "m"),
            days_ago(13))
        assert _provisional(evo) == []
        assert outcome.code == "applied" and outcome.written == 1  # the rest of the reply
        assert [c.content for c in evo.claims(["provisional"])] == ["The registry is ghcr.io"]
        summary = evo.capture(origin, "summary", f"## Decisions\n- {TEXT}\n", session="s3",
                              key="c1")
        assert summary is not None and summary.local_claims == 0
        assert _provisional(evo) == []
        # another origin's text is its own: the verdict stays where it was given
        elsewhere = evo.capture(str(tmp_path / "b"), "summary", f"## Decisions\n- {TEXT}\n",
                                session="s4", key="c2")
        assert elsewhere is not None and elsewhere.local_claims == 1
