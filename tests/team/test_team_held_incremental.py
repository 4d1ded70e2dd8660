"""The claims a team ledger holds back are checked again only where the entries changed
(service.team_held): the first plan after a pull checked every active team claim against
every other (2-4 s at 20k of them) though a pull adds a few. The answer must be the one a
check of every claim gives, whatever was added, taken out or folded in before."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.team.test_team_source import Writer
from waymarks.core import team as core_team
from waymarks.core.team import TeamEntry, TeamFold, held_back, parse_line
from waymarks.service import team, team_held
from waymarks.service.app import Waymarks
from waymarks.service.team_anchors import anchors_path

TEXTS = ["The API listens on port 8080.", "The API listens on port 9090.",
         "The API does not listen on port 8080.", "The staging database port is 5432.",
         "The staging database port is 6543.", "Debug logging is enabled.",
         "Debug logging is disabled.", "The cache ttl is 60 seconds.",
         "The cache ttl is 90 seconds.", "The worker drains queue q1.",
         "The worker drains queue q2.", "Search deploys every Tuesday.",
         "Search deploys every Friday.", "The status page is public.",
         "The status page is private.", "The API also listens on port 7070."]


def _entries(count: int, seed: int) -> list[TeamEntry]:
    """``count`` claims from two contributors, many contradicting, some keyed, a third
    each about a service of its own."""
    pick = random.Random(seed)
    writers = [Writer(Path("/nowhere"), "ann-00000001", "Ann"),
               Writer(Path("/nowhere"), "bob-00000002", "Bob")]
    found = []
    for n in range(count):
        writer = pick.choice(writers)
        text = pick.choice(TEXTS) if n % 3 else f"Service {n} listens on port {n + 1000}."
        key = pick.choice([None, None, "api-port", "cache-ttl"])
        found.append(parse_line(writer.line(text if n % 7 else f"{text[:-1]} ({n}).",
                                            "memory", key)))
    return found


@pytest.fixture
def app(make_app: Callable[..., Waymarks], project: Path) -> Waymarks:
    team.forget_process_state()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    made = make_app()
    made.trust(str(project))
    anchors_path(made).parent.mkdir(parents=True, exist_ok=True)  # (as a refresh makes it)
    return made


def _held(found: list[core_team.Conflict]) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.loser.id, tuple(w.id for w in c.winners)) for c in found]


def test_what_is_held_back_is_what_checking_every_claim_finds(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """Folds of other entries one after another (a pull, an exclusion, older entries
    folded in: every claim's replay position moves), each checked from the one before:
    held back as a check of every claim of that fold holds back."""
    held_any, reused = False, False
    original = core_team.claim_hits
    checked: list[str] = []
    monkeypatch.setattr(core_team, "claim_hits",
                        lambda fold, state: checked.append(state.id) or original(fold, state))
    for seed in range(1, 9):
        entries = _entries(60, seed)
        pick = random.Random(seed)
        for step in range(10):
            chosen = [e for e in entries if pick.random() < (0.8 if step % 2 else 0.97)]
            fold = TeamFold.of(chosen)
            checked.clear()
            found = _held(team_held.team_checks(app, fold).held)
            active = [s for s in fold.states() if s.kind == "memory" and s.status == "active"]
            reused = reused or len(checked) < len(active)
            assert found == _held(held_back(TeamFold.of(chosen))), (seed, step)
            held_any = held_any or bool(found)
    assert held_any and reused


def test_a_pull_checks_only_the_claims_it_may_bear_on(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """30 claims checked once; then one entry more, a claim on the first claim's
    subject: the new claim and the claims it may be found by are checked, not all 31."""
    writer = Writer(Path("/nowhere"), "ann-00000001", "Ann")
    entries = [parse_line(writer.line(f"Service {n} listens on port {1000 + n}.",
                                      "memory", f"service-{n}")) for n in range(30)]
    checked: list[str] = []
    original = core_team.find_contradictions

    def counting(view, candidate, *rest):  # type: ignore[no-untyped-def]
        checked.append(candidate.id)
        return original(view, candidate, *rest)

    monkeypatch.setattr(core_team, "find_contradictions", counting)
    assert team_held.team_checks(app, TeamFold.of(entries)).held == []
    assert len(checked) == 30
    checked.clear()
    entries.append(parse_line(writer.line("Service 0 listens on port 2000.", "memory")))
    fold = TeamFold.of(entries)
    team.forget_process_state()  # (a fresh process: from the kept file)
    found = team_held.team_checks(app, fold)
    assert _held(found.held) == [(entries[-1].item_id, (entries[0].item_id,))]
    assert 1 <= len(checked) <= 3, checked
    assert _held(found.held) == _held(held_back(TeamFold.of(entries)))


@pytest.mark.parametrize("claim", [
    "The CLI supports Windows.", "The CLI does not support Windows.",
    "The bot always retries failed jobs.", "The bot never retries failed jobs.",
    "Never run the linters before commit.", "Run the linters before commit.",
    "Don't squash merge commits.", "The worker can restart itself.",
    "The worker cannot restart itself.", "The importer no longer checks emails.",
    "The release pushes tags.", "CI has two runners.", "Deploys"])
def test_a_negation_keeps_all_words_but_its_verbs(claim: str) -> None:
    """What a pull's check leans on to ask no claim's negations in vain: each text of
    opposite_norms keeps the claim's words but one, each way (kept_words)."""
    from waymarks.core.claim_negations import kept_words, opposite_norms
    from waymarks.core.text import normalize

    norm = normalize(claim)
    mine = kept_words(norm)
    assert mine is not None
    for other in opposite_norms(norm):
        theirs = kept_words(other)
        assert theirs is not None and len(mine - theirs) <= 1 and len(theirs - mine) <= 1
