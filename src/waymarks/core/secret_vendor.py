"""A service's token known by its prefix and its random body, where the vendor rules of
:mod:`waymarks.core.secret_tokens` want an exact length or know no such prefix:
"fix: remove hardcoded sendgrid key SG.x7Fq2LpRt9.Wk3mNz8VbYc1Hd4Jg6Ts0Ae5Ru from
settings.py" (a SendGrid key of other lengths than 22 and 43), "set DEPLOY_KEY after
rotation (new value dk_83hf9Qz2LmXr7Tn)" (a prefix no rule knows). Each went to a remote
model in clear.

- ``sendgrid_any``: ``SG.``, a run of 8-40 token characters, ``.``, a run of 16-80: both
  runs together random (capitals, small letters and digits all).
- ``prefixed_token``: a prefix of 2-8 small letters and ``_`` (a second one of those
  optional: ``rk_live_``, ``shippo_test_``), or of 2-6 small letters and ``-``, then a
  body of letters and digits (12-64 after ``_``, 20-64 after ``-``) that reads random:
  capitals, small letters and digits all, the kind of character changing at every
  second one at least; and the prefix a credential's (ending in ``k``: ``sk``, ``dk``,
  ``ak``, ``key``; ``pat``, ``tok``, ``sec``, ``auth``, …; a ``live``/``test``/``prod``
  part) or a credential's word (key, token, secret, password, credential) up to 64
  characters before it on its line ("DEPLOY_KEY … new value dk_83hf…", "perplexity api
  key: pplx-…"). A name in code is no token (``get_userAccountById2``: a capital every
  word), nor a hash (one case), a UUID, a slug or a version; nor an object's or message's
  ID, random as it is (``cus_``, ``msg_``, ``toolu_``, ``chatcmpl-``, this project's
  ``src_`` source references).

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

SENDGRID_ANY: Final = Rule("sendgrid_any", "sendgrid-key", lazy(
    r"(?<![\w-])SG\.[A-Za-z0-9_-]{8,40}\.[A-Za-z0-9_-]{16,80}(?![\w-])",
    re.ASCII), ("SG.",))
#: the body's characters after the prefix, then no more of a token's
PREFIXED_TOKEN: Final = Rule("prefixed_token", "secret", lazy(
    r"(?<![\w.-])(?:[a-z]{2,8}_(?:[a-z]{2,8}_)?[A-Za-z0-9]{12,64}"
    r"|[a-z]{2,6}-[A-Za-z0-9]{20,64})(?![\w-])", re.ASCII), ("_", "-"))

#: a body this long has switched between capitals, small letters and digits at every
#: second character at least
_SWITCH_SHARE: Final = 2
_SPLIT: Final = lazy(r"[_-]")


def _random(body: str) -> bool:
    """Capitals, small letters and digits all, the class switching every second character."""
    if not (any(c.isupper() for c in body) and any(c.islower() for c in body)
            and any(c.isdigit() for c in body)):
        return False
    kinds = [0 if c.isdigit() else 1 if c.isupper() else 2 for c in body]
    switches = sum(a != b for a, b in pairwise(kinds))
    return switches * _SWITCH_SHARE >= len(body) - 1


def sendgrid_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether a SendGrid key's two runs, together, read random."""
    return _random(_SPLIT.sub("", match.string[start + 3:end].replace(".", "")))


#: a prefix a credential's is named by: ending in ``k`` (``sk``, ``rk``, ``dk``, ``ak``,
#: ``key``), or a credential's abbreviation
_CREDENTIAL_PREFIX: Final = lazy(r"[a-z]*k|pat|tok|token|sec|secret|apikey|auth|cred|pwd"
                                 r"|pass|bot")
#: a second part saying which key of a pair of environments (``rk_live_``, ``shippo_test_``)
_ENVIRONMENTS: Final = frozenset({"live", "test", "prod"})
#: a credential's word on its line, up to 64 characters before: "new value dk_…" after
#: ``DEPLOY_KEY``, "the token is mytool_…"
_NAMED_BEFORE: Final = lazy(r"key|token|secret|passw|credential", re.IGNORECASE)
#: prefixes of objects' and messages' IDs, random but no secret: a Stripe customer's or
#: charge's (``cus_``, ``ch_``), an API's message or tool call (``msg_``, ``toolu_``,
#: ``chatcmpl-``), this project's own source reference (``src_``)
_ID_PREFIXES: Final = frozenset({
    "src", "msg", "toolu", "cus", "ch", "pi", "pm", "sub", "in", "ii", "evt", "req", "acct",
    "txn", "price", "prod", "py", "po", "tr", "re", "seti", "si", "cs", "file", "asst",
    "thread", "run", "step", "batch", "ft", "org", "proj", "user", "chatcmpl", "call",
    "resp", "item", "vs", "id", "uid", "uuid", "job", "task"})


def prefixed_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether a prefixed token is a credential: its body (its last part) random, its prefix
    no object's ID's, and a credential's (:data:`_CREDENTIAL_PREFIX`, a ``live``/``test``
    part) or a credential's word before it on its line."""
    value = match.string[start:end]
    parts = _SPLIT.split(value)
    if not _random(parts[-1]) or parts[0] in _ID_PREFIXES or _glued_vendor(value):
        return False
    if _CREDENTIAL_PREFIX.fullmatch(parts[0]) is not None or (
            len(parts) > 2 and parts[1] in _ENVIRONMENTS):
        return True
    line_start = match.string.rfind("\n", max(0, start - 64), start) + 1
    return _NAMED_BEFORE.search(match.string, max(line_start, start - 64), start) is not None


def _glued_vendor(value: str) -> bool:
    """Whether a vendor's prefix starts inside ``value`` (``xxxxghp_…``, ``keysk_live_…``):
    the vendor's rule takes the token from its prefix on, the letters glued before it
    staying (this rule's span, from the first letter, would take them too)."""
    from waymarks.core.secret_tokens import GLUED_RULES

    head = len(_SPLIT.split(value, 1)[0])  # (the prefix starts in the first part)
    return any(value.find(prefix, 1, head + len(prefix)) != -1
               for prefixes in GLUED_RULES.values() for prefix in prefixes)


#: a small letter, ``_`` or ``-``, then a run a body's length long
_HINT: Final = lazy(r"[a-z][_-][A-Za-z0-9]{12}")


def might_be_vendor(text: str) -> bool:
    """The pre-test's part: ``SG.``, or a prefix glued to a long run, then an expression."""
    if "SG." in text and SENDGRID_ANY.regex.search(text) is not None:
        return True
    return ("_" in text or "-" in text) and _HINT.search(text) is not None \
        and PREFIXED_TOKEN.regex.search(text) is not None
