"""The frontmatter Waymarks writes, read without a YAML library.

Every plan reads every personal entry's frontmatter (a prompt's hook too), and importing
PyYAML cost a hook without its helper ~12-15 ms of CPU before the first entry was read.
The entries :func:`~waymarks.personal.entry.render_entry` writes (and most a person
writes by hand) have one shape: ``name``, ``description``, an optional
``classification`` and ``metadata:`` with ``type`` (and an optional ``classification``)
on lines indented by two spaces, each value on its line, plain or in single quotes.

What must stay true: :func:`plain_fields` gives exactly what the YAML reading
(``entry._yaml_fields``) gives for the same text, or ``None``, and then the YAML reading
decides. So it answers only for a frontmatter it reads whole: each line one of those
keys (no other key, none twice, no blank or comment line, no tab), each value a plain
scalar that YAML reads as itself (no indicator first, no ``: `` nor `` #`` in it, none
at its end, no space at either end) or a single-quoted one on its line (``''`` is a
quote), of characters YAML reads as printable and as no line break. Anything else (a
double-quoted value, a flow or block collection, an anchor, a key a letter off) goes
to YAML, as before; ``tests/personal/test_plain_frontmatter.py`` compares the two on
generated frontmatters.
"""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy

#: a top-level line: a key of the shape, then nothing (``metadata:``) or one space and a
#: value
_TOP: Final = lazy(r"(name|description|classification|metadata):(?: (.*))?")
_NESTED: Final = lazy(r"  (type|classification): (.*)")
#: a plain scalar YAML reads as these characters: no indicator first, no space at either
#: end, no ``: `` or `` #`` inside, no ``:`` last
_PLAIN: Final = lazy(r"(?![-?:,\[\]{}#&*!|>'\"%@`])(?!.*(?:: | #|:$))\S(?:.*\S)?")
_QUOTED: Final = lazy(r"'((?:[^']|'')*)'")
#: a character YAML does not read as printable, or reads as a line break, past ASCII (its
#: reader refuses the others; ``\x85``, ``\u2028`` and ``\u2029`` break a line; a
#: byte-order mark is left to it). The class of what it refuses, not of what it takes: a
#: regular expression of those few ranges compiles in under a millisecond, the class of the
#: ranges it takes cost ~6 ms, and comparing each character's code point in Python cost
#: ~0.6-2 µs a character (a name and description in Chinese: 50 entries 9-11 ms a plan,
#: PyYAML's C reader reads them in less)
_UNSURE: Final = lazy(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def _sure(head: str) -> bool:
    """Whether every character of ``head`` is a line feed or one YAML reads as printable
    and as no line break (:data:`_UNSURE`, printable ASCII; a tab is left to YAML)."""
    if head.isascii():
        return head.replace("\n", " ").isprintable()
    return _UNSURE.search(head) is None


def plain_fields(head: str) -> dict[str, str] | None:
    """The fields ``entry._yaml_fields`` reads from ``head`` (the text between the
    fences), or ``None`` when it is not of the one shape read here (module docstring)."""
    if not _sure(head):
        return None
    fields: dict[str, str] = {}
    metadata: dict[str, str] | None = None
    under = False  # whether the line before was ``metadata:`` or a line under it
    for line in head.split("\n"):
        nested = _NESTED.fullmatch(line)
        if nested is not None:
            if metadata is None or not under or nested[1] in metadata:
                return None
            value = _value(nested[2])
            if value is None:
                return None
            metadata[nested[1]] = value
            continue
        top = _TOP.fullmatch(line)
        if top is None or top[1] in fields or (metadata is not None and not metadata):
            return None  # (also: a ``metadata:`` with nothing under it)
        if top[1] == "metadata":
            if top[2] is not None or metadata is not None:
                return None
            metadata, fields["metadata"], under = {}, "", True
            continue
        under = False
        value = None if top[2] is None else _value(top[2])
        if value is None:
            return None
        fields[top[1]] = value
    if metadata is None or not metadata:
        return None  # (no entry without its type: YAML says why it is none)
    del fields["metadata"]
    for key, value in metadata.items():
        fields[f"metadata.{key}"] = value
    return fields


def _value(text: str) -> str | None:
    """The string a value on its line is to YAML, or ``None`` when unsure."""
    if _PLAIN.fullmatch(text):
        return text
    quoted = _QUOTED.fullmatch(text)
    return None if quoted is None else quoted[1].replace("''", "'")
