"""A forgotten learned claim is not learned back in its origin with its case, spacing or
closing punctuation changed. Its exact text was suppressed, and nothing else: a model
re-derives "The database port is 6543" as "the database port is 6543." or "...6543!"
as often as verbatim, and each came back provisional and was injected again, the person's
forget undone by a capital or a full stop (reproduced with ``waymarks evolve`` against a
loopback provider). Texts the same under :func:`~waymarks.core.text.normalize` are what
Waymarks calls duplicates everywhere else."""

from __future__ import annotations

import json
from pathlib import Path

from tests.evolution.test_aging import days_ago, learn
from waymarks.core.model_port import ModelReply
from waymarks.service import evolution_edits as edits
from waymarks.service.evolution import Evolution

TEXT = "The database port is 6543"
VARIANTS = ("the database port is 6543.", "The database port is 6543!",
            "THE DATABASE PORT IS 6543 ;")


def test_a_forgotten_claim_reworded_by_case_or_punctuation_is_not_relearned(
        tmp_path: Path) -> None:
    home, origin = tmp_path / "home", str(tmp_path / "a")
    forgotten = learn(home, origin, {"kind": "fact", "content": TEXT}, days_ago(14))
    with Evolution(home) as evo:
        assert edits.forget(evo, forgotten).ok
        said = evo.capture(origin, "statement", "Remember: the db port did not change",
                           session="s2", key="k2")
        assert said is not None
        outcome = evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
            *({"kind": kind, "content": text} for kind, text in zip(
                ("fact", "decision", "preference"), VARIANTS, strict=True)),
            {"kind": "fact", "content": "The cache port is 6380"}]}), "f", "m"),
            days_ago(13))
        assert [c.content for c in evo.claims(["provisional"])] == ["The cache port is 6380"]
        assert (outcome.code, outcome.written) == ("applied", 1)  # the rest of the reply
        summary = evo.capture(origin, "summary", f"## Facts\n- {VARIANTS[0]}\n",
                              session="s3", key="c1")
        assert summary is not None and summary.local_claims == 0
        # another sentence is not a variant, and another origin's text is its own
        other = evo.capture(origin, "summary", "## Facts\n- The database port is 6544\n",
                            session="s4", key="c2")
        elsewhere = evo.capture(str(tmp_path / "b"), "summary", f"## Facts\n- {TEXT}\n",
                                session="s5", key="c3")
        assert other is not None and other.local_claims == 1
        assert elsewhere is not None and elsewhere.local_claims == 1


def test_a_claim_marked_incorrect_reworded_is_not_relearned(tmp_path: Path) -> None:
    home, origin = tmp_path / "home", str(tmp_path / "a")
    wrong = learn(home, origin, {"kind": "fact", "content": TEXT}, days_ago(14))
    with Evolution(home) as evo:
        assert edits.feedback(evo, wrong, "incorrect").ok
        said = evo.capture(origin, "statement", "Remember: the db port did not change",
                           session="s2", key="k2")
        assert said is not None
        outcome = evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
            {"kind": "fact", "content": VARIANTS[0]}]}), "f", "m"), days_ago(13))
        assert outcome.code == "refused_only" and evo.claims(["provisional"]) == []


def _three_learned(tmp_path: Path) -> list[str]:
    """The IDs of three claims learned in ``tmp_path``'s home: a sentence, the same one
    with another case and a full stop (learned later), and another sentence."""
    home, origin = tmp_path / "home", str(tmp_path / "a")
    return [learn(home, origin, {"kind": kind, "content": text}, days_ago(days))
            for kind, text, days in (("fact", "The CI runs on GitHub Actions", 3),
                                     ("decision", "the CI runs on GitHub Actions.", 2),
                                     ("fact", "The CI runs on GitHub Actions twice", 1))]


def test_forgetting_a_claim_forgets_its_duplicates_worded_with_another_case_or_stop(
        tmp_path: Path) -> None:
    """Forgetting "The CI runs on GitHub Actions" left "the CI runs on GitHub Actions."
    (learned before from another reply) provisional, and it went on being injected: the
    forget took only the same text, exactly, along. Another sentence stays."""
    home, ids = tmp_path / "home", _three_learned(tmp_path)
    with Evolution(home) as evo:
        outcome = edits.forget(evo, ids[0])
        assert outcome.ok and outcome.data["variants"] == [ids[1]]
        assert ids[1] in outcome.message
        assert [c.id for c in evo.claims(["provisional"])] == [ids[2]]
        assert {c.id for c in evo.claims(["forgotten"])} == set(ids[:2])
        assert edits.forget(evo, ids[1]).code == "not_active"  # already forgotten


def test_marking_a_claim_incorrect_quarantines_its_duplicates_worded_otherwise(
        tmp_path: Path) -> None:
    """``incorrect`` quarantined the claim and its exact duplicates only: "the CI runs on
    GitHub Actions." stayed provisional and injected after the person said "The CI runs on
    GitHub Actions" was wrong. Undoing the verdict's event brings the claim back."""
    home, ids = tmp_path / "home", _three_learned(tmp_path)
    with Evolution(home) as evo:
        outcome = edits.feedback(evo, ids[0], "incorrect")
        assert outcome.ok and outcome.data["changed"] and ids[1] in outcome.message
        assert [c.id for c in evo.claims(["provisional"])] == [ids[2]]
        assert {c.id for c in evo.claims(["conflicted"])} == set(ids[:2])
