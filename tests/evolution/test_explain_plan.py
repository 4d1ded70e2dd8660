"""``evolution explain`` names as selected what a plan includes: the planner's own choice
(a learned claim the person holds as a pin or claim is left out, then the learned budget),
not the ranking's first three. Real ledgers, real SQLite, the CLI in process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.evolution.test_aging_review import _manifest
from tests.evolution.test_lifecycle_review import _apply, _remote_sees_only_normal

PROMPT = "how is the redis cache server set up?"


def test_explain_leaves_out_a_learned_claim_the_person_holds_as_a_pin_as_the_plan_does(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """With the best-ranked learned claim's sentence pinned, the plan left it out ("you
    hold this claim") and took the fourth, while explain still named the first three."""
    _remote_sees_only_normal(home)
    terms = ["redis", "cache", "server", "set", "up"]
    for x in ("port 6380", "a 4 GB maxmemory", "two replicas", "AOF persistence"):
        text = f"The redis cache server set up uses {x}"
        assert _apply(home, tmp_path / "a", f"Remember: {text}", [
            {"kind": "fact", "content": text, "searchTerms": terms}]) == "applied"
    best = cli("evolution", "explain", *PROMPT.split())["selected"][0]
    pin = cli("pin", "--", cli("evolution", "show", best)["content"])

    report = cli("evolution", "explain", *PROMPT.split())
    learned = _manifest(cli, PROMPT)
    included = [i["id"] for i in learned if i["decision"] == "included"]
    assert len(included) == 3 and best not in included
    assert sorted(report["selected"]) == sorted(included), report["selected"]
    verdicts = {row["id"]: row["verdict"] for row in report["scored"]}
    held = next(i["reason"] for i in learned if i["id"] == best)
    assert verdicts[best] == held and held.startswith("you hold this claim"), verdicts
    assert pin["id"][:8] in held
    # no query: the last plan's own recall, with the plan's own choice
    last = cli("evolution", "explain")
    assert sorted(last["selected"]) == sorted(included)
    assert {row["id"]: row["verdict"] for row in last["scored"]}[best] == held
