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


def test_a_warm_process_brings_its_checks_up_to_date_from_the_folds_changes(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """One fold, grown in place by pull after pull (later entries, older ones that
    rewind what follows them, unshares and supersedes among them), checked after each:
    held back and the subjects as a check of every claim of that fold finds them, each
    claim checked again only when a change may bear on it, and the kept files, written
    after each pull, read as the answer by a fresh process."""
    from waymarks.service import team_held_live

    monkeypatch.setattr(team_held_live, "SNAPSHOT_EVERY", 4)  # (a rewind goes back to one)
    original = core_team.claim_hits
    checked: list[str] = []
    monkeypatch.setattr(core_team, "claim_hits",
                        lambda fold, state: checked.append(state.id) or original(fold, state))
    checks = claims = 0
    for seed in range(1, 6):
        pick = random.Random(seed)
        entries = _entries(120, seed)
        first = [e for e in entries if pick.random() < 0.5]
        fold = TeamFold.of(first)
        team_held.team_checks(app, fold)
        folded = list(first)
        for step in range(8):
            rest = [e for e in entries if e not in folded]
            pulled = pick.sample(rest, min(len(rest), pick.randint(1, 6)))
            if step % 3 == 2:  # an unshare of a claim folded before
                pulled.append(_unshare(pick.choice(folded), 10_000 + step))
            folded += pulled
            fold.add(pulled)
            checked.clear()
            found = team_held.team_checks(app, fold)
            rechecked = len(checked)
            whole = TeamFold.of(folded)
            assert _held(found.held) == _held(held_back(whole)), (seed, step)
            active = [s for s in whole.states() if s.kind == "memory" and s.status == "active"]
            assert found.subjects == team_held._signed(whole, None)[0], (seed, step)
            assert rechecked < len(active), (seed, step, rechecked)
            checks += rechecked
            claims += len(active)
        team.forget_process_state()
        checked.clear()
        fresh = team_held.team_checks(app, TeamFold.of(folded))
        assert checked == [] and _held(fresh.held) == _held(found.held)  # the kept answer
    assert checks * 3 < claims, (checks, claims)


def _unshare(entry: TeamEntry, at: int) -> TeamEntry:
    """A status entry (an unshare) of ``entry``'s item by a third contributor."""
    from waymarks.core.team import make_line

    line, _head = make_line(contributor="cy-00000003", seq=1, prev="0" * 64,
                            entry_id=f"u-{at}", at=at, author="Cy", op="status",
                            kind=entry.kind, target_id=entry.item_id, status="expired",
                            reason="wrong")
    return parse_line(line)


def test_a_warm_pull_works_on_what_it_changed_not_on_every_claim(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """300 claims checked, then pulls of one claim each in the same process: each claim
    was asked again whether the new one may be its negation (its kept words, 300 a pull,
    with a fingerprint each, and both kept files read back: 1.2 s CPU at 20k claims). Past
    the first pull only the new claim's words are looked at."""
    from waymarks.service import team_held_live

    writer = Writer(Path("/nowhere"), "ann-00000001", "Ann")
    entries = [parse_line(writer.line(f"Service {n} listens on port {1000 + n}.", "memory"))
               for n in range(300)]
    fold = TeamFold.of(entries)
    team_held.team_checks(app, fold)
    looked: list[str] = []
    for module in (team_held, team_held_live):
        original = module.kept_words
        monkeypatch.setattr(module, "kept_words", lambda norm, original=original: (
            looked.append(norm), original(norm))[1])
    for n in range(4):
        entry = parse_line(writer.line(f"Service {n} listens on port {5000 + n}.", "memory"))
        entries.append(entry)
        fold.add([entry])
        looked.clear()
        found = team_held.team_checks(app, fold)
        assert _held(found.held)[-1] == (entry.item_id, (entries[n].item_id,))
        assert n == 0 or len(looked) <= 2, (n, len(looked))
    assert _held(found.held) == _held(held_back(TeamFold.of(entries)))
