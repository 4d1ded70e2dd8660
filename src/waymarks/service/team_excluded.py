"""Team writes judged as the teammates who count a file this home excludes will see them.

``team exclude`` withdraws a contributor's items here only: every other clone folds that
file. A write judged against this home's fold alone was reported committed here and did
not apply there: a claim the excluded file contradicts was invalid (or held back) on
those clones, an unshare or supersede of an item the excluded file had already replaced
came after it and lost. Each check folds what is read here with the excluded files
counted (:func:`waymarks.service.team.fold_counting_excluded`, only when this home
excludes someone) and returns the refusal's message, or ``None``; the caller refuses.
"""

from __future__ import annotations

from waymarks.core.rules import ItemState, find_contradictions
from waymarks.core.text import escaped, ids_named, shell_command
from waymarks.service.team import TeamState, fold_counting_excluded


def _excluded(state: TeamState) -> list[str]:
    return sorted(c for c in state.sources if state.anchors.get(c, {}).get("excluded"))


def exclusion_reason(anchor: dict[str, object]) -> str | None:
    """The reason ``team exclude`` was given for the anchor's contributor, as it may be
    shown: redacted, as an item's reason is. One kept before reasons were checked for
    credentials (the release before), or written into the anchors by hand, was printed
    whole by every ``team status`` and in the steps a refusal names."""
    from waymarks.core.secrets import redact

    reason = anchor.get("reason")
    return redact(reason)[0] if isinstance(reason, str) and reason else None


def _exclude_again(state: TeamState, owner: str) -> str:
    """The command that excludes ``owner`` again after the steps, with the reason given
    (a bare one, run as given, dropped it)."""
    reason = exclusion_reason(state.anchors.get(owner, {}))
    return shell_command(["waymarks", "team", "exclude", owner, *([reason] if reason else [])])


def overtaken(state: TeamState, target: ItemState) -> str | None:
    """Why an unshare or supersede of ``target`` would not apply where an excluded file
    counts: that file replaced or withdrew it already (``None``: it did not)."""
    excluded = _excluded(state)
    if not excluded:
        return None
    there = fold_counting_excluded(state).view.get(target.id)
    if there is None or there.status == "active":
        return None
    count = " or ".join(f"`{shell_command(['waymarks', 'team', 'include', c])}`"
                        for c in excluded)
    return (f"team {target.kind} {escaped(target.id[:12])} is {there.status} on every clone "
            f"that counts a file you exclude here ({', '.join(excluded)}): your write "
            f"would not apply there. Count that file again ({count}), then see `waymarks "
            "team status`. Nothing was written")


def contradicted(state: TeamState, candidate: ItemState,
                 ignore: frozenset[str]) -> tuple[str, str] | None:
    """(the message, the item) when a claim of a contributor excluded here contradicts
    ``candidate``: that claim counts on every clone that does not exclude it, where the
    new one would be invalid (or held back)."""
    excluded = _excluded(state)
    if not excluded:
        return None
    fold = fold_counting_excluded(state)
    for hit in find_contradictions(fold.view, candidate, (candidate.partition,), ignore):
        owner = fold.entries[hit].contributor
        if owner in excluded:
            steps = [shell_command(["waymarks", "team", "include", owner]),
                     shell_command(["waymarks", "team", "supersede", hit[:12], "--", "TEXT"]),
                     _exclude_again(state, owner)]
            return (f"team memory {escaped(hit[:12])} of {owner}, whom you exclude here, "
                    "says otherwise: every clone that counts that file plans it, not yours "
                    f"(invalid or held back there). Replace it for everyone: `{steps[0]}`, "
                    f"then `{steps[1]}`, then `{steps[2]}` if you still exclude them"), hit
    return None


def withheld(state: TeamState, ref: str, verb: str) -> str | None:
    """Why ``team VERB REF`` finds no team item when ``ref`` names one of a contributor
    excluded here (``None``: it names none): withdrawn here only, it is planned on every
    clone that counts that file, and "no team item" sent the person who meant to withdraw
    it for everyone looking for something that was there."""
    excluded = _excluded(state)
    if not excluded or not ref:
        return None
    fold = fold_counting_excluded(state)
    owners = {fold.entries[i].contributor: fold.view.items[i]
              for i in ids_named(fold.view.items, ref) if i in fold.entries}
    owner = next((c for c in sorted(owners) if c in excluded), None)
    if owner is None:
        return None
    item = owners[owner]
    if item.status != "active":
        return (f"team {item.kind} {escaped(item.id[:12])} of {escaped(owner)}, whom you "
                f"exclude here, is already {item.status} for everyone. Nothing was written")
    steps = [shell_command(["waymarks", "team", "include", owner]),
             shell_command(["waymarks", "team", verb, ref,
                            *(["--", "TEXT"] if verb == "supersede" else [])]),
             _exclude_again(state, owner)]
    return (f"team {item.kind} {escaped(item.id[:12])} is {escaped(owner)}'s, whom you "
            "exclude here: it is withdrawn here only, and every clone that counts that file "
            f"plans it. To {verb} it for everyone: `{steps[0]}`, then `{steps[1]}`, then "
            f"`{steps[2]}` if you still exclude them. Nothing was written")
