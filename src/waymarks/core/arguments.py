"""The ``/context`` argument language of seed 000, shared by the CLI and host slash commands.

Tokenizing rules (the reference implementation's, but for the empty quote below; a host
passes the user's text through unchanged):
- a backslash makes the next character literal, inside quotes too; a trailing lone
  backslash is kept as ``\\``;
- ``"`` or ``'`` opens a quote anywhere in a token and the same character closes it;
  whitespace inside quotes is part of the token; an unclosed quote is an error;
- whitespace outside quotes ends a token; a token is kept when it holds a character or
  a quote (``""`` and ``''`` are the empty value, as in a shell: ``--key ""`` gives
  ``--key`` an empty value, which the command then refuses, where dropping it made the
  next word the value); whitespace alone makes none.

Option rules: ``--`` makes every later token positional; ``--name=value`` or
``--name value``; a ``--name`` followed by nothing or by another ``--option`` is the flag
value ``"true"``; names are case-insensitive; the last occurrence wins; names not allowed
for the command are refused, all of them named in one error.
"""

from __future__ import annotations

import msgspec


class ArgumentError(ValueError):
    """The argument text cannot be parsed; the message says what to fix."""


class ParsedArgs(msgspec.Struct, frozen=True):
    options: dict[str, str] = msgspec.field(default_factory=dict)
    positionals: tuple[str, ...] = ()
    #: every value of a repeated option, in order
    repeated: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)

    def text(self) -> str:
        """Positionals joined with spaces: the content of a pin or claim."""
        return " ".join(self.positionals)


def tokenize(text: str) -> list[str]:
    """Split ``/context`` argument text into tokens."""
    tokens: list[str] = []
    current: list[str] = []
    quoted = False  # a quote was opened in the current token: it is one, even if empty
    quote: str | None = None
    escaped = False
    for char in text.strip():
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif quote is not None:
            if char == quote:
                quote = None
            else:
                current.append(char)
        elif char in "\"'":
            quote, quoted = char, True
        elif char.isspace():
            if current or quoted:
                tokens.append("".join(current))
            current, quoted = [], False
        else:
            current.append(char)
    if escaped:
        current.append("\\")
    if quote is not None:
        raise ArgumentError("Unterminated quote in /context arguments: close the " + quote)
    if current or quoted:
        tokens.append("".join(current))
    return tokens


def parse_options(
    tokens: list[str], allowed: frozenset[str] = frozenset(), flags: frozenset[str] = frozenset()
) -> ParsedArgs:
    """Separate ``--options`` from positionals; ``flags`` never take a value."""
    options: dict[str, str] = {}
    repeated: dict[str, list[str]] = {}
    positionals: list[str] = []
    unknown: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--":
            positionals.extend(tokens[index:])
            break
        if not token.startswith("--") or len(token) == 2:
            positionals.append(token)
            continue
        name, eq, value = token[2:].partition("=")
        name = name.lower()
        if not eq:
            value = "true"
            takes_value = name not in flags
            if takes_value and index < len(tokens) and not tokens[index].startswith("--"):
                value = tokens[index]
                index += 1
        if name not in allowed and name not in flags:
            unknown.append("--" + name)
            continue
        options[name] = value
        repeated.setdefault(name, []).append(value)
    if unknown:
        raise ArgumentError("Unknown option(s): " + ", ".join(unknown))
    return ParsedArgs(options, tuple(positionals), {k: tuple(v) for k, v in repeated.items()})
