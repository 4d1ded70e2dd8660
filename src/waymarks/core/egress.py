"""Egress: the one way stored text leaves Waymarks for a model.

Every path that puts stored or captured text in front of a model — a plan's pins, memory,
personal index, engineering docs and earlier turns; the recall digest; tool results,
previews and personal entries fetched on demand — renders that text through an
:class:`Egress` built for the destination provider. It always does all of this, in this
order:

1. *classification*: an item's level is its explicit classification raised by its inline
   markers (:func:`waymarks.core.privacy.classify`); it never goes down;
2. *admission*: an item whose level the provider may not receive is not sent at all (the
   caller records it by ID, never by content); inside an admitted item, spans the
   provider may not receive become ``WITHHELD``;
3. *markers*: every working marker tag is removed;
4. *credentials*: for a remote provider, credential-like values are redacted
   (:mod:`waymarks.core.secrets`); local providers receive allowed text exactly;
5. *quoting*: :func:`quote` makes the text one JSON string that can neither span nor
   start a line, so stored text cannot close the block it is quoted in (a whole JSON
   document, as a learning request sends, through :func:`json_document`).

What must stay true: no function outside this module turns stored text into
model-facing text by itself. Renderers take an ``Egress`` and call :meth:`Egress.quoted`
(or :meth:`Egress.text` and then :func:`quote`/:func:`json_line`). The hostile-input
property test of ``tests/privacy/test_egress_paths.py`` runs every path for a remote
provider and checks that no credential or withheld span survives.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import msgspec

from waymarks.core.c_json import dumps
from waymarks.core.lazy_re import lazy
from waymarks.core.marked_filter import filter_text
from waymarks.core.privacy import (
    LEVELS,
    WITHHELD,
    Classification,
    ProviderPolicy,
    classify,
    has_markers,
    is_level,
    levels_up_to,
    normalize_provider,
)
from waymarks.core.secrets import find_secrets, redact


def json_line(value: object) -> str:
    """``value`` as compact JSON on exactly one line, under every line-splitting rule, with
    nothing that can act on a terminal or reorder what is shown: the characters JSON leaves
    as they are that are controls or format characters (C1 controls such as the 8-bit CSI
    and NEL, directional overrides, zero-width characters, U+2028, U+2029, a lone
    surrogate) are written as ``\\uXXXX`` (the same decoded value). Spaces other than
    ASCII's (no-break, ideographic) are text, and stay as they are."""
    return _escape_unsafe(dumps(value))  # (json's, without importing the package)


def json_document(value: object, indent: int = 1) -> str:
    """``value`` as indented JSON for a model to read (a learning request's document, a
    tool result's text): the same characters as :func:`json_line` are escaped, so the only
    line breaks are JSON's own and stored text inside it can neither start a line nor
    reorder what is read."""
    import json

    return _escape_unsafe(json.dumps(value, ensure_ascii=False, indent=indent))


