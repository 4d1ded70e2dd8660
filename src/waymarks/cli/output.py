"""Printing a command's result for a person (or a script).

- ``--json``: exactly one JSON document, the result's data;
- a table on a terminal: rendered with rich (colour, unless ``NO_COLOR`` is set), through
  the pager (``$PAGER``, else ``less -FRX``) when it is longer than the screen;
- anything else (a pipe, a file): the result's plain text, one row per line, no colour,
  no pager, so ``waymarks memory | grep`` works.

Stored text reaches rich only as :class:`rich.text.Text` (never markup), and every cell
was escaped by :func:`waymarks.commands.render.cell`. What a command prints is escaped once
more here (:func:`terminal_safe`: lines and tabs stay), so an ID, entry type or argument
that a message repeats without ``cell`` cannot drive the terminal either.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import TYPE_CHECKING, Any

from waymarks.commands.results import Result, Table
from waymarks.core.lazy_re import lazy
from waymarks.core.text import escaped

if TYPE_CHECKING:
    from rich.console import Console

STYLES = {"active": "green", "available": "green", "superseded": "dim",
          "deleted": "dim strike", "invalid": "red", "expired": "yellow"}


def emit(result: Result, as_json: bool) -> None:
    if result.printed:
        return
    if as_json:
        print_json(result.data)
        return
    if result.exit_code != 0 and not result.report and result.table is None:
        # a refusal or an error, on standard error as a usage error is: what a script
        # reads on standard output (`privacy sanitize`'s payload, a redirect) never
        # holds it, and the person sees it past `> file` (it was printed there)
        _complain(message_safe(result.text))
        return
    out = sys.stdout
    terminal = out.isatty()
    if result.table is not None and terminal:
        text = render_table(result.table)
    else:
        text = terminal_safe(result.text) if result.exit_code == 0 \
            else message_safe(result.text)
    if not text:
        return
    if terminal and text.count("\n") + 2 > _terminal_size().lines:
        import click

        os.environ.setdefault("LESS", "-FRX")  # quit at one screen, keep colour, no clear
        click.echo_via_pager(text, color=True)
        return
    _write(text if text.endswith("\n") else text + "\n")


def _complain(text: str) -> None:
    """A refusal's or an error's text on standard error, when there is one that can be
    written (the exit status says what happened either way)."""
    if not text or sys.stderr is None:
        return
    try:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # closed (`2>&-`), full, or gone
        pass


def _write(text: str, json: bool = False) -> None:
    """``text`` on standard output, flushed. A character its encoding cannot hold
    (``PYTHONIOENCODING=ascii``, a C locale: the marker's dash ended a recall in a
    traceback) is written escaped rather than failing: as JSON's ``\\uXXXX`` in JSON (the
    same decoded value), as Python's ``\\u2014`` in text (the stream's own error handler
    when it has one that writes any character)."""
    out = sys.stdout
    encoding = getattr(out, "encoding", None)
    if encoding and getattr(out, "errors", None) in _FAILING:
        import codecs

        if codecs.lookup(encoding).name != "utf-8":
            codecs.register_error(_JSON_ESCAPES, _json_escapes)
            text = text.encode(encoding, _JSON_ESCAPES if json else "backslashreplace") \
                .decode(encoding)
    raw = getattr(out, "buffer", None)
    if raw is None:  # (a stream of text only: a test's, a host's)
        out.write(text)
        out.flush()
        return
    out.flush()
    # bytes, each write's count checked: the buffered layer returned a short count on a
    # device that filled up part way (tmpfs, a quota) and the text layer dropped it, so
    # `export > backup.jsonl` wrote a cut file, exit 0, without a word; the next write
    # of the rest raises (ENOSPC)
    rest = memoryview(text.encode(out.encoding or "utf-8", out.errors or "strict"))
    while rest:
        count = raw.write(rest)
        if not count:
            raise OSError(errno.EIO, "standard output took no more bytes")
        rest = rest[count:]
    raw.flush()


_JSON_ESCAPES = "waymarks-json-escapes"
#: error handlers that fail on a character the encoding cannot hold (a C locale's stdout
#: is ASCII with ``surrogateescape``: the dash ended a recall in a traceback there too)
_FAILING = frozenset({"strict", "surrogateescape", "surrogatepass"})


def _json_escapes(error: UnicodeError) -> tuple[str, int]:
    """JSON's escapes of the characters an encoding cannot hold (a surrogate pair for one
    past U+FFFF): a codec error handler."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    units = error.object[error.start:error.end].encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{units[at]:02x}{units[at + 1]:02x}"
                   for at in range(0, len(units), 2)), error.end


def terminal_safe(text: str) -> str:
    """``text`` with every character that is not printable escaped, except line breaks and
    tabs (escaping is idempotent: a cell already escaped is unchanged)."""
    return escaped(text, "\n\t")


