"""Text for people: dates, one-line cells, plain tables, write outcomes.

What must stay true: stored text shown on a terminal cannot act on it. Every cell is one
line with control and format characters escaped (a stored ``ESC[2J`` or a right-to-left
override is shown as ``\\u001b[2J``, ``\\u202e``), so a row is one line in a pipe and a
listing cannot repaint the screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from waymarks.commands.base import EXIT_REJECTED, Column, Result, Table
from waymarks.commands.results import refused as refused  # re-exported
from waymarks.core.codec import utc_text
from waymarks.core.text import common_start, escaped

if TYPE_CHECKING:
    from waymarks.service.outcomes import WriteOutcome



def when(ms: int | None) -> str:
    """``2026-11-30 10:04`` (UTC), or ``-``."""
    return utc_text(ms)


def cell(text: str | None, keep: str = "") -> str:
    """``text`` on one line, with every character that is not printable escaped; those in
    ``keep`` stay (``"\\n\\t"`` for a body shown in full, whose lines are its own)."""
    return "" if text is None else escaped(text, keep)


def unambiguous(ids: Iterable[str], shorten: Callable[[str, int], str]) -> dict[str, str]:
    """Each of ``ids`` as a listing shows it: ``shorten(id, n)``, its short form showing
    at least its first ``n`` characters, ``n`` the fewest no other of ``ids`` starts with
    (a teammate's line may give an item any ID, such as the first 8 characters of one of
    yours: both read the same)."""
    ordered = sorted(set(ids))  # (an ID's closest are its neighbours here)
    shown = {}
    for n, item_id in enumerate(ordered):
        near = ordered[max(0, n - 1):n] + ordered[n + 1:n + 2]
        shown[item_id] = shorten(item_id, 1 + max((common_start(item_id, o) for o in near),
                                                  default=0))
    return shown


def plain(table: Table) -> str:
    """The table as aligned text: a header, then one line per row."""
    widths = [max([len(c.name), *(len(row[i]) for row in table.rows)])
              for i, c in enumerate(table.columns)]
    lines = []
    for row in [tuple(c.name for c in table.columns), *table.rows]:
        parts = []
        for i, (column, value) in enumerate(zip(table.columns, row, strict=True)):
            last = i == len(table.columns) - 1
            if last:
                parts.append(value)
            elif column.justify == "right":
                parts.append(value.rjust(widths[i]))
            else:
                parts.append(value.ljust(widths[i]))
        lines.append("  ".join(parts).rstrip())
    return "\n".join([*lines, *table.footer])


def table_result(data: dict[str, Any], columns: Sequence[Column],
                 rows: Sequence[tuple[str, ...]], *, kinds: list[str] | None = None,
                 footer: Sequence[str] = (), empty: str) -> Result:
    """A listing: a table on a terminal, aligned text elsewhere, ``empty`` when none."""
    if not rows:
        return Result(data, "\n".join([empty, *footer]))
    table = Table(tuple(columns), list(rows), kinds or [], tuple(footer))
    return Result(data, plain(table), table=table)


def write_result(outcome: WriteOutcome, verb: str) -> Result:
    """A write's outcome: committed (with its notes), an existing duplicate, or refused
    (said "Refused (CODE): …" as every refusal is; ``--json``'s outcome is ``rejected``)."""
    from waymarks.service.outcomes import Committed, Duplicate, Rejected

    if isinstance(outcome, Rejected):
        data = {"outcome": "rejected", "id": None, "code": outcome.code,
                "conflicts": list(outcome.conflicts), "notices": [],
                "message": outcome.message}
        return Result(data, f"Refused ({outcome.code}): {outcome.message}", EXIT_REJECTED)
    if isinstance(outcome, Duplicate):
        data = {"outcome": "duplicate", "id": outcome.id, "code": None, "conflicts": [],
                "kind": outcome.kind, "notices": []}
        return Result(data, f"Existing {outcome.kind} {cell(outcome.id)} (nothing appended)")
    assert isinstance(outcome, Committed)
    data = {"outcome": "committed", "id": outcome.id, "code": None, "conflicts": [],
            "kind": outcome.kind, "operation": outcome.operation, "entryId": outcome.entry_id,
            "previousId": outcome.previous_id, "warning": outcome.warning,
            "notices": list(outcome.notices)}
    text = f"{verb} {outcome.kind} {cell(outcome.id)} (entry {cell(outcome.entry_id)})"
    if outcome.previous_id:
        text += f", superseding {cell(outcome.previous_id)}"
    if outcome.warning:
        text += f"\nwarning: {outcome.warning}"
    text += "".join(f"\nnote: {notice}" for notice in outcome.notices)
    return Result(data, text)