def escaped(value: object) -> object:
    """JSON data with every string (keys too) holding what :func:`json_line` writes for the
    characters it escapes (``\\u2028`` as those six characters): structured data a client
    may hand a model as it is (an MCP tool's structured content) reads as its JSON text
    does, with no raw line separator, directional override or C1 control in it."""
    if isinstance(value, str):
        return _escape_unsafe(value)
    if isinstance(value, dict):
        return {escaped(k): escaped(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escaped(v) for v in value]
    return value


def _escape_unsafe(text: str) -> str:
    if text.isprintable():  # nearly always, for one line: one pass in C
        return text
    return _UNSAFE.sub(_escaped, text)


#: the controls (Cc past C0: DEL, C1), format characters (Cf), line and paragraph
#: separators (Zl, Zp) and surrogates (Cs) of Unicode 15 that JSON writes raw
_UNSAFE: Final = lazy(
    "[\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]")


def _escaped(match: re.Match[str]) -> str:
    """A code point as JSON's ``\\uXXXX`` (a surrogate pair above the BMP)."""
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def quote(text: str) -> str:
    """``text`` as one JSON string that cannot span or start a line."""
    return json_line(text)


#: the digits of the IDs Waymarks makes (UUIDs; hex entry, claim and source IDs): no
#: credential rule matches one (a git SHA, a UUID, sha256 hex stay:
#: tests/privacy/test_ident.py), and none holds a marker or a character that needs escaping
_HEX: Final = "0123456789abcdef"


def _made_shape(value: str) -> bool:
    """1-64 lower-case hex digits, or a UUID's 8-4-4-4-12 of them (string methods, not a
    regular expression: one fewer compiled by every prompt's hook, ~1.1M instructions)."""
    if not value.strip(_HEX):
        return 0 < len(value) <= MADE_ID_CHARS
    return (len(value) == 36 and value.count("-") == 4
            and value[8] == value[13] == value[18] == value[23] == "-"
            and not value.replace("-", "").strip(_HEX))


def made_id(value: str) -> bool:
    """Whether ``value`` has the shape of an ID Waymarks makes (:func:`_made_shape`), so
    the common case of every ID rule (shown bare, logged as it is) costs no egress pass.
    The answer is kept per value (a plan names the same fifty pins' IDs, and its
    manifest's, prompt after prompt); none is longer than 64 characters."""
    if len(value) > MADE_ID_CHARS:
        return False
    known = _MADE.get(value)
    if known is None:
        if len(_MADE) >= MADE_MEMO:
            _MADE.clear()
        known = _MADE[value] = _made_shape(value)
    return known


#: the longest ID :func:`made_id` takes (64 hex digits; a UUID is 36 characters)
MADE_ID_CHARS: Final = 64
#: answers of :func:`made_id` kept, at most (a value, its answer: a few MB at most)
MADE_MEMO: Final = 16_384
_MADE: Final[dict[str, bool]] = {}


class Egress(msgspec.Struct, frozen=True):
    """What one destination may receive, and how stored text is made fit for it."""

    provider: str
    allowed: frozenset[str]
    #: redact credential-like values (remote destinations, unless the policy says not)
    redacts: bool = True
    #: the level of an item that has no classification (``defaultClassification``)
    default_level: Classification = "normal"

    @classmethod
    def to(cls, policy: ProviderPolicy, provider: str) -> Egress:
        """The egress for ``provider`` under ``policy``."""
        return cls(normalize_provider(provider), frozenset(policy.allowed(provider)),
                   policy.redacts(provider), policy.default_classification)

    def level(self, text: str, explicit: str | None = None) -> Classification:
        """The level of ``text`` as a whole: ``explicit`` (or the default level, for an
        item that has none) raised by its markers."""
        return classify(text, explicit or self.default_level)

    def admits(self, level: str) -> bool:
        """May this destination receive an item of ``level``?"""
        return level in self.allowed

    def refused(self, levels: Iterable[str]) -> str | None:
        """The first of ``levels`` (in lattice order) this destination may not receive;
        ``None`` when it may receive each. For text that is under several levels at once
        (a docs passage inside spans that run across headings): under an exact allow list
        (``["normal", "sensitive"]``) the highest of them is not enough to decide."""
        wanted = set(levels)
        return next((level for level in (*LEVELS, *sorted(wanted - set(LEVELS)))
                     if level in wanted and not self.admits(level)), None)

    def admits_all_up_to(self, level: str) -> bool:
        """May this destination receive every level at or below ``level``? For text whose
        marked spans were folded into one level (captured sources, learned claims), that
        level is a ceiling, not the class of every span in it: under exact allow lists
        (``["normal", "sensitive"]``) an ``internal`` span must not ride on ``sensitive``."""
        return is_level(level) and levels_up_to(level) <= self.allowed

    def text(self, stored: str, explicit: str | None = None) -> str | None:
        """``stored`` as the destination may see it (steps 2-4); ``None`` when nothing of
        it may be sent. Callers decide admission of the whole item first."""
        shown = filter_text(stored, self.allowed, explicit or self.default_level).text
        if shown is None or not self.redacts:
            return shown
        return redact(shown)[0]

    def typed(self, typed: str) -> str:
        """Text a person typed for this request (a plan's ``request`` message, a curation
        prompt's candidate) as this destination may receive it: as typed where nothing of
        it is withheld and nothing is redacted (a local provider admitting every level it
        is under: its markers stay, as the person wrote them); otherwise through
        :meth:`text`, its spans above the destination's levels ``WITHHELD``, its markers
        removed, its credentials redacted (``WITHHELD`` when nothing of it may be sent).
        Unquoted: it is the person's own turn, not stored data."""
        if not self.redacts and self.admits_all_up_to(self.level(typed)):
            return typed
        return self.text(typed) or WITHHELD

    def redacts_in(self, stored: str) -> bool:
        """Whether this destination would see a credential of ``stored`` redacted (so
        anything derived from ``stored``, such as a memory's key, must not be shown)."""
        return self.redacts and bool(find_secrets(stored))

    def label(self, stored: str) -> str:
        """A stored name that labels an item (a personal entry's slug, which a person may
        have chosen by hand; an ID or origin read from a ledger) as this destination may
        see it, filtered as the item's text is: spans it may not receive withheld, markers
        removed, credentials redacted (``WITHHELD`` when nothing of it may be sent).
        Unquoted: the caller puts it in JSON or quotes it."""
        if has_markers(stored):  # a local-only span in an ID went out with it
            return self.text(stored) or WITHHELD
        return redact(stored)[0] if self.redacts else stored

    def quoted(self, stored: str, explicit: str | None = None) -> str | None:
        """:meth:`text` as one quoted JSON string; ``None`` when nothing may be sent."""
        shown = self.text(stored, explicit)
        return None if shown is None else quote(shown)
