"""Options several commands share, each with its help and an example."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import click

from waymarks.core.lazy_re import lazy

#: ``waymarks.core.model.CLASSIFICATIONS`` (a test keeps them equal): not imported, so
#: that help and completion do not load the model
LEVEL_NAMES = ("normal", "internal", "sensitive", "local-only")
LEVELS = click.Choice(list(LEVEL_NAMES), case_sensitive=False)
STATUSES = ("active", "superseded", "deleted", "invalid", "expired")
#: the statuses an item of each kind can reach (``core.model``'s ``*_STATUS_TARGETS``, a
#: test keeps them equal): ``memory list --status deleted``, a pin's, listed nothing
KIND_STATUSES = {"pin": ("active", "superseded", "deleted"),
                 "memory": ("active", "superseded", "invalid", "expired")}
#: ASCII digits only (``\d`` takes any script's: "١٢d" passed), at most 7 of them (190,000
#: years in weeks; a longer number overflowed the clock with a traceback)
_RELATIVE = lazy(r"([0-9]{1,7})\s*([mhdw])")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class Whole(click.IntRange):
    """A whole number from ``min`` up (to ``max``), refused in words that name what is
    wanted (``what``, e.g. where such numbers are listed): click's own said "'abc' is not a
    valid integer range" (``evolution undo abc``) and "-3 is not in the range
    1<=x<=9223372036854775807"."""

    name = "whole number"

    def __init__(self, min: int, max: int | None = None, what: str = "") -> None:
        super().__init__(min=min, max=max)
        self.what = what

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            bounds = f"from {self.min} to {self.max}" if self.max is not None else (
                f"of {self.min} or more")
            self.fail(f"{str(value)!r} is not a whole number {bounds}"
                      + (f": {self.what}" if self.what else ""), param, ctx)


#: how many rows, tokens ...: a whole number of 1 or more
COUNT = Whole(min=1)


def since(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """``--since``: a moment, ``2026-11-01`` or ``2026-11-01T14:30`` (UTC unless it says
    otherwise), or a time ago, ``30m``, ``12h``, ``7d``, ``2w`` (1 to 7 ASCII digits); as
    epoch milliseconds."""
    if value is None:
        return None
    text = value.strip().lower()
    relative = _RELATIVE.fullmatch(text)
    if relative:
        seconds = int(relative.group(1)) * _UNITS[relative.group(2)]
        return int((time.time() - seconds) * 1000)
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise click.BadParameter("use a date (2026-11-01), a date and time (2026-11-01T14:30)"
                                 " or a time ago of 1 to 7 digits (30m, 12h, 7d, 2w)", ctx,
                                 param) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def classification_option(what: str) -> Callable[[Any], Any]:
    return click.option(
        "--classification", type=LEVELS, metavar="LEVEL",
        help=f"Privacy level of the {what}: normal, internal, sensitive or local-only "
             "(default: the policy's defaultClassification); a provider receives only the "
             "levels its policy allows. E.g. --classification internal")


def limit_option(default: int | None = None) -> Callable[[Any], Any]:
    return click.option(
        "--limit", type=COUNT, metavar="N", default=default,
        help="Show at most N rows: the newest (for lists) or the best (for searches). "
             + (f"Default {default}. " if default else "")
             + "E.g. --limit 20")


def list_filters(kind: str) -> Callable[[Any], Any]:
    """``--scope``, ``--status``, ``--key`` (memory), ``--since``, ``--in-effect``,
    ``--limit`` for a listing of ``kind``."""
    scopes = ["session", "branch", "project"] if kind == "pin" else ["session", "project"]
    statuses = KIND_STATUSES[kind]

    def decorate(function: Any) -> Any:
        options = [
            click.option("--scope", "scopes", type=click.Choice(scopes, case_sensitive=False),
                         multiple=True, metavar="SCOPE",
                         help=f"Only items of this scope ({', '.join(scopes)}); repeat for "
                              "several. E.g. --scope project"),
            click.option("--status", "statuses", multiple=True, metavar="STATUS",
                         type=click.Choice(statuses, case_sensitive=False),
                         help=f"Only items in this status ({', '.join(statuses)}); repeat "
                              "for several. E.g. --status active"),
        ]
        if kind == "memory":
            options.append(click.option(
                "--key", metavar="KEY", callback=listing_key,
                help="Only claims with this key (folded as `memory add --key` stores it: "
                     "'DB Port' is db-port). E.g. --key db-port"))
        options += [
            click.option("--since", callback=since, metavar="WHEN",
                         help="Only items created or changed since then (UTC). E.g. "
                              "--since 7d, --since 2026-11-01"),
            click.option("--in-effect", "in_effect", is_flag=True,
                         help="Only what applies on the active branch now (marked * in the "
                              "list). E.g. --in-effect"),
            limit_option(),
        ]
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


def listing_key(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``memory list --key``: refused when it has no letter or digit, as ``memory add
    --key`` refuses it (``--key ''`` of a script's unset variable listed nothing and said
    "No memory items in this session.", a session that had some)."""
    from waymarks.core.text import normalize_key

    if value is not None and not normalize_key(value):
        raise click.BadParameter("a key needs a letter or a digit (e.g. --key db-port); "
                                 "leave --key out to list every claim", ctx, param)
    return value


def sources_list(value: str | None) -> tuple[str, ...]:
    """``--source ID,ID``: the IDs, without repeats, in order. An empty one is refused
    (``--source ""`` of a script's unset variable recorded a claim with no provenance,
    while ``pin --source ""`` was refused)."""
    if value is None:
        return ()
    ids = [s.strip() for s in value.split(",")]
    if not all(ids):
        raise click.UsageError("--source holds an empty entry ID; give the source entries' "
                               "IDs, e.g. --source 1a2b3c4d,5e6f7a8b (or leave it out)")
    return tuple(dict.fromkeys(ids))
