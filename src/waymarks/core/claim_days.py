"""A state on one day of the week beside the opposite state on another day is two facts.

"Deploys on Fridays are not allowed." and "Deploys on Mondays are allowed." both state a
state of deploys (off, on) and a day of the week: :func:`waymarks.core.contradiction.contradicts`
compared the states apart from the days and found them opposite, so the second was refused.
Each state holds on its own days: when both claims name days, none in common, and their
states are opposite, they do not contradict. The same state on other days ("allowed on
Fridays" / "allowed on Mondays") may be a correction and still contradicts, as do opposite
states on one day. Pure."""

from __future__ import annotations

from typing import Final

_DAY: Final = "k:weekday:"
_ON: Final = "s:on"
_OFF: Final = "s:off"


def on_other_days(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Whether two claims' values (a signature's: a day denied beside the state "off" is
    the day it is off, "not allowed on Fridays") are opposite states on days of the week
    none of which they share (see the module)."""
    days = [frozenset(v for v in side if v.startswith(_DAY)) for side in (mine, theirs)]
    if not all(days) or not days[0].isdisjoint(days[1]):
        return False
    states = [frozenset(v for v in side if v in (_ON, _OFF)) for side in (mine, theirs)]
    return len(states[0]) == 1 and len(states[1]) == 1 and states[0] != states[1]
