"""A learned claim saying what the person took out of effect is not planned or recalled.

A learned copy of a claim the person holds is left out ("you hold this claim"); once they
invalidated their claim (it was wrong), expired or superseded it, the learned copy of the
same sentence was planned, as provisional memory, and recalled: the text they had just
said was wrong reached the model in its place. Real ledgers, real SQLite, the CLI in
process."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evolution.test_aging_review import _manifest
from tests.evolution.test_lifecycle_review import _apply

TEXT = "The build cache lives in /var/cache/ci."
PROMPT = "where does the build cache live?"


def _learned_reason(cli: Callable[..., dict]) -> str | None:
    [row] = _manifest(cli, PROMPT)
    return None if row["decision"] == "included" else str(row["reason"])


@pytest.mark.parametrize("retire", ["invalidate", "expire", "supersede"])
def test_a_learned_copy_of_a_claim_taken_out_of_effect_is_left_out(
        cli: Callable[..., dict], home: Path, project: Path, retire: str) -> None:
    cli("trust", str(project))
    mine = str(cli("memory", "add", "--scope", "project", "--", TEXT)["id"])
    assert _apply(home, project, f"Remember: {TEXT}", [
        {"kind": "fact", "content": TEXT, "searchTerms": ["build cache"]}]) == "applied"
    assert str(_learned_reason(cli)).startswith("you hold this claim")
    if retire == "supersede":
        cli("memory", "supersede", mine[:8], "--", "Build artifacts are cached in S3 now.")
    else:
        cli("memory", retire, mine[:8])
    reason = _learned_reason(cli)
    assert reason is not None and mine[:8] in reason  # not planned in its place
    assert "learned" not in cli("recall", PROMPT)  # nor recalled
    report = cli("evolution", "explain", *PROMPT.split())
    assert report["selected"] == []


def test_a_plan_reads_the_claims_about_a_learned_claim_once(
        cli: Callable[..., dict], home: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether theirs contradicts a learned claim and whether one they retired says it were
    two reads of every claim that may be about it (any status, each row verified): with a
    supersede chain on its subject (10k versions: 0.25 s a read), the retired check
    doubled a plan's cost. One read per learned claim's text now serves both."""
    from waymarks.store.reads import ProjectionReads as Reads

    cli("trust", str(project))
    cli("memory", "add", "--scope", "project", "--", "The build cache lives in /srv/old.")
    cli("memory", "supersede", str(cli("memory")["items"][0]["id"])[:8], "--",
        "The build cache lives in /srv/older.")
    assert _apply(home, project, f"Remember: {TEXT}", [
        {"kind": "fact", "content": TEXT, "searchTerms": ["build cache"]}]) == "applied"
    asked: list[str] = []
    about = Reads.memory_about

    def counted(self: Reads, partitions: list[str], subject: object, norm: str,
                *also: object) -> list[str]:
        asked.append(norm)
        return about(self, partitions, subject, norm, *also)  # type: ignore[arg-type]

    monkeypatch.setattr(Reads, "memory_about", counted)
    reason = _learned_reason(cli)
    assert reason is not None and "says otherwise" in reason
    assert asked == [TEXT.lower().rstrip(".")]


@pytest.mark.parametrize(("text", "prompt"), [
    (TEXT, PROMPT),
    ("Rebase feature branches onto main before merging.", "how do we merge feature branches?"),
])
def test_a_learned_copy_of_a_claim_the_person_marked_is_theirs(
        cli: Callable[..., dict], home: Path, project: Path, text: str, prompt: str) -> None:
    """The person's claim marked local-only, and a learned claim of the same sentence:
    compared with its tags, theirs was another text, so the learned copy (provisional,
    normal) was planned for the remote provider, the marked text in clear. It is theirs,
    left out as a copy of one they hold; the second claim has no signature, so it is
    found by its text alone."""
    cli("trust", str(project))
    mine = cli("memory", "add", "--scope", "project", "--",
               f"[ds4:local-only]{text}[/ds4:local-only]")
    assert _apply(home, project, f"Remember: {text}", [
        {"kind": "fact", "content": text, "searchTerms": prompt.split()[1:3]}]) == "applied"
    cli("learn", "on")
    plan = cli("plan", "--provider", "openai", "--", prompt)
    assert text.rstrip(".") not in json.dumps(plan["messages"])
    [row] = [i for i in plan["manifest"]["entries"] if i.get("kind") == "learned"]
    assert row["decision"] == "excluded"
    assert row["reason"] == f"you hold this claim ({mine['id'][:8]})"
