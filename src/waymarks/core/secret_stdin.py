"""The credential rules of a password a command reads on its standard input, written in
shapes beyond ``echo VALUE | CMD`` (:mod:`waymarks.core.secret_commands`' ``stdin_login``):
the lines a group of commands writes, ``(echo PW; echo PW) | smbpasswd -a -s USER``
(``{ …; }``, an old password before the new one's two lines for ``passwd``), the
arguments a ``printf`` format is given, ``printf '%s\\n%s\\n' PW PW | passwd USER``, and
``yes PW | passwd USER``: each went out in clear. Part of the rule table of
:mod:`waymarks.core.secret_rules`; a match is several values, a span each
(:func:`fed_values`), every one but a reference (``$PW``) or a mask. And the password an
Expect script types at a prompt, ``expect "password:"; send "PW\\r"`` (``expect -c '…'``,
a script's lines, ``send -- …``, pexpect's ``child.sendline('PW')`` after its
``child.expect('Password:')``): each went out in clear. After a prompt naming a password,
passphrase, PIN or token (:func:`prompted`) the value is judged as a flag's; a ``send``
with no such prompt before it only when it reads as random (``send "yes\\r"``, ``send
"exit\\r"``, ``send "sudo -i\\r"`` stay).

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_commands import PIPED_INTO
from waymarks.core.secret_tokens import PLACEHOLDER_PREFIX, Rule
from waymarks.core.secret_values import is_reference

#: one argument of a command: quoted on its line, or bare to a space or a shell's operator
_ARGUMENT: Final = r"(?:'[^'\n]{0,4096}+'|\"[^\"\n]{0,4096}+\"|[^\s\"'`\\;|&<>(){}]{1,4096}+)"
#: a command of a group that writes a line: ``echo [-n|-e] ARG…``, ``printf FORMAT [ARG…]``
_WRITES: Final = r"(?:echo|printf)(?:[ \t]+" + _ARGUMENT + "){1,16}+[ \t]*"

STDIN_RULES: Final = (
    Rule("stdin_fed", "secret", lazy(
        r"(?<![\w.-])(?:(?P<stdin_group>[({][ \t]*(?:" + _WRITES + r";[ \t]*){0,8}" + _WRITES
        + r";?[ \t]*[)}])"
        # (a format read to its first ``%``, one way: a format of 256 ``%`` tried each as
        # the one took 1.2 s for 100 KB of them)
        r"|(?P<stdin_printf>printf[ \t]+(?:'[^'\n%]{0,256}+%[^'\n]{0,256}+'"
        r"|\"[^\"\n%]{0,256}+%[^\"\n]{0,256}+\")(?:[ \t]+" + _ARGUMENT + r"){1,16}+)"
        r"|(?P<stdin_yes>yes[ \t]+" + _ARGUMENT + "))"
        r"[ \t]*\|[ \t]*(?:" + PIPED_INTO + ")", re.ASCII),
        ("echo", "printf", "yes"), wrapper=True, guard="|"),
    # what Expect sends, Enter pressed after it (``\r`` or ``\n`` ends it), or pexpect's
    # ``sendline`` (Enter implied), a literal string only
    Rule("expect_send", "secret", lazy(
        r"(?<![\w$-])send(?:[ \t]+-[-a-z]{1,6}){0,3}[ \t]+(?:\"(?P<expect_send>(?:[^\"\\\n]"
        r"|\\[^rn\n]){1,4096}?)(?:\\[rn]){1,2}\"|\{(?P<expect_send_b>[^\s{}][^{}\n]{0,4095}?)"
        r"(?:\\[rn]){1,2}\})"
        r"|(?<![\w$-])sendline\([ \t]*b?(?:'(?P<expect_line_q>[^'\\\n]{1,4096})'"
        r"|\"(?P<expect_line_d>[^\"\\\n]{1,4096})\")[ \t]*\)", re.ASCII),
        ("send",), anchored=True, wrapper=True),
)

#: an argument, its quotes aside (the value in group ``v``)
_VALUE: Final = lazy(r"'(?P<q>[^'\n]*)'|\"(?P<d>[^\"\n]*)\"|(?P<v>[^\s\"'`\\;|&<>(){}]+)",
                     re.ASCII)
#: a command of a group, and the arguments after it
_COMMAND: Final = lazy(r"(?:echo|printf|yes)(?=[ \t])", re.ASCII)
#: an echo's flags (``-n``, ``-e``); a printf format holding a conversion (``%s``)
_ECHO_FLAG: Final = lazy(r"-[neE]+", re.ASCII)
_FORMAT: Final = lazy(r"[^%]*%[^%]*(?:%[^%]*)*", re.ASCII | re.DOTALL)


#: a prompt for a secret, what an ``expect`` before a ``send`` waits for (``*assword*``)
_PROMPT: Final = lazy(r"ass(?:word|phrase|wd|code)|\bpin\b|token|secret|credential",
                      re.ASCII | re.IGNORECASE)
#: a value already redacted (its kind may say "secret" or "token", and no prompt does)
_PLACEHOLDER: Final = lazy(re.escape(PLACEHOLDER_PREFIX) + r"[\w-]*\]", re.ASCII)
#: how far before a ``send`` its prompt is looked for
_PROMPT_READ: Final = 256


def prompted(match: re.Match[str]) -> bool:
    """Whether the ``send`` of an ``expect_send`` match answers a prompt for a secret: one
    named between it and the ``send`` before it (256 characters back at most)."""
    text, at = match.string, match.start()
    start = max(0, at - _PROMPT_READ)
    before = text.rfind("send", start, at)
    between = text[start if before == -1 else before + 4:at]
    return _PROMPT.search(_PLACEHOLDER.sub("", between)) is not None


#: a value fed shorter than this is a placeholder (``echo PW``, as docs write it) or an
#: answer (``yes y``), not a password
_FED_MIN: Final = 4


def fed_values(match: re.Match[str]) -> list[tuple[int, int]]:
    """The spans of the values a ``stdin_fed`` match writes to the command's standard
    input: every argument of its ``echo``/``printf``/``yes`` commands but an echo's flags,
    a format holding a conversion (``'%s\\n'``: its arguments are the values), a reference
    or a mask (``$PW``, ``****``, one already redacted) and one under 4 characters."""
    text = match.string
    read = next(name for name in ("stdin_group", "stdin_printf", "stdin_yes")
                if match.group(name) is not None)
    start, end = match.span(read)
    spans = []
    command = _COMMAND.search(text, start, end)
    while command is not None:
        following = _COMMAND.search(text, command.end(), end)
        until = end if following is None else following.start()
        lead: re.Pattern[str] | None = _ECHO_FLAG if command.group() == "echo" else _FORMAT
        for argument in _VALUE.finditer(text, command.end(), until):
            group = argument.lastgroup or "v"
            value = argument.group(group)
            if lead is not None and lead.fullmatch(value):
                continue  # (an echo's flags or a format lead; the values follow them)
            lead = None
            if len(value) >= _FED_MIN and not is_reference(value) \
                    and any(c.isalnum() for c in value):
                spans.append(argument.span(group))
        command = following
    return spans
