"""Printing a command's result for a person (or a script).

- ``--json``: exactly one JSON document, the result's data;
- a table on a terminal: rendered with rich (colour, unless ``NO_COLOR`` is set), through
  the pager (``$PAGER``, else ``less -FRX``) when it is longer than the screen;
- anything else (a pipe, a file): the result's plain text, one row per line, no colour,
  no pager, so ``waymarks memory | grep`` works.

Stored text reaches rich only as :class:`rich.text.Text` (never markup), and every cell
was escaped by :func:`waymarks.commands.render.cell`.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from waymarks.commands.results import Result, Table

STYLES = {"active": "green", "available": "green", "superseded": "dim",
          "deleted": "dim strike", "invalid": "red", "expired": "yellow"}


def emit(result: Result, as_json: bool) -> None:
    if result.printed:
        return
    if as_json:
        print_json(result.data)
        return
    out = sys.stdout
    terminal = out.isatty()
    text = render_table(result.table) if terminal and result.table is not None \
        else result.text
    if not text:
        return
    if terminal and text.count("\n") + 2 > _terminal_size().lines:
        import click

        os.environ.setdefault("LESS", "-FRX")  # quit at one screen, keep colour, no clear
        click.echo_via_pager(text, color=True)
        return
    out.write(text if text.endswith("\n") else text + "\n")
    out.flush()


def _terminal_size() -> os.terminal_size:
    """Imported only for a terminal: ``shutil`` imports the compressors."""
    import shutil

    return shutil.get_terminal_size()


def print_json(data: dict[str, Any]) -> None:
    """One document on one line, under every line-splitting rule (see ``json_line``)."""
    from waymarks.core.egress import json_line  # (help and --version load no privacy rules)

    sys.stdout.write(json_line(data) + "\n")
    sys.stdout.flush()


def render_table(table: Table) -> str:
    """The table as a terminal shows it (ANSI styles included)."""
    import io

    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    width = _terminal_size().columns
    console = Console(file=io.StringIO(), force_terminal=True, width=width,
                      no_color=bool(os.environ.get("NO_COLOR")), highlight=False,
                      emoji=False, markup=False)
    grid = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                     header_style="bold", expand=False)
    for column in table.columns:
        grid.add_column(column.name, justify=column.justify, no_wrap=not column.wide,
                        overflow="fold" if column.wide else "ellipsis",
                        ratio=1 if column.wide else None)
    for n, row in enumerate(table.rows):
        kind = table.kinds[n] if n < len(table.kinds) else ""
        style = STYLES.get(kind.split("→")[0], "yellow" if kind else "")
        cells = []
        for column, value in zip(table.columns, row, strict=True):
            if column.name == "STATUS":
                cells.append(Text(value, style=style))
            elif column.name == "" and value:
                cells.append(Text(value, style="bold cyan"))
            else:
                cells.append(Text(value, style="dim" if kind in ("superseded", "deleted")
                                  else ""))
        grid.add_row(*cells)
    console.print(grid)
    for line in table.footer:
        console.print(Text(line, style="dim"))
    rendered: str = console.file.getvalue()  # type: ignore[attr-defined]
    return rendered.rstrip("\n")
