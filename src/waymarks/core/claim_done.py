"""Two things done to one subject (:func:`things_done`): two verbs in the passive, a verb
whose objects add up, a verb done to it beside a value of it, another attribute said beside
its values. Such claims share the replay rule's derived key, or are found by their
signatures, and still say two facts: :func:`waymarks.core.rules.key_apart` keeps them
apart in one partition and :func:`waymarks.core.rules.find_contradictions` across two.
Moved out of :mod:`waymarks.core.rules` (near its size limit) unchanged. Pure."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from waymarks.core.contradiction import Signature
    from waymarks.core.rules import ItemState


def things_done(candidate: ItemState, mine: Signature | None, other: ItemState) -> bool:
    """Whether ``candidate`` (its signature ``mine``) and ``other`` say two things done to
    one subject: two verbs in the passive ("… are signed with cosign." beside "… are
    written to dist.") or one whose objects add up (:func:`other_actions`), or a verb done
    to it beside a value of it ("… is reloaded on SIGHUP." beside "… is at
    /etc/app/config.yaml."), or another attribute said beside its values
    (:func:`said_beside`). Two facts in one partition
    (:func:`~waymarks.core.rules.key_apart`) and across two
    (:func:`~waymarks.core.rules.find_contradictions`)."""
    from waymarks.core.claim_actions import agent_beside_place, other_actions, said_beside
    from waymarks.core.claim_apart import apart_without_values, quality_beside_value
    from waymarks.core.contradiction import signature

    if other_actions(candidate.norm, other.norm) or agent_beside_place(candidate.norm,
                                                                        other.norm):
        return True
    theirs = signature(other.text)
    if mine is None and theirs is None:  # ("… is public." / "… is versioned.")
        return apart_without_values(candidate.norm, other.norm)
    if mine is not None and theirs is not None:
        return False
    # what it is ("… is the default theme.") beside whether it is on ("… is enabled."),
    # what it is like ("… is public.") beside where it is ("… is at status.example.com.")
    said, found = (candidate.norm, theirs) if mine is None else (other.norm, mine)
    valued = other.norm if mine is None else candidate.norm
    return (found is not None and (said_beside(said, found.values - found.denied) or (
        quality_beside_value(said, valued)))) or (
        _action_beside_value(candidate.norm, mine, other.norm, theirs))


def _action_beside_value(mine_norm: str, mine: Signature | None, their_norm: str,
                        theirs: Signature | None) -> bool:
    """One claim states no value and says a thing done to the subject in the passive, or
    not done ("is not protected"), the other states a value of it, denies none and does no
    such thing (:func:`action_beside_value`): two facts."""
    from waymarks.core.claim_actions import action_beside_value
    from waymarks.core.claim_kinds import done_beside_kind

    action, valued, found = ((mine_norm, their_norm, theirs) if mine is None
                             else (their_norm, mine_norm, mine))
    return found is not None and bool(found.values) and not found.denied and (
        action_beside_value(action, valued) or done_beside_kind(action, valued, found.values))
