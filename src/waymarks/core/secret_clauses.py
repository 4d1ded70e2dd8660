"""A credential's noun, a clause about it, then a colon and its value: "the master password
for the archive db on the old file server: Kite-Rain-Oak-5", "the BMC password on shelf 3
is written on the label: BMC7Q2ZX8K". The prose rule (:mod:`waymarks.core.secret_prose`)
reads up to five words after "for", "of" or "on" before its colon, and no verb there: each
such value went to a remote model in clear.

After a password's, passphrase's, passcode's, token's, secret's or a named key's noun, a
word that opens a clause about it (a preposition, "that"/"which", a pronoun, "is"/"was"),
up to eleven more words with no sentence or clause punctuation between (``.``, ``,``,
``;``, ``:``, ``!``, ``?``), a colon, and a value that reads as a credential by its shape
alone: strong (:func:`waymarks.core.secret_values.prose_value_is_secret`) or parts joined
by ``-``/``_`` with capitals, small letters and digits
(:func:`waymarks.core.secret_prose.joined_password`). Not denied by default: the clause
may say anything, so a word, a path, a URL, a date or a version after its colon stays; so
does a step's heading ("Reset the password for the admin account: Admin-Portal-2"). Part
of the rule table of :mod:`waymarks.core.secret_rules`.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

#: the nouns (the prose rule's, but a bare "pass", "pw" and a PIN: a clause after them is
#: as often a ticket's or a compiler's round, or Waymarks' own pins)
_KEY_QUALIFIERS: Final = ("api", "access", "secret", "private", "signing", "encryption",
                          "master", "deploy")
_NOUN: Final = (r"(?:(?<![A-Za-z])(?:passwor[dt]|passwd|passphrase|passcode|pwd|token|secret)"
                # (tried at its needle: a key's noun looks behind for its qualifier)
                r"|key(?:" + "|".join(f"(?<=(?<![A-Za-z]){q}{gap}key)" for q in _KEY_QUALIFIERS
                                      for gap in ("", " ", "_", "-")) + r"))s?")
#: the words that open a clause about the noun
_OPENERS: Final = ("for", "of", "on", "in", "at", "from", "to", "that", "which", "we", "you",
                   "i", "is", "was", "are", "were")
#: a word of the clause: no space, no clause punctuation (a dotted name, ``db.prod``, is one)
_WORD: Final = r"[^\s.,;:!?]{1,40}(?:\.[^\s.,;:!?]{1,40}){0,3}"
FAR_COLON: Final = Rule("prose_far", "secret", lazy(
    _NOUN + r"[ \t]+(?:" + "|".join(_OPENERS) + r")(?:[ \t]+" + _WORD + r"){0,11}?[ \t]*:"
    r"[ \t]*(?P<prose_far>[!#-&(-9;-~]{6,64}?)(?=[.,;)]*(?:\s|\Z))",
    re.ASCII | re.IGNORECASE),
    ("pass", "pwd", "token", "secret", "key"), folded=True, anchored=True, wrapper=True,
    guard=":")

#: a clause that starts with a verb of setting or asking: a step's heading before the colon
_HEADING: Final = lazy(r"(?:\A|[.;!?\n][ \t]*)(?:reset|change|rotate|set|update|enter|type"
                       r"|create|choose|pick|generate)[ \t][^.;!?\n]*\Z",
                       re.ASCII | re.IGNORECASE)


#: a clause saying where the credential is kept, who or what made it or what it is named
#: after: its colon opens a place's, a person's or an item's name ("was added by:
#: Jane-Doe-42", "is kept on the host: Web-Prod-01", "in 1Password under: Prod-DB-Admin2"),
#: not the credential (one written or printed there is: "is written on the label: …")
_NAMES_ITS_PLACE: Final = lazy(
    r"(?<![A-Za-z])(?:kept|stored|saved|held|lives?|located|hosted|added|created|generated"
    r"|made|issued|owned|managed|named|called|referenced|listed|found|under|by)(?![A-Za-z])",
    re.ASCII | re.IGNORECASE)


def far_value_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the value :data:`FAR_COLON` matched reads as a credential by its shape: a
    strong one after any clause, one joined of parts (``Kite-Rain-Oak-5``) only after a
    clause that does not name where it is kept or who made it (:data:`_NAMES_ITS_PLACE`),
    where such a value is a host's, a person's or an item's name."""
    from waymarks.core.secret_prose import joined_password
    from waymarks.core.secret_values import prose_value_is_secret

    text = match.string
    if _HEADING.search(text, max(0, match.start() - 64), match.start()) is not None:
        return False
    value = text[start:end]
    if value.isdigit() and not match.group(0).lower().startswith(("pass", "pwd")):
        return False  # "tokens for the model in this run: 128000": a count
    if prose_value_is_secret(value, quoted=False, pin=False):
        return True
    return joined_password(text, value, end) \
        and _NAMES_ITS_PLACE.search(text, match.start(), start) is None


#: a password changed from one value to another: the old value ("the wifi password changed
#: from autumn31 to autumn32", "changed the vpn password from Xq9-Lm2 to …"). Only the new
#: one went: the old is often still valid somewhere (another host, a cached login, a
#: replica not yet rotated). A value with no spaces, then "to"
_FROM_HEAD: Final = (
    r"(?<![A-Za-z])(?:passwor[dt]|passwd|passphrase|passcode|pwd|pw)s?(?![A-Za-z])"
    r"(?:[ \t]+(?:was|is|has been|had been|got))?"
    r"(?:[ \t]+(?:changed|rotated|reset|updated|switched|moved|went))?[ \t]+from[ \t]+")
FROM_VALUE: Final = Rule("prose_from", "secret", lazy(
    _FROM_HEAD + r"[\"'`]?(?P<prose_from>[!#-&(-~]{4,64}?)[\"'`]?[ \t]+to[ \t]",
    re.ASCII | re.IGNORECASE), ("pass", "pw"), folded=True, anchored=True, wrapper=True)
#: and the new one, after the same head ("rotated … from A to B", "went from A to B": the
#: prose rule's verbs are set, changed, reset, updated and rotated right before "to")
FROM_TO_VALUE: Final = Rule("prose_from_to", "secret", lazy(
    _FROM_HEAD + r"[\"'`]?[!#-&(-~]{4,64}?[\"'`]?[ \t]+to[ \t]+[\"'`]?"
    r"(?P<prose_from_to>[!#-&(-~]{4,64}?)[\"'`]?(?=[.,;:)!?]*(?:\s|\Z))",
    re.ASCII | re.IGNORECASE), ("pass", "pw"), folded=True, anchored=True, wrapper=True)


def old_value_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the old value :data:`FROM_VALUE` matched is a password: as the new one would
    be after "the password is" (a plain lower-case word, "from weekly to monthly", stays)."""
    from waymarks.core.secret_deny import password_is_denied
    from waymarks.core.secret_prose import joined_password, stated_password
    from waymarks.core.secret_values import prose_value_is_secret

    text, value = match.string, match.string[start:end]
    if stated_password(text, value, len(text)) or joined_password(text, value, len(text)) \
            or prose_value_is_secret(value, quoted=False, pin=False):
        return True
    if (value.isalpha() and value.islower()) or value.lower().startswith(("the", "a ")):
        return False
    return bool(password_is_denied(text, value, end, quoted=False))
