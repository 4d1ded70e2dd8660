"""The credential rule of a secret typed at a program's prompt, as a captured terminal
session or transcript shows it: the prompt line, then what was typed after it on the same
line (a terminal that echoed it, a transcript that wrote it in) or alone on the next.
Each went out in clear: git's ``Password for 'https://dev@github.com': …``, wrangler's
``? Enter a secret value: › …``, ssh-keygen's and ssh-add's ``Enter passphrase for key
'~/.ssh/id_ed25519': …`` and ``Enter new passphrase (empty for no passphrase): …``,
sudo's ``[sudo] password for dev: …``, ``vault login``'s ``Token (will be hidden): …``:
what stands between the noun and its colon (``for …``, a parenthesis, ``again``) is no
assignment's separator, and a value alone on the line after a prompt that starts its line
is no YAML value. ``Password: …`` itself is the assignment rule's, and ``Password:⏎  …``
a heading (tests/privacy/test_yaml_next_line.py): a one-word noun glued to its colon is
not read here.

The prompt starts its line: a marker (``[sudo]``, inquirer's ``?`` or ``✔``), then at most
four of a prompt's words (:data:`_HEAD_WORDS`: ``Enter``, ``Retype new``, ``Vault``,
``BECOME``, …; read back from the noun by :func:`at_a_prompt`, a sentence's words are
none of them), then the noun (password, passphrase, pass phrase, passcode, secret value,
token). The typed value is one run to its line's end: on the prompt's line it is data (a
word goes, as after ``Password:``); on the next line, where a program's output may stand
instead (``Welcome``, ``remote: …``, the next shell prompt), it must mix letters with
digits or symbols and end in none of a message's or a prompt's characters. A value with
more words after it on the prompt's line (``[sudo] password for dev: … and then the install
ran``), or typed at a prompt quoted inside a line after a clause's ``,``, ``;``, ``:``,
``then`` or ``and`` (its head then holds a prompt's word or marker), must read as typed
too (no word alone: ``Sorry, try again``): each went out in clear. Part of the rule table
of :mod:`waymarks.core.secret_rules`.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule
from waymarks.core.secret_values import _looks_like_secret

_NOUN: Final = r"(?:password|passphrase|pass[ \t]phrase|passcode|secret[ \t]value|token)"
#: what may stand between the noun and its colon: whose it is (``for 'https://u@host'``,
#: ``for key '/path'``, ``for dev``, ``for user 'admin'``), a note in parentheses, ``again``
_BETWEEN: Final = (r"(?:[ \t]+for(?:[ \t]+(?:key|user))?[ \t]+(?:'[^'\n]{1,256}'|\"[^\"\n]{1,256}\""
                   r"|[\w.@-]{1,64}))?(?:[ \t]+(?:again|\([^()\n]{1,64}\)))?")
#: the typed value (a run, not quoted: a quoted one is the assignment rule's), then its
#: line's end
_RUN: Final = r"[^\s\"'`][^\s]{3,255})[ \t]*(?=\r?\n|\Z)"
#: or a run with more words after it on its line (a transcript's sentence going on: ``[sudo]
#: password for dev: … and then the install ran``), its sentence's punctuation left out
_RUN_MID: Final = r"[^\s\"'`][^\s]{3,255}?)(?=[.,;:!?)]*[ \t]+\S)"

PROMPT_TYPED: Final = Rule("prompt_typed", "secret", lazy(
    _NOUN + _BETWEEN + r"[ \t]*:(?:[ \t]*[\u203a\u00bb>][ \t]*|[ \t]+)(?:(?P<prompt_typed>"
    + _RUN + r"|(?P<prompt_mid>" + _RUN_MID + ")|" + _NOUN + _BETWEEN
    + r"[ \t]*:[ \t]*\r?\n[ \t]*(?P<prompt_next>" + _RUN,
    re.ASCII | re.IGNORECASE),
    ("pass", "secret", "token"), folded=True, anchored=True, wrapper=True, guard=":")

#: a prompt's words before its noun (a sentence's words are none of these)
_HEAD_WORDS: Final = (
    "enter", "retype", "re-enter", "reenter", "confirm", "verify", "repeat", "type", "new",
    "old", "current", "same", "your", "a", "unix", "ldap", "kerberos", "pem",
    "private", "key", "ssh", "become", "vault", "sudo", "master", "admin", "root", "auth",
    "import", "export", "host", "proxy", "keystore", "access", "api", "secret", "login")
_HEAD: Final = lazy(
    r"[ \t]*(?:\[sudo\][ \t]+|[?!>*\u2714\u2713\u276f\u203a][ \t]+|\((?:current|new)\)[ \t]+)?"
    r"(?:(?:" + "|".join(re.escape(word) for word in _HEAD_WORDS) + r")[ \t]+){0,4}",
    re.ASCII | re.IGNORECASE)
#: how far before the noun its line's head is read
_HEAD_READ: Final = 80
#: where a prompt quoted inside a line may start: after a clause's comma, semicolon or
#: colon, or ``then``/``and`` (``ssh in, [sudo] password for dev: …``, ``sudo install:
#: [sudo] password …``, ``… then Enter passphrase for key '…': …``); its head must then
#: hold a prompt's word or marker
_LEAD_IN: Final = lazy(r"(?:[,;:]|\b(?:then|and))[ \t]+", re.ASCII | re.IGNORECASE)
#: the noun, then whose it is in quotes up to the colon: git's ``Password for
#: 'https://dev@host':`` (a prompt with no prompt's word before its noun)
_QUOTED_FOR: Final = lazy(r"password[ \t]+for[ \t]+(?:'[^'\n]{1,256}'|\"[^\"\n]{1,256}\")[ \t]*:",
                          re.ASCII | re.IGNORECASE)
#: a one-word noun glued to its colon: an assignment's name, or a heading
_BARE_NOUN: Final = lazy(r"(?:password|passphrase|passcode|token)[ \t]*:",
                         re.ASCII | re.IGNORECASE)
#: what ends a program's message or a shell's prompt, not a typed password
_NOT_TYPED_END: Final = tuple(":.!$#%>")


def at_a_prompt(match: re.Match[str]) -> bool:
    """Whether a ``prompt_typed`` match's noun ends a prompt's head that starts its line
    (:data:`_HEAD`), and the value it read is one a person typed there."""
    text, at = match.string, match.start()
    line = text.rfind("\n", max(0, at - _HEAD_READ), at) + 1
    if (line == 0 and at > _HEAD_READ) or _HEAD.fullmatch(text, line, at) is None:
        if not _quoted_in_line(text, max(line, at - _HEAD_READ), at,
                               quoted_for=_QUOTED_FOR.match(text, at) is not None):
            return False
        starts_line = False
    else:
        starts_line = True
    if _BARE_NOUN.match(text, at) is not None:
        # ``Password: …`` is the assignment rule's, judged as its value; ``Password:⏎  …``
        # a heading (tests/privacy/test_yaml_next_line.py)
        return False
    if match.lastgroup == "prompt_typed":
        return _looks_like_secret(match.group("prompt_typed"), data=starts_line, alone=False)
    if match.lastgroup == "prompt_mid":  # words after it: what reads as typed, not a word
        return _looks_like_secret(match.group("prompt_mid"), data=False, alone=False)
    value = match.group("prompt_next")
    return not value.endswith(_NOT_TYPED_END) and _looks_like_secret(
        value, data=False, alone=False)


def _quoted_in_line(text: str, low: int, at: int, *, quoted_for: bool = False) -> bool:
    """Whether a prompt's head ends at ``at`` after a clause's lead-in (:data:`_LEAD_IN`)
    inside its line: a transcript's sentence quoting the prompt and what was typed. The
    head may be empty when the noun names whose it is in quotes (``quoted_for``: git's
    ``Password for 'https://…':``, a prompt's shape no sentence has)."""
    ends = [lead.end() for lead in _LEAD_IN.finditer(text, low, at)]
    if not ends:
        return False
    if ends[-1] == at:
        return quoted_for
    return _HEAD.fullmatch(text, ends[-1], at) is not None
