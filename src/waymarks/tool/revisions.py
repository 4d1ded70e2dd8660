"""Revision tokens and volatile source references: what makes a targeted write exact.

A revision is an HMAC, under a key that exists only in this process, over the target's
fingerprint, the active session and project, the branch leaf at the time of the read, and
an expiry. A write presents it back; it is accepted only if the target still has that
fingerprint, the session and project are the same, that leaf is still on the active
branch, and it has not expired. A restart changes the key, so every old token fails.

Token grammar: ``r1.<expiry, base 36 ms>.<8 hex: digest of the leaf entry ID>.<22
base64url characters>``. The leaf is digested so that any entry ID shape fits the grammar.
Nothing in it is secret except that only this process can make one.

A source reference (``src_`` + 16 characters) stands in for a session ID in results; the
mapping lives in memory only, bounded in time and count.

Pure apart from the key and reference randomness (``secrets``); time is passed in.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections import OrderedDict
from collections.abc import Collection
from typing import TYPE_CHECKING, Final, Literal

import msgspec

if TYPE_CHECKING:
    from waymarks.core.rules import ItemState
    from waymarks.service.sources import SourceView
    from waymarks.service.views import ItemView

DEFAULT_TTL_MS: Final = 15 * 60 * 1000
SOURCE_REF_TTL_MS: Final = 30 * 60 * 1000
SOURCE_REF_CAP: Final = 256

RevisionProblem = Literal["revision-expired", "revision-mismatch", "context-changed"]


class Context(msgspec.Struct, frozen=True):
    """Where a revision is valid: the active session and project."""

    session_id: str
    project: str


def fingerprint(*fields: object) -> str:
    """A stable digest of the fields that make up an item's (or source's) state."""
    digest = hashlib.sha256()
    for value in fields:
        digest.update(repr(value).encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def leaf_digest(leaf: str | None) -> str:
    return hashlib.sha256((leaf or "").encode("utf-8", "surrogatepass")).hexdigest()[:8]


NO_LEAF: Final = leaf_digest(None)


class Revisions:
    def __init__(self, ttl_ms: int = DEFAULT_TTL_MS, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)
        self.ttl_ms = ttl_ms

    def issue(self, target: str, state: str, context: Context, leaf: str | None,
              now_ms: int) -> str:
        expiry = _base36(now_ms + self.ttl_ms)
        leaf_part = leaf_digest(leaf)
        return f"r1.{expiry}.{leaf_part}.{self._mac(target, state, context, leaf_part, expiry)}"

    def check(self, token: str, target: str, state: str, context: Context,
              branch: Collection[str], now_ms: int) -> RevisionProblem | None:
        """``None`` when ``token`` is a live revision of exactly this target state."""
        try:
            _version, expiry, leaf_part, mac = token.split(".")
            expires = int(expiry, 36)
        except ValueError:
            return "revision-mismatch"
        expected = self._mac(target, state, context, leaf_part, expiry)
        if not hmac.compare_digest(mac, expected):
            return "revision-mismatch"  # forged, another process's, or the target changed
        if expires <= now_ms:
            return "revision-expired"
        if leaf_part != NO_LEAF and leaf_part not in {leaf_digest(e) for e in branch}:
            return "context-changed"  # read on a branch that is no longer the active one
        return None

    def _mac(self, target: str, state: str, context: Context, leaf: str, expiry: str) -> str:
        message = "\x1f".join((target, state, context.session_id, context.project, leaf, expiry))
        raw = hmac.new(self._key, message.encode("utf-8", "surrogatepass"), "sha256").digest()
        return base64.urlsafe_b64encode(raw[:16]).decode().rstrip("=")


class SourceRefs:
    """Opaque, expiring stand-ins for session IDs in model-visible results."""

    def __init__(self, ttl_ms: int = SOURCE_REF_TTL_MS, cap: int = SOURCE_REF_CAP) -> None:
        self.ttl_ms = ttl_ms
        self.cap = cap
        self._refs: OrderedDict[str, tuple[str, int]] = OrderedDict()  # ref -> (session, exp)

    def ref_for(self, session_id: str, now_ms: int) -> str:
        self._expire(now_ms)
        for ref, (known, _expires) in self._refs.items():
            if known == session_id:
                self._refs[ref] = (session_id, now_ms + self.ttl_ms)
                self._refs.move_to_end(ref)
                return ref
        ref = "src_" + secrets.token_urlsafe(12)
        self._refs[ref] = (session_id, now_ms + self.ttl_ms)
        while len(self._refs) > self.cap:
            self._refs.popitem(last=False)
        return ref

    def resolve(self, ref: str, now_ms: int) -> str | None:
        self._expire(now_ms)
        found = self._refs.get(ref)
        return found[0] if found is not None else None

    def _expire(self, now_ms: int) -> None:
        for ref in [r for r, (_s, expires) in self._refs.items() if expires <= now_ms]:
            del self._refs[ref]


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if not number:
            return out


# -- the states a revision fingerprints (items, sources) ---------------------------


def item_state(item_id: str, status: str, superseded_by: str | None, text: str,
               classification: str | None, scope: str, key: str | None) -> str:
    return fingerprint(item_id, status, superseded_by, text, classification, scope, key)


def view_state(view: ItemView) -> str:
    return item_state(view.id, view.status, view.superseded_by, view.text, view.classification,
                      view.scope, view.key)


def projected_state(state: ItemState) -> str:
    return item_state(state.id, state.status, state.superseded_by, state.text,
                      state.item.classification, state.item.scope, state.key)


def source_state(view: SourceView) -> str:
    return fingerprint(view.session_id, view.excluded)
