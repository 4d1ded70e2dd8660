"""``json.loads`` and ``json.dumps(value, ensure_ascii=False)`` through CPython's C scanner
and string encoder (``_json``) alone, without importing the ``json`` package.

The package's import compiles its regular expressions and builds its default encoder and
decoder: ~5 M instructions, paid by every Claude Code hook that ran in its own process to
read its input and print its answer (and a pin's content quoted in the context), where
the C functions underneath do the work. The results are ``json``'s own, byte for byte:
the same scanner with ``json.JSONDecoder``'s defaults, the same string encoder with
``json.dumps``' separators. Anything else (input ``json`` would refuse, a float, a key
that is not a string, another interpreter) is handed to ``json`` itself, which then
answers or raises exactly as it would have.

Pure: no I/O.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

_quote: Callable[[str], str] | None
_scan: Any = None
try:
    from _json import encode_basestring as _quote
    from _json import make_scanner
except ImportError:  # not CPython: the package does it all
    _quote = None
    make_scanner = None  # type: ignore[assignment,misc]

#: parts the walk writes before it hands a value to ``json`` after all: past this the
#: package's import (~2 ms) costs less than the rest of the walk (~0.15 us a part)
WALK_PARTS = 16384
_SPACE = " \t\n\r"  # JSON's whitespace (``json.decoder.WHITESPACE``)
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Defaults:
    """What the C scanner reads from a decoder: ``json.JSONDecoder()``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


if make_scanner is not None:
    _scan = make_scanner(_Defaults)  # type: ignore[arg-type]


def loads(data: str | bytes) -> Any:
    """``json.loads(data)``: the same value, or the same exception."""
    text = _utf8(data) if isinstance(data, bytes) else data
    if _scan is not None and text is not None and not text.startswith("\ufeff"):
        start = len(text) - len(text.lstrip(_SPACE))
        try:
            value, end = _scan(text, start)
        except (StopIteration, ValueError, RecursionError, SystemError):
            pass  # (json raises it, with its own words)
        else:
            if not text[end:].strip(_SPACE):  # (else "Extra data")
                return value
    import json

    return json.loads(data)


def _utf8(data: bytes) -> str | None:
    """``data`` as ``json.loads`` decodes it when ``json.detect_encoding`` finds UTF-8
    without a byte-order mark; ``None`` for anything else (``json`` decodes that)."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:4]:
        return None
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


def dumps(value: object, *, sort_keys: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)``. In a process that
    has imported ``json`` already (the CLI, a helper, the MCP server) that is what runs:
    its C encoder writes the whole value in one call, about three times faster than the
    walk below, which calls itself in Python for every value inside (a plan's log line).
    So is a large value in a process without it (``waymarks --json pins`` of 24,814 pins:
    the walk took 0.30 s of CPU, the package's import and its encoder 0.15 s): the walk
    gives up past :data:`WALK_PARTS` parts and ``json`` is imported for it."""
    loaded = sys.modules.get("json")
    if loaded is not None:
        return str(loaded.dumps(value, ensure_ascii=False, sort_keys=sort_keys))
    if _quote is not None:
        parts: list[str] = []
        if _encoded(value, parts, 0, sort_keys):
            return "".join(parts)
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)


def _encoded(value: object, parts: list[str], depth: int, sort_keys: bool) -> bool:
    """Append ``value``'s JSON to ``parts``; False (``parts`` then unusable) for what this
    encoder leaves to ``json``: floats, keys other than strings, deep or odd values, and
    what follows the first :data:`WALK_PARTS` parts."""
    if len(parts) > WALK_PARTS:
        return False
    if isinstance(value, str):
        parts.append(_quote(value))  # type: ignore[misc]
    elif value is None or isinstance(value, bool):
        parts.append("null" if value is None else "true" if value else "false")
    elif type(value) is int:
        parts.append(int.__repr__(value))
    elif depth > 64:
        return False
    elif isinstance(value, dict):
        parts.append("{")
        items = value.items()
        if sort_keys and not all(isinstance(key, str) for key in value):
            return False
        for n, (key, item) in enumerate(sorted(items) if sort_keys else items):
            if not isinstance(key, str):
                return False
            parts.append(", " if n else "")
            parts.append(_quote(key))  # type: ignore[misc]
            parts.append(": ")
            if not _encoded(item, parts, depth + 1, sort_keys):
                return False
        parts.append("}")
    elif isinstance(value, list | tuple):
        parts.append("[")
        for n, item in enumerate(value):
            parts.append(", " if n else "")
            if not _encoded(item, parts, depth + 1, sort_keys):
                return False
        parts.append("]")
    else:
        return False
    return True