#: a refusal or an error repeats at most this many characters of any one word (an ID, a
#: path, an argument: a 100 KB argument is not echoed whole)
MESSAGE_WORD = 300
#: (compiled on first use: a command that refuses nothing, a one-shot recall, needs none)
_LONG_WORD = lazy(rf"\S{{{MESSAGE_WORD + 1},}}")


def message_safe(text: str, *, one_line: bool = False) -> str:
    """A refusal's or an error's text as :func:`terminal_safe` gives it, each word of more
    than :data:`MESSAGE_WORD` characters cut to its first ones and ``…``; ``one_line``:
    its line breaks and tabs escaped too (a diagnostic is one line, and the argument or
    path it repeats may hold a line break: ``waymarks pins $'x\\nFORGED'`` printed a
    line of its own, read as the tool's)."""
    safe = escaped(text) if one_line else terminal_safe(text)
    return _LONG_WORD.sub(lambda word: word.group(0)[:MESSAGE_WORD] + "…", safe)


def _terminal_size() -> os.terminal_size:
    """Imported only for a terminal: ``shutil`` imports the compressors."""
    import shutil

    return shutil.get_terminal_size()


def print_json(data: dict[str, Any]) -> None:
    """One document on one line, under every line-splitting rule (see ``json_line``)."""
    from waymarks.core.egress import json_line  # (help and --version load no privacy rules)

    _write(json_line(data) + "\n", json=True)


def render_table(table: Table) -> str:
    """The table as a terminal shows it (ANSI styles included)."""
    import io

    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    table = Table(table.columns, [tuple(terminal_safe(v) for v in row) for row in table.rows],
                  table.kinds, tuple(terminal_safe(line) for line in table.footer))
    width = _terminal_size().columns
    console = Console(file=io.StringIO(), force_terminal=True, width=width,
                      no_color=bool(os.environ.get("NO_COLOR")), highlight=False,
                      emoji=False, markup=False)
    if _too_narrow(table, width):
        _print_stacked(console, table, width)
        return _finish(console, table)
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
    return _finish(console, table)


def _finish(console: Console, table: Table) -> str:
    from rich.text import Text

    for line in table.footer:
        console.print(Text(line, style="dim"))
    rendered: str = console.file.getvalue()  # type: ignore[attr-defined]
    return rendered.rstrip("\n")


#: the least room a table leaves its text column before the rows are stacked instead
MIN_TEXT_CELLS = 30


def _natural(table: Table, index: int) -> int:
    from rich.cells import cell_len

    return max([cell_len(table.columns[index].name),
                *(cell_len(row[index]) for row in table.rows)])


def _too_narrow(table: Table, width: int) -> bool:
    """Whether the columns beside the text leave it less than ``MIN_TEXT_CELLS``: the
    table then squeezed the text column to nothing (at 80 columns a memory list showed
    IDs, dates and keys, and no claim)."""
    fields = [i for i, c in enumerate(table.columns) if not c.wide]
    if len(fields) == len(table.columns) or not table.rows:
        return False
    used = sum(_natural(table, i) for i in fields) + 3 * len(fields)
    return width - used < min(MIN_TEXT_CELLS, width // 2)


def _print_stacked(console: Console, table: Table, width: int) -> None:
    """Each row as a line of the short fields that fit the width, then, indented, the
    ones that did not (``NAME: value``) and its text, wrapped."""
    from rich.padding import Padding
    from rich.text import Text

    widths: dict[int, int] = {}
    shown: list[int] = []
    used = 0
    for i, column in enumerate(table.columns):
        if column.wide:
            continue
        widths[i] = _natural(table, i)
        if not shown or used + 2 + widths[i] <= width:
            shown.append(i)
            used += widths[i] + (2 if len(shown) > 1 else 0)
    below = [i for i, c in enumerate(table.columns) if c.wide or i not in shown]
    console.print(Text("  ".join(table.columns[i].name.ljust(widths[i]) for i in shown)
                       .rstrip(), style="bold"), overflow="fold")
    for n, row in enumerate(table.rows):
        kind = table.kinds[n] if n < len(table.kinds) else ""
        faded = "dim" if kind in ("superseded", "deleted") else ""
        line = Text()
        for position, i in enumerate(shown):
            column, value = table.columns[i], row[i]
            line.append("  " if position else "")
            cell = value.rjust(widths[i]) if column.justify == "right" else value.ljust(
                widths[i])
            style = (STYLES.get(kind.split("→")[0], "yellow" if kind else "")
                     if column.name == "STATUS" else "bold cyan" if column.name == "" and value
                     else faded)
            line.append(cell, style=style)
        line.rstrip()
        console.print(line, overflow="fold")
        for i in below:
            column, value = table.columns[i], row[i]
            if value:
                shown_value = value if column.wide else f"{column.name}: {value}"
                console.print(Padding(Text(shown_value, style=faded), (0, 0, 0, 4),
                                      expand=False), overflow="fold")
