"""Baseline for benchmarks/secret_redaction.py: waymarks.core.secrets as it was before issue 14.

A frozen copy (commit dd12af2) so the benchmark compares both in the same run, on the
same machine. Not used by the package; do not edit.

Credential-like values in text, and their redaction for remote destinations.

Recognised (each replaced by ``[REDACTED:<kind>]``):

- ``private-key``: PEM private-key blocks (``-----BEGIN … PRIVATE KEY-----`` to the
  matching END line; a block without its END line is redacted to the end of the text);
- ``bearer``: the token after ``Bearer`` (the word itself stays); a token of letters
  only must be 20+ characters long (``Bearer authentication`` is prose);
- ``anthropic-key`` / ``openai-key``: ``sk-ant-…`` / ``sk-…`` with 20+ key characters;
- ``github-token``: ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` tokens and ``github_pat_``;
- ``aws-access-key-id``: ``AKIA``/``ASIA`` followed by 16 upper-case letters or digits;
- ``secret``: the value of a key/token/password assignment (``API_KEY=…``,
  ``"password": "…"``, ``client_secret: …``, ``GITHUB_TOKEN=…``); the name and separator
  stay. Values that are evidently not secrets stay too: type names and literals
  (``password: str``, ``token = None``), references (``$TOKEN``, ``os.environ…``,
  ``{{ secret }}``, ``<your-key>``) and masks (``****``).

Defense in depth, not a classifier: it catches common shapes, not every secret. A cheap
substring test skips the regular expression for text that cannot hold any of them.
Redaction is idempotent. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Final

PLACEHOLDER_PREFIX: Final = "[REDACTED:"

_KEY_NAMES: Final = (
    r"api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key"
    r"|(?:access|auth|refresh|id|session|bearer)[_-]?token|token"
    r"|client[_-]?secret|secret|passwor[dt]|passwd|pwd"
)
#: values of an assignment that are not secrets (checked after a match, case-insensitive)
_NOT_SECRETS: Final = frozenset({
    "null", "none", "nil", "true", "false", "undefined", "str", "string", "bytes", "int",
    "number", "bool", "boolean", "any", "unknown", "optional", "secretstr", "redacted",
    "required", "example", "changeme", "your_password", "your-password",
})
_REFERENCE_PREFIXES: Final = (
    "$", "%", "{{", "os.environ", "os.getenv", "process.env", "env.", "getenv", "self.",
    "this.", "config.", "settings.", "secrets.", "vars.", "input(",
)

_SECRET: Final = re.compile(
    r"(?P<pem>-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?s:.*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|.*\Z))"
    r"|(?P<bearer_name>\b(?:[Bb]earer|BEARER)[ \t]+)(?P<bearer>[A-Za-z0-9._~+/=-]{8,})"
    r"|(?P<anthropic>(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,})"
    r"|(?P<openai>(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,})"
    r"|(?P<github>(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))"
    r"|(?P<aws>(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z]))"
    r"|(?P<assign_name>(?<![A-Za-z0-9])(?i:(?:[a-z0-9]+[_.-])*(?:" + _KEY_NAMES + r"))"
    r"[\"']?[ \t]*[:=][ \t]*[\"']?)"
    r"(?P<assign>(?!(?i:bearer|basic)[ \t])[^\s\"'`,;(){}\[\]<>]{4,})",
    re.ASCII,
)
#: a Bearer "token" shorter than this without a digit is a word ("Bearer authentication")
_BEARER_WORDLIKE: Final = 20
#: no pattern matches fewer characters ("pwd=abcd")
_SHORTEST: Final = 8
_KINDS: Final = {
    "pem": "private-key", "bearer": "bearer", "anthropic": "anthropic-key",
    "openai": "openai-key", "github": "github-token", "aws": "aws-access-key-id",
    "assign": "secret",
}


def might_contain_secret(text: str) -> bool:
    """A cheap test with no false negatives: False means ``redact`` would change nothing.

    Single characters are tested first (a fast memchr) to skip the longer searches."""
    if len(text) < _SHORTEST:
        return False
    if "-" in text and ("sk-" in text or "-----" in text):
        return True
    if "_" in text and ("gh" in text or "_pat_" in text):
        return True
    if ("K" in text and "AKIA" in text) or ("S" in text and "ASIA" in text):
        return True
    folded = text.casefold()  # the key names match case-insensitively
    if "bearer" in folded:
        return True
    if "=" not in text and ":" not in text:
        return False
    return ("k" in folded and ("key" in folded or "token" in folded)) \
        or ("w" in folded and ("passw" in folded or "pwd" in folded)) \
        or "secret" in folded


def _is_secret_value(value: str) -> bool:
    folded = value.lower()
    if folded in _NOT_SECRETS or folded.startswith(_REFERENCE_PREFIXES):
        return False
    return folded.strip("*x.") != ""


def redact(text: str) -> tuple[str, int]:
    """``text`` with every credential-like value replaced, and how many were replaced."""
    if not might_contain_secret(text):
        return text, 0
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        kind = match.lastgroup
        if kind == "assign":
            value = match.group("assign")
            if not _is_secret_value(value):
                return match.group(0)
            count += 1
            return f"{match.group('assign_name')}{PLACEHOLDER_PREFIX}secret]"
        if kind == "bearer":
            token = match.group("bearer")
            if len(token) < _BEARER_WORDLIKE and not any(c.isdigit() for c in token):
                return match.group(0)  # "Bearer authentication": a word, not a token
            count += 1
            return f"{match.group('bearer_name')}{PLACEHOLDER_PREFIX}bearer]"
        count += 1
        return f"{PLACEHOLDER_PREFIX}{_KINDS[kind or '']}]"

    redacted = _SECRET.sub(replace, text)
    return redacted, count
