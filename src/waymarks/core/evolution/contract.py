"""The model's output contract for consolidation (EVOLUTION item 50).

A reply is one JSON object ``{"claims": [...]}`` (one outer code fence tolerated), at most
64,000 bytes, with at most 16 claims. Each claim has exactly the fields ``kind`` (one of
:data:`~.model.KINDS`), ``content`` (4-800 UTF-16 units), optionally ``replaces`` (the ID of a
record the request offered: a learned claim's 24 hex digits, in either case, or a pin's or
memory's UUID) and ``searchTerms`` (at most 8 strings of 2-64 characters, at
most 1,024 bytes as JSON). Anything else rejects the *whole* batch as ``invalid_output``
with the rule named, so a half-understood reply never writes half its claims. In particular
a reply that carries ``evidence``, ``confidence``, ``verification`` or ``feedback`` is
rejected: those are the host's to assign, never the model's. A claim's content and terms
are kept as one plain line (``core.text.one_line``): control characters (line breaks, a
terminal's ESC) become spaces and invisible format characters (a directional override, a
zero-width space) are dropped before the length rules apply.

The rule names are fixed strings (safe to persist and show); model text never is. A
``replaces`` of any other shape (a sentence, a key the model echoed) is ``bad_replaces``:
it was recorded verbatim as a refusal's target in the append-only ledger.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final

from waymarks.core.evolution.model import KINDS, MAX_CONTENT, MIN_CONTENT, utf16_len
from waymarks.core.text import is_unicode, one_line

MAX_REPLY_BYTES: Final = 64_000
MAX_CLAIMS: Final = 16
MAX_TERMS: Final = 8
MIN_TERM: Final = 2
MAX_TERM: Final = 64
MAX_TERMS_BYTES: Final = 1024
_FIELDS: Final = frozenset({"kind", "content", "replaces", "searchTerms"})
#: what ``replaces`` may be: a learned claim's ID (24 hex digits, ``model.claim_id``; typed
#: in either case, kept in lower case) or a pin's or memory item's UUID
_CLAIM_ID: Final = re.compile(r"[0-9a-fA-F]{24}")
_ITEM_ID: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                             r"[0-9a-fA-F]{12}")
#: fields only the host may set: a reply carrying one is rejected
HOST_ONLY_FIELDS: Final = frozenset({"evidence", "confidence", "verification", "feedback"})


@dataclass(frozen=True, slots=True)
class ProposedClaim:
    kind: str
    content: str
    replaces: str | None = None
    search_terms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContractBreak:
    """The reply broke the contract; ``rule`` is a fixed name."""

    rule: str


def parse_reply(text: str) -> list[ProposedClaim] | ContractBreak:
    """The claims of a reply, or the first rule it breaks."""
    if not is_unicode(text):  # half of a surrogate pair: no UTF-8 text (it raised here)
        return ContractBreak("not_text")
    if len(text.encode("utf-8")) > MAX_REPLY_BYTES:
        return ContractBreak("reply_too_large")
    body = _unfence(text.strip())
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return ContractBreak("not_json")
    try:  # an escaped half of a pair, inside a string: no UTF-8 text either
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return ContractBreak("not_text")
    except RecursionError:
        return ContractBreak("not_json")
    if not isinstance(document, dict):
        return ContractBreak("not_an_object")
    if HOST_ONLY_FIELDS & document.keys():
        return ContractBreak("host_only_field")
    if set(document) != {"claims"}:
        return ContractBreak("unknown_field")
    claims = document["claims"]
    if not isinstance(claims, list):
        return ContractBreak("claims_not_a_list")
    if len(claims) > MAX_CLAIMS:
        return ContractBreak("too_many_claims")
    out: list[ProposedClaim] = []
    for item in claims:
        parsed = _claim(item)
        if isinstance(parsed, ContractBreak):
            return parsed
        out.append(parsed)
    return out


def _unfence(text: str) -> str:
    """One outer Markdown code fence removed (```json ... ``` or ``` ... ```)."""
    if not text.startswith("```") or not text.endswith("```") or len(text) < 6:
        return text
    first_line, _, rest = text.partition("\n")
    if first_line.strip("`").strip() not in ("", "json"):
        return text
    return rest[: -3] if rest.endswith("```") else text


def _claim(item: object) -> ProposedClaim | ContractBreak:
    if not isinstance(item, dict):
        return ContractBreak("claim_not_an_object")
    if HOST_ONLY_FIELDS & item.keys():
        return ContractBreak("host_only_field")
    if not set(item) <= _FIELDS:
        return ContractBreak("unknown_field")
    kind, content = item.get("kind"), item.get("content")
    if kind not in KINDS:
        return ContractBreak("bad_kind")
    if not isinstance(content, str) or not content.strip():
        return ContractBreak("bad_content")
    content = one_line(content)  # control and invisible characters: never stored
    if not MIN_CONTENT <= utf16_len(content) <= MAX_CONTENT:
        return ContractBreak("content_length")
    replaces = item.get("replaces")
    if replaces is not None:
        replaces = _record_id(replaces)
        if replaces is None:
            return ContractBreak("bad_replaces")
    terms = item.get("searchTerms", [])
    if not isinstance(terms, list) or len(terms) > MAX_TERMS:
        return ContractBreak("bad_search_terms")
    if not all(isinstance(t, str) for t in terms):
        return ContractBreak("bad_search_terms")
    terms = [one_line(t) for t in terms]
    if not all(MIN_TERM <= len(t) <= MAX_TERM for t in terms):
        return ContractBreak("bad_search_terms")
    if len(json.dumps(terms, ensure_ascii=False).encode("utf-8")) > MAX_TERMS_BYTES:
        return ContractBreak("search_terms_too_large")
    return ProposedClaim(str(kind), content, replaces, tuple(dict.fromkeys(terms)))


def _record_id(value: object) -> str | None:
    """``value`` as the ID of a record, or None when it has no ID's shape."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if _CLAIM_ID.fullmatch(value):
        return value.lower()
    return value if _ITEM_ID.fullmatch(value) else None
