"""A container's environment as a tool prints it: ``docker inspect``'s ``"Env": [
"NAME=VALUE", …]`` and ``kubectl describe pod``'s ``Environment:`` block (``NAME:  VALUE``
lines, deeper than it), or a Compose file's ``environment:`` block (``NAME: VALUE`` or
``- NAME=VALUE``).

Each entry is a variable the container was started with, so a credential under a name
that says nothing of one (``SESSION_X``, ``TOKEN_X``, ``DB``) stood there with no rule to
read it, and went to the model in clear (a name ending in a credential's word was already
an assignment's). Part of the rule table of :mod:`waymarks.core.secret_rules`; like
``store_pairs``' (``docker run -e NAME=…``), a match is several spans, one per value
(:func:`environment_values`), each judged by :func:`generated`: only what reads as
generated goes, since ``docker inspect`` prints every official image's settings there
(``PG_VERSION=16.1-1.pgdg120+1``, ``PYTHON_SHA256=<hex>``, ``GPG_KEY=<hex>``), which a
config var's test took for secrets (16 of 60 such entries); a reference, a sentence, a
UUID or ``<set to the key 'password' in secret 'db'>`` stays, and so does a weak password
under a neutral name, ``TOKEN_X=hunter22``, as ``DB=hunter22`` does everywhere else. The
names stay.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import ALONE_VALUE, PAIR_PREFIX, PAIR_START, Rule

#: one JSON string (its escapes kept), possessive: read once
_STRING: Final = r"\"(?:[^\"\\\n]|\\[^\n]){0,4096}+\""
#: one line of an environment block after the block's own indent: ``NAME: VALUE`` (kubectl
#: describe pads the value with spaces), ``- NAME=VALUE`` or ``NAME=VALUE``
_LINE: Final = r"[ \t]+(?:-[ \t]+)?[\"']?[A-Za-z_][\w.-]{0,253}[\"']?(?::|=)[^\n]{0,4096}+"

#: a shell variable's assignment, its value quoted or to a space: ``NAME=VALUE``
_PAIR: Final = r"[A-Za-z_][\w]{0,253}=(?:'[^'\n]{0,4096}+'|\"[^\"\n]{0,4096}+\"|[^\s'\"]{0,4096}+)"
#: one line of an environment's dump: a variable in capitals (``env``'s), its value to
#: the line's end
_DUMPED: Final = r"[A-Z_][A-Z0-9_]{0,253}=[^\n]{0,4096}+"

#: a pair whose value is hex alone, quoted or not
_NO_HEX: Final = (r"(?![A-Za-z_]\w{0,63}=(?P<env_hq>['\"]?)(?:0[xX])?[0-9A-Fa-f]{16,4096}"
                  r"(?P=env_hq)(?![A-Za-z0-9+/_=-]))")

ENVIRONMENT_RULES: Final = (
    # docker inspect's ``"Env": [ … ]`` (pretty-printed or on one line), every entry a string
    Rule("env_list", "secret", lazy(
        r"\"Env\"[ \t]*:[ \t]*\[(?P<env_list>(?:\s*" + _STRING + r"\s*,?){1,1024}+)\]",
        re.ASCII), ("\"env\"",), folded=True, anchored=True, wrapper=True, guard="["),
    # kubectl describe's ``Environment:`` block, a Compose file's ``environment:``: the
    # line alone (``Environment:  <none>`` holds none), then each deeper line
    Rule("env_block", "secret", lazy(
        r"(?m:^)(?P<env_indent>[ \t]*)(?i:environment):[ \t]*\r?\n"
        r"(?P<env_block>(?:(?P=env_indent)" + _LINE + r"(?:\n|\Z)){1,1024}+)", re.ASCII),
        ("environment:",), folded=True, wrapper=True, guard=":"),
    # a shell's own environment: an ``export NAME=VALUE`` line (``declare -x``, as ``export
    # -p`` prints it), and ``env``'s or ``printenv``'s output, ``NAME=VALUE`` lines, from its
    # PATH, HOME or HOSTNAME line (every dump holds one: the needles, where it is tried) to
    # the dump's end, and back to its start (:func:`environment_values`)
    Rule("env_export", "secret", lazy(
        r"(?<![\w.-])(?:export|declare[ \t]+-x)[ \t]+(?P<env_export>" + _PAIR + r")"
        r"|(?<![^\n])(?P<env_dump>(?:PATH|HOME|HOSTNAME)=[^\n]{1,4096}+"
        r"(?:\r?\n" + _DUMPED + r"){0,1024}+)", re.ASCII),
        ("export", "declare", "PATH=", "HOME=", "HOSTNAME="), anchored=True, wrapper=True,
        guard="="),
    # one ``NAME=VALUE`` alone on its line, a .env file's or a pasted one's, its value a
    # token's run (quoted or not): under a name that says nothing (``DB=…``), a generated
    # value went out in clear; and so did one starting a command's line, the command's
    # environment (``SIGNING=… ./run.sh``, ``DB=… rails s``: a command's word after it),
    # or after a prefix on its line (``start: DB=… rails s``, ``$ DB=…``, ``sudo DB=…``)
    Rule("env_line", "secret", lazy(
        # (a digit in the value, as :func:`generated` wants: read in the expression, a
        # run of capitals after every space, ``a=AAAA…= b``, was each judged; 100 KB 87 ms)
        # (hex after a prefix, ``docker run --label build=<hex>``, is a tag or a build's ID
        # as often as a key: a pair starting its line only)
        f"(?:{PAIR_START}|{PAIR_PREFIX}{_NO_HEX})"
        r"(?P<env_line>[A-Za-z_]\w{0,63}=(?=['\"]?[A-Za-z0-9+/_-]{0,4096}?[0-9])"
        r"(?:[A-Za-z0-9+/_-]{16,4096}={0,2}"
        r"|(?P<env_q>['\"])[A-Za-z0-9+/_-]{16,4096}={0,2}(?P=env_q)))"
        r"(?=[ \t]*(?:\r?\n|\Z)|[ \t]+[\w./~-][^\s=]{0,255}(?:[ \t]|\r?\n|\Z))", re.ASCII),
        ("=",), wrapper=True, guard="=", hint=ALONE_VALUE),
)

#: an entry of ``env_list``: the string's name, then its value (its escapes kept)
_LIST_ENTRY: Final = lazy(r"\"(?P<n>[A-Za-z_][\w.-]{0,253})=(?P<v>(?:[^\"\\\n]|\\[^\n]){1,4096})\"",
                          re.ASCII)
#: an entry of ``env_export``'s or ``env_dump``'s: a name, then its value to the line's end
#: or the export's pair's (its quotes are taken off as a Compose file's are)
_SHELL_ENTRY: Final = lazy(r"(?<![\w$.-])(?P<n>[A-Za-z_]\w{0,253})=(?P<v>[^\n]{1,4096})",
                           re.ASCII)
#: an entry of ``env_block``: a line's name and separator, then its value to the line's end
_BLOCK_ENTRY: Final = lazy(r"(?m:^)[ \t]+(?:-[ \t]+)?[\"']?(?P<n>[A-Za-z_][\w.-]{0,253})[\"']?"
                           r"(?::|=)[ \t]*(?P<v>[^\n]{1,4096})", re.ASCII)
#: a value's quotes (a Compose file may quote it)
_QUOTES: Final = ("\"", "'")
#: what a generated credential is written in: random letters and digits, base64(url)
_TOKEN: Final = lazy(r"[A-Za-z0-9+/_-]{16,4096}={0,2}", re.ASCII)
#: at least this share of its neighbouring characters differ in class (capital, small
#: letter, digit, symbol): a generated value's do (``Xk9vTq2m…``; 93 % of random 16-letter
#: ones, 99.9 % of ``openssl rand -base64 32``'s), words in camel case do not
#: (``MyServiceV2Production``: 7 of 20)
_CHANGES: Final = 0.4
#: padded base64 this long decodes to 16+ bytes (a key, not a word)
_PADDED_MIN: Final = 24
#: 32+ hex digits, ``0x`` before them or not (rabbitmq's image writes its key's ID so)
_HEX: Final = lazy(r"(?:0[xX])?[0-9A-Fa-f]{32,4096}", re.ASCII)
#: a name saying its hex is public: a digest, a commit, a key's ID or fingerprint (every
#: official image's ``PYTHON_SHA256``, ``REDIS_DOWNLOAD_SHA``, ``GPG_KEY``; a CI's
#: ``GIT_COMMIT``)
_PUBLIC_HEX: Final = lazy(r"(?:^|[_.-])(?:sha[0-9]{0,3}|md5|checksum|digest|commit|rev(?:ision)?"
                          r"|gpg_keys?|fingerprint|id)$", re.ASCII | re.IGNORECASE)


def _class(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.isupper() else 2 if c.islower() else 3


def generated(name: str, value: str) -> bool:
    """Whether ``value``, under a name that says nothing of a credential, is one: 32+ hex
    digits (``openssl rand -hex 32``; ``0x`` may lead them) unless the name says a digest or
    an ID (``RABBITMQ_PGP_KEY_ID=0x0A9A…``), or 16+
    characters of a token's alphabet mixing capitals, small letters and digits, changing
    class between neighbours as a random one does, or padded base64 of 16+ bytes (``openssl
    rand -base64 32``). A container's
    settings (versions such as ``16.1-1.pgdg120+1``, ``1~bookworm``, ``jdk-21.0.1+12``,
    flags such as ``-Xmx512m``, a pod's ``web-6d4cf56db6-x7k2p``, a ULID) are none, nor
    is a person's password under such a name (``DB=hunter22``): no rule tells it from a
    setting."""
    if _HEX.fullmatch(value) is not None:
        return _PUBLIC_HEX.search(name) is None
    if _TOKEN.fullmatch(value) is None or value.islower() or value.isupper() \
            or not any(c.isdigit() for c in value):
        return False
    if value.endswith("=") and len(value) % 4 == 0 and len(value) >= _PADDED_MIN:
        return True  # padded base64 of 16+ bytes: encoded, as no setting is
    return sum(
        _class(a) != _class(b) for a, b in pairwise(value)) >= _CHANGES * (len(value) - 1)


def environment_values(name: str, match: re.Match[str]) -> list[tuple[int, int]]:
    """The values to redact of an ``env_list`` or ``env_block`` match (rule ``name``):
    those :func:`generated` takes (a credential's name is an assignment's, its own rule's)."""
    text = match.string
    entries = _LIST_ENTRY if name == "env_list" else _BLOCK_ENTRY
    start, end = match.span(name)
    if name in ("env_export", "env_line"):
        entries = _SHELL_ENTRY
        if match.group(name) is None:  # a dump: its lines before the one it was found at
            start, end = _dump_start(text, match.start("env_dump")), match.end("env_dump")
    spans = []
    for entry in entries.finditer(text, start, end):
        at, until = entry.span("v")
        value = text[at:until].rstrip()
        if len(value) > 1 and value[0] in _QUOTES and value[-1] == value[0]:
            at, value = at + 1, value[1:-1]
        if generated(entry.group("n"), value):
            spans.append((at, at + len(value)))
    return spans


_DUMPED_LINE: Final = lazy(_DUMPED + r"\r?", re.ASCII)


def _dump_start(text: str, at: int) -> int:
    """Where the dump of ``NAME=VALUE`` lines holding the line starting at ``at`` starts:
    back over the lines before it that are such lines (1,024 at most)."""
    for _ in range(1024):
        if at == 0:
            break
        line = text.rfind("\n", 0, at - 1) + 1
        if _DUMPED_LINE.fullmatch(text, line, at - 1) is None:
            break
        at = line
    return at
