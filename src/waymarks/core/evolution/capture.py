"""What capture keeps (EVOLUTION items 9, 10): sanitizing, and telling statements apart.

Capture never calls a model. It decides locally, and conservatively, which user text is
worth a consolidation call:

- :func:`sanitize` makes text fit to be stored as a source: ``local-only`` spans are
  withheld (they never reach the evolution ledger, so never a model), working markers are
  removed (the highest level left is kept as the source's classification), credentials are
  redacted by the existing secret rules (and the routes' own keys, which no rule knows:
  :func:`without_values`), and the result is bounded;
- :func:`~.cues.is_statement` (own module: cheap on a hook's path) tells the person's
  statements apart from recall questions, quoted examples and one-off instructions;
- :func:`summary_claims` pulls up to 16 bullet claims from recognised headings of a
  compaction summary (evidence ``summary/local``), surviving nested fences and headings.

Only *user* text is ever passed here; assistant and tool text never becomes a preference.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.evolution.cues import MAX_STATEMENTS as MAX_STATEMENTS
from waymarks.core.evolution.cues import is_statement
from waymarks.core.evolution.model import MAX_CONTENT, MIN_CONTENT, utf16_len
from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import (
    LEVELS,
    OMITTED,
    WITHHELD,
    Classification,
    highest,
    parse_marked,
)
from waymarks.core.secrets import PLACEHOLDER_PREFIX, redact
from waymarks.core.text import clip_utf8

MAX_SOURCE_BYTES: Final = 32_000
MAX_SUMMARY_CLAIMS: Final = 16
_SENDABLE: Final = frozenset(LEVELS) - {"local-only"}
#: what Waymarks itself writes in place of text: a redaction, text a policy withheld from
#: the destination, an item left out (a claim holding one says nothing learned)
PLACEHOLDERS: Final = (PLACEHOLDER_PREFIX, WITHHELD, OMITTED)
#: what a route's own key becomes in a source (a placeholder as the secret rules write)
ROUTE_KEY_PLACEHOLDER: Final = f"{PLACEHOLDER_PREFIX}route-key]"


def without_values(text: str, values: frozenset[str]) -> str:
    """``text`` with each of ``values`` (the routes' own API keys, current values of their
    ``keyEnv`` variables) replaced by :data:`ROUTE_KEY_PLACEHOLDER`, longest first."""
    for value in sorted(values, key=len, reverse=True):
        if value and value in text:
            text = text.replace(value, ROUTE_KEY_PLACEHOLDER)
    return text


def sanitize(text: str, default: Classification = "normal", *,
             secrets: frozenset[str] = frozenset()) -> tuple[str, Classification] | None:
    """``text`` fit to store as a source, and its classification; ``None`` when nothing
    is left (all of it local-only, or blank). ``default``: the level of unmarked text (the
    policy's ``defaultClassification``; ``local-only`` keeps nothing); ``secrets``: values
    that are credentials here though no rule knows their shape (the routes' keys)."""
    marked = parse_marked(text, default)
    level: Classification = default if default in _SENDABLE else "normal"
    parts: list[str] = []
    withheld = False
    for segment in marked.segments:
        if segment.level in _SENDABLE:
            parts.append(segment.text)
            level = highest(level, segment.level)
            withheld = False
        elif not withheld:
            parts.append(" ")
            withheld = True
    kept = "".join(parts).strip()
    if not kept:
        return None
    clean, _count = redact(without_values(kept, secrets))
    return clip_utf8(clean, MAX_SOURCE_BYTES), level


def holds_placeholder(claim: str) -> bool:
    """Whether ``claim`` holds one of :data:`PLACEHOLDERS` (its credential redacted when it
    was sanitized): such a claim says nothing learned, and is kept nowhere as a claim."""
    return any(mark in claim for mark in PLACEHOLDERS)


def statements(user_texts: list[str]) -> list[str]:
    """The user texts that are statements, bounded (the last ``MAX_STATEMENTS``)."""
    return [t.strip() for t in user_texts if is_statement(t)][-MAX_STATEMENTS:]


_HEADING: Final = lazy(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_RECOGNISED: Final = lazy(
    r"decision|preference|fact|requirement|constraint|convention|state|status|progress|"
    r"learned|remember|决定|偏好|事实|需求|约束|状态|进展", re.IGNORECASE)
_BULLET: Final = lazy(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")
_FENCE: Final = lazy(r"^\s*(`{3,}|~{3,})")


def summary_claims(summary: str) -> list[str]:
    """Bullet lines under recognised headings of a compaction summary (at most 16, each
    4-800 UTF-16 units), ignoring anything inside code fences (nested fences included:
    a fence closes only with the same character, at least as long). A bullet holding one
    of :data:`PLACEHOLDERS` (its credential redacted by :func:`sanitize`) is no claim, as
    a model's claim holding one is refused: it was kept, and injected into plans."""
    out: list[str] = []
    fence: str | None = None
    under = False
    for line in summary.splitlines():
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence) \
                    and not line.strip()[len(opener.group(1)):].strip():
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        heading = _HEADING.match(line)
        if heading:
            under = bool(_RECOGNISED.search(heading.group(2)))
            continue
        bullet = _BULLET.match(line)
        if under and bullet:
            claim = bullet.group(1).strip()
            if (MIN_CONTENT <= utf16_len(claim) <= MAX_CONTENT and claim not in out
                    and not holds_placeholder(claim)):
                out.append(claim)
                if len(out) >= MAX_SUMMARY_CLAIMS:
                    break
    return out
