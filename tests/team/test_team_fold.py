"""The pure half: the hash chain names the broken line, and the fold is DS4's replay
whatever order entries arrive in, incrementally or not."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from waymarks.core.replay import replay
from waymarks.core.team import (
    TeamEntry,
    TeamFold,
    TeamFormatError,
    genesis,
    make_line,
    open_conflicts,
    record_of,
    verify_line,
)


def chain(contributor: str, specs: list[dict], start_at: int = 1000) -> list[bytes]:
    lines, prev = [], genesis(contributor)
    for seq, spec in enumerate(specs, start=1):
        line, prev = make_line(contributor=contributor, seq=seq, prev=prev,
                               entry_id=f"{contributor}-{seq}", at=spec.pop("at", start_at + seq),
                               author=contributor.title(), **spec)
        lines.append(line)
    return lines


def entries(contributor: str, lines: list[bytes]) -> list[TeamEntry]:
    out, prev = [], genesis(contributor)
    for seq, line in enumerate(lines, start=1):
        entry = verify_line(line.rstrip(b"\n"), contributor, seq, prev)
        out.append(entry)
        prev = entry.hash
    return out


def claim(item_id: str, key: str, text: str, at: int) -> dict:
    return {"op": "add", "kind": "memory", "at": at,
            "item": {"id": item_id, "text": text, "key": key}}


def test_every_kind_of_break_is_named_by_line_and_rule() -> None:
    lines = chain("ann-00000001", [
        {"op": "add", "kind": "pin", "item": {"id": "p1", "text": "Run the checks"}},
        {"op": "add", "kind": "pin", "item": {"id": "p2", "text": "Use tabs"}}])
    first = lines[0].rstrip(b"\n")
    second = lines[1].rstrip(b"\n")
    edited = first.replace(b"Run the checks", b"Skip the checks")
    with pytest.raises(TeamFormatError, match="hash does not match"):
        verify_line(edited, "ann-00000001", 1, genesis("ann-00000001"))
    with pytest.raises(TeamFormatError, match="sequence 2 where 1"):
        verify_line(second, "ann-00000001", 1, genesis("ann-00000001"))
    with pytest.raises(TeamFormatError, match="another contributor"):
        verify_line(first, "bob-00000002", 1, genesis("bob-00000002"))
    with pytest.raises(TeamFormatError, match="does not follow"):
        verify_line(second, "ann-00000001", 2, genesis("ann-00000001"))
    with pytest.raises(TeamFormatError, match="not a waymarks-team-v1 entry"):
        verify_line(b"{oops", "ann-00000001", 1, genesis("ann-00000001"))
    # a rewrite with a recomputed chain verifies on its own: anchors catch it (service)
    body = json.loads(first)
    assert verify_line(first, "ann-00000001", 1, genesis("ann-00000001")).hash == body["hash"]


def test_the_fold_is_the_ds4_replay_in_any_arrival_order() -> None:
    ann = entries("ann-00000001", chain("ann-00000001", [
        claim("a1", "deploy", "Deploys go to staging first", 1000),
        {"op": "add", "kind": "pin", "at": 1003, "item": {"id": "a2", "text": "Run the checks"}},
    ]))
    bob = entries("bob-00000002", chain("bob-00000002", [
        claim("b1", "deploy", "Deploys go to production", 1001),
        {"op": "status", "kind": "pin", "at": 1004, "target_id": "a2", "status": "deleted",
         "reason": "unshared"},
    ]))
    cid = entries("cid-00000003", chain("cid-00000003", [
        {"op": "supersede", "kind": "memory", "at": 1002, "previous_id": "a1",
         "item": {"id": "c1", "text": "Deploys go to staging, then production",
                  "key": "deploy"}}]))
    every = ann + bob + cid
    expected = replay(record_of(e) for e in every).items
    assert expected["b1"].status == "invalid" and expected["b1"].conflicts_with == ("a1",)
    assert expected["a1"].status == "superseded" and expected["a2"].status == "deleted"
    for order in itertools.permutations([ann, bob, cid]):
        fold = TeamFold()
        for batch in order:  # pulls in this order: older entries rewind the fold
            fold.add(batch)
        assert fold.view.items == expected
        assert {k: e.contributor for k, e in fold.entries.items()} == {
            "a1": "ann-00000001", "a2": "ann-00000001", "b1": "bob-00000002",
            "c1": "cid-00000003"}
    # the conflict is settled (a1 superseded), so none is open
    assert open_conflicts(TeamFold.of(every)) == []
    unsettled = TeamFold.of(ann + bob)
    [conflict] = open_conflicts(unsettled)
    assert conflict.loser.id == "b1" and [w.id for w in conflict.winners] == ["a1"]


def test_incremental_adds_equal_a_full_fold_on_random_histories() -> None:
    rng = random.Random(22)
    for _round in range(20):
        specs = {c: [] for c in ("ann-00000001", "bob-00000002", "cid-00000003")}
        for n in range(30):
            contributor = rng.choice(list(specs))
            key = f"k{rng.randrange(4)}"
            specs[contributor].append(claim(f"{contributor[:3]}{n}", key,
                                            f"{key} is value {rng.randrange(3)}", 1000 + n))
        made = {c: entries(c, chain(c, s)) for c, s in specs.items()}
        full = TeamFold.of(e for es in made.values() for e in es)
        expected = replay(record_of(e) for es in made.values() for e in es).items
        assert full.view.items == expected
        for shuffled in (False, True):
            fold = TeamFold()
            pending = sorted((e for es in made.values() for e in es), key=lambda e: e.at)
            if shuffled:  # pulls that bring older work late
                rng.shuffle(pending)
            while pending:
                cut = rng.randrange(1, 6)
                step, pending = pending[:cut], pending[cut:]
                fold.add(step)
            assert fold.view.items == expected
            assert fold.rewound > 0 if shuffled else fold.rewound == 0


def _claim_without_key(item_id: str, text: str, at: int) -> dict:
    return {"op": "add", "kind": "memory", "at": at, "item": {"id": item_id, "text": text}}


def test_held_back_is_kept_per_fold_state_and_follows_new_entries() -> None:
    """``held_back`` runs a write's contradiction check per active claim on every plan:
    kept while the fold stays the same (a warm helper's, between pulls), asked again once
    entries arrive, including ones that sort earlier (a rewind)."""
    from waymarks.core.team import held_back

    ann = entries("ann", chain("ann", [_claim_without_key(
        "a1", "The api service runs 3 replicas.", 2000)]))
    bob = entries("bob", chain("bob", [_claim_without_key(
        "b1", "The api service runs 5 replicas.", 3000)]))
    fold = TeamFold()
    fold.add(ann)
    assert held_back(fold) == [] and held_back(fold) == []
    fold.add(bob)
    [conflict] = held_back(fold)
    assert conflict.loser.id == "b1" and [w.id for w in conflict.winners] == ["a1"]
    assert held_back(fold) == [conflict]  # the same answer, kept
    carol = entries("carol", chain("carol", [_claim_without_key(
        "c1", "The api service runs 7 replicas.", 1000)]))  # sorts first: a rewind
    fold.add(carol)
    assert sorted(c.loser.id for c in held_back(fold)) == ["a1", "b1"]
