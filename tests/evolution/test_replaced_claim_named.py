"""An edit of a learned claim a correction replaced: the refusal names the correction.

`waymarks evolution correct OLD …` (or pin, feedback, conflict) of a claim corrected since
said only "OLD is superseded; only a provisional or conflicted claim can be corrected":
the person (or the model, through the learned-memory tool) had to list the claims to
find the correction. The refusal now names the newest claim of the chain of replacements
by its ID, with the same command aimed at it; not its text, which the tool would hand to
the model whatever its level (``evolution show`` shows it in a terminal)."""

from __future__ import annotations

from pathlib import Path

from tests.evolution.test_edits import _claim, _evo, _seed
from waymarks.service import evolution_edits as edits


def test_an_edit_of_a_corrected_claim_names_the_newest_correction(tmp_path: Path) -> None:
    evo = _evo(tmp_path)
    claim, other = _claim(0, 0, 0, None), _claim(0, 0, 2, None)
    _seed(evo, claim, other)
    first = edits.correct(evo, claim.id, "port is 7171")
    newest = edits.correct(evo, first.data["correctedBy"], "port is 7272 (local-only text)")
    assert first.ok and newest.ok
    new_id = newest.data["correctedBy"]
    for old in (claim.id, first.data["correctedBy"]):  # a chain followed to its end
        refusals = {
            f"waymarks evolution correct {new_id} TEXT": edits.correct(evo, old, "port is 1"),
            f"waymarks evolution pin {new_id}": edits.pin(evo, old),
            f"waymarks evolution feedback {new_id} useful": edits.feedback(evo, old, "useful"),
            f"waymarks evolution conflict {new_id} {other.id}": edits.conflict(
                evo, old, other.id),
        }
        for command, refused in refusals.items():
            assert refused.code == "not_active", refused
            assert f"it was replaced by {new_id}: use `{command}`" in refused.message, (
                refused.message)
            assert "7272" not in refused.message  # its text is not given to a model
    evo.close()


def test_a_forgotten_correction_names_nothing(tmp_path: Path) -> None:
    evo = _evo(tmp_path)
    claim = _claim(0, 0, 0, None)
    _seed(evo, claim)
    fixed = edits.correct(evo, claim.id, "port is 7171")
    assert edits.forget(evo, fixed.data["correctedBy"]).ok
    refused = edits.correct(evo, claim.id, "port is 7373")
    assert refused.code == "not_active" and "replaced by" not in refused.message
    evo.close()
