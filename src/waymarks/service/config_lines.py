"""Where in a configuration file a refused value is written: its file and line, for the
refusal (``config.toml line 3: …``). Read only once a value was refused: the parsed
document keeps no positions."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from waymarks.core.lazy_re import lazy

#: a TOML string on one line: a basic one (escapes allowed) or a literal one
_STRING: Final = lazy(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


def where_provider(provider: str, *files: Path | None) -> str | None:
    """``PATH line N`` of the first of ``files`` with a string on one line that reads as
    ``provider`` (as a value or a quoted key), or ``None`` when none has (a file that
    cannot be read again, a multi-line string)."""
    for path in files:
        number = line_of(provider, path) if path is not None else None
        if number is not None:
            return f"{path} line {number}"
    return None


def line_of(value: str, path: Path) -> int | None:
    """The number of the first line of ``path`` holding a one-line TOML string that reads
    as ``value``, else ``None``."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for number, line in enumerate(text.splitlines(), 1):
        for token in _STRING.findall(line):
            try:
                if tomllib.loads(f"x = {token}")["x"] == value:
                    return number
            except tomllib.TOMLDecodeError:
                continue
    return None
