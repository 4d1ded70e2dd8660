"""Deny by default after a password's noun and an assignment: "the password is X" states
X unless X is known to be harmless.

Judging the value by its shape (mixed letters and digits, symbols, the weak and default
lists) left passwords that read as words in clear: words joined by hyphens
("Tiger-Lily-Moon-8"), a quoted dictionary word ('Password1'), a plain word ("the admin
password is opensesame"). After an explicit password's noun (password, passphrase,
passcode, passwd, pwd, pw, 密码, 口令; not a bare "pass", a token's, a key's or a secret's)
and a verb or marker of assignment, the value is a password unless it is

- a reference or placeholder (``${DB_PASSWORD}``, ``<password>``, ``****``, ``changeme``),
  a path, URL, e-mail address, environment variable's name, version or date, a call in
  code, a literal or type (``None``, ``str``), a hash's, format's or character set's name;
- a number with its unit after it ("the password is 16 characters long", "90 days");
- a word of how prose goes on after "the password is" (:data:`PROSE_WORDS`: required,
  stored, hashed, wrong, the, in, not, …), or any lower-case word that reads as an
  adjective or participle (ending -ed, -able, -ive, …: "salted", "configurable") or that
  the sentence goes on after ("the password is whatever the operator chose");
- a value before such an adjective ("SHA-256 hashed", "2024 compliant"), capitalised words
  in a row (a name: "Release Signing Key"), a hyphenated pointer ("see-the-wiki"), a
  parameter judged by its value ("min_length=12");
- code: an identifier or expression after a spaced ``=`` (``self.password = password``) is
  judged by its shape, as before (``admin password = admin`` still goes).

Chinese prose after 密码是 / 为 (必填, 加密, 错误, …) stays by construction: the value the
rules read is ASCII. After the possessive "'s" ("a password's noun") the value is judged by
its shape (:mod:`waymarks.core.secret_prose`).

Pure: no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_values import (
    _ADDRESS_OR_VARIABLE,
    _CALL,
    _FIELD_NAMES,
    _NOT_SECRETS,
    _PARAMETER,
    _PATH,
    _PLACEHOLDERS,
    _VERSION_OR_DATE,
    is_reference,
    name_like,
    prose_value_is_secret,
)

#: words prose continues with after "the password is" (read from docs, issues and runbooks:
#: a state, a place, a comparison, an article or preposition starting a phrase)
PROSE_WORDS: Final = frozenset({
    "required", "optional", "stored", "hashed", "encrypted", "managed", "rotated", "expired",
    "wrong", "incorrect", "invalid", "correct", "valid", "empty", "blank", "missing", "set",
    "reset", "changed", "unchanged", "unset", "unknown", "known", "the", "a", "an", "in",
    "on", "at", "from", "not", "never", "still", "also", "same", "different", "now", "then",
    "only", "just", "always", "usually", "generally", "typically", "currently", "too",
    "very", "case", "per", "your", "my", "our", "their", "his", "her", "its", "this",
    "that", "these", "those", "what", "whatever", "which", "who", "whoever", "how", "where",
    "when", "why", "one", "any", "some", "no", "none", "each", "every", "all", "both",
    "either", "neither", "shown", "hidden", "given", "taken", "written", "sent", "kept",
    "held", "read", "used", "new", "old", "weak", "strong", "short", "long", "secret",
    "unique", "random", "secure", "insecure", "fine", "good", "bad", "ok", "okay", "right",
    "there", "here", "under", "inside", "within", "by", "via", "with", "without", "for",
    "to", "of", "as", "like", "less", "more", "most", "least", "about", "over", "after",
    "before", "until", "since", "if", "unless", "because", "so", "and", "or", "but", "yet",
    "literally", "simply", "actually", "really", "probably", "definitely", "again", "being",
    "gone", "lost", "locked", "disabled", "enabled", "blocked", "visible", "plaintext",
    "cleartext", "masked", "obfuscated", "temporary", "permanent", "default", "standard",
    "mandatory", "irrelevant", "ignored", "inherited", "shared", "personal", "separate",
    "sensitive", "insensitive", "long-lived", "short-lived", "out", "off", "up", "down",
    "available", "unavailable", "compromised", "leaked", "exposed", "safe", "unsafe",
    "whitespace", "trimmed", "null", "nil", "undefined", "prompted", "asked", "needed",
    "necessary", "enough", "sufficient", "insufficient", "too-short", "tbd", "another",
    "other", "data", "text", "input", "sorry", "strict", "lenient", "simple", "complex",
    "easy", "hard", "clear", "plain", "common", "weaker", "stronger", "longer", "shorter",
    # a password's state or quality, in words no suffix of :data:`_ADJECTIVE` tells ("The
    # password is stale.", "… is obsolete": redacted, and a write of them refused)
    "stale", "obsolete", "dead", "alive", "live", "void", "moot", "fake", "bogus", "dummy",
    "legacy", "complete", "incomplete", "private", "rare", "cheap", "lame", "poor", "awful",
    "great", "nice", "solid", "robust", "brittle", "fragile", "obscure", "lowercase",
    "uppercase", "numeric", "alphanumeric", "guessable", "unguessable", "outdated", "old-style",
})
#: how a lower-case English adjective or participle ends ("salted", "configurable",
#: "case-sensitive", "generated"): prose about the password, not one
_ADJECTIVE: Final = lazy(r"[a-z]+(?:-[a-z]+)*(?:ed|en|ing|able|ible|ive|ful|less|ous|al|ent"
                         r"|ant|ary|ory|ic|ly|ated|ized|ised|ure)", re.ASCII)
#: numbers in words, which end like an adjective or participle ("seventeen", "eleven")
_NUMBER_WORDS: Final = frozenset({"seven", "ten", "eleven", "thirteen", "fourteen", "fifteen",
                                  "sixteen", "seventeen", "eighteen", "nineteen"})
#: code's assignment of a variable or an expression (``password = raw``, ``self.password =
#: password``, ``get_password = (lambda: password)``)
_CODE_ASSIGNED: Final = lazy(r"=[ \t]*\Z")
#: a phrase pointing elsewhere, hyphen-joined ("the password is see-the-wiki")
_POINTERS: Final = ("see-", "ask-", "check-", "refer-", "per-", "in-the-", "on-the-")
#: the word after the value
_NEXT_WORD: Final = lazy(r"[ \t]+([A-Za-z]+(?:-[a-z]+)*)\b", re.ASCII)
_IDENTIFIER: Final = lazy(r"[A-Za-z_]+", re.ASCII)
#: the sentence goes on after the value: a space then a lower-case word or CJK text
_GOES_ON: Final = lazy(r"[ \t]+(?:[a-z]|[^\x00-\x7f])")


def password_is_denied(text: str, value: str, end: int, *, quoted: bool) -> bool | None:
    """Whether ``value`` (ending at ``end`` in ``text``), after a password's noun and an
    assignment, is the password: anything but what this module's docstring lists as
    harmless (a hash's, format's or character set's name is told by the caller,
    :mod:`waymarks.core.secret_prose`, which imports this module). None: an identifier or
    expression after a spaced ``=`` (code's ``password = raw``), left to the value's
    shape."""
    bare = value.strip("\"'`")
    lowered = bare.lower()
    if len(bare) < 3 or not any(c.isalnum() for c in bare) or is_reference(bare) \
            or lowered in _NOT_SECRETS or lowered in _PLACEHOLDERS \
            or "://" in bare or _ADDRESS_OR_VARIABLE.fullmatch(bare) is not None \
            or _CALL.match(bare) is not None or _VERSION_OR_DATE.fullmatch(bare) is not None \
            or name_like(bare.replace("-", "")) or lowered in _FIELD_NAMES \
            or lowered.startswith(_POINTERS) \
            or (_PATH.fullmatch(bare) is not None and ("/" in bare or "\\" in bare)):
        return False
    if bare.isdigit() and not quoted and _number_unit(text, end):
        return False
    start = end - len(value)
    if not quoted and (_IDENTIFIER.fullmatch(bare) is not None or bare[0] in "([{") \
            and _CODE_ASSIGNED.search(text, max(0, start - 4), start) is not None:
        return None  # (judged by its shape, as before: ``admin password = admin`` goes)
    if quoted:
        return True
    if lowered.rstrip(".,;:!?") in PROSE_WORDS:
        return False
    last = bare.rsplit("-", 1)[-1].lower()
    if "-" in bare and bare.replace("-", "").isalnum() \
            and _ADJECTIVE.fullmatch(last) is not None and last not in _NUMBER_WORDS:
        return False  # "sha256-hashed", "base64-encoded", "Python3-compatible"; not
        # "green-heron-fifteen", whose number ends like a participle (-en)
    following = _NEXT_WORD.match(text, end)
    if following is not None and (_ADJECTIVE.fullmatch(following[1]) is not None or (
            bare.istitle() and bare.isalpha() and following[1].istitle())):
        return False  # "SHA-256 hashed", "2024 compliant", "Release Signing Key": a name
    if _PARAMETER.fullmatch(bare) is not None:
        return prose_value_is_secret(bare, quoted=False, pin=False)  # "min_length=12"
    # a lower-case word the sentence goes on after, or an adjective's or participle's
    return not (bare.isascii() and bare.islower() and bare.replace("-", "").isalpha() and (
        (_ADJECTIVE.fullmatch(bare) is not None and last not in _NUMBER_WORDS)
        or _GOES_ON.match(text, end) is not None))


def _number_unit(text: str, end: int) -> bool:
    """Whether a number's unit follows ``end`` ("16 characters", "90 days", "8 位")."""
    after = text[end:end + 24].strip().lower()
    return after.startswith(("char", "day", "week", "month", "year", "hour", "minute", "min",
                             "second", "sec", "byte", "bit", "digit", "letter", "time",
                             "attempt", "try", "tries", "word", "symbol", "位", "版", "个", "個",
                             "天", "月", "年", "次", "字"))
