"""The recall index's postings: the FTS5 term standing for each analysed feature
(:func:`token`), and what :meth:`~waymarks.store.recall_index.RecallIndex.add` keeps for
one call (:class:`Memo`): each text's analysis and postings (:func:`analysed`), each
feature's term (moved out of :mod:`waymarks.store.recall_index`, at the 600-line cap)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from waymarks.core.digests import blake2b

if TYPE_CHECKING:
    from waymarks.recall.analysis import Analysis

#: bound of the per-call memo of feature tokens: the common words come early and stay; a
#: million claims' one-off words (build numbers and the like) were a memo of 630k terms,
#: about 100 MB of a rebuild's peak, none of them asked for again
TOKEN_MEMO: Final = 65_536
#: bound of the per-call memo of analysed texts, emptied when full: a fork's copy of a
#: claim sits beside the original in replay order, and a repeated claim is a recent one
TEXT_MEMO: Final = 4096


def token(feature: str) -> str:
    """The FTS5 term standing for a feature."""
    return "t" + blake2b(feature.encode(), digest_size=8).hexdigest()


def _memo_token(tokens: dict[str, str], feature: str) -> str:
    """:func:`token`, kept in ``tokens`` while it holds fewer than ``TOKEN_MEMO``."""
    term = token(feature)
    if len(tokens) < TOKEN_MEMO:
        tokens[feature] = term
    return term


class Memo:
    """What :meth:`~waymarks.store.recall_index.RecallIndex.add` keeps for one call: each
    text's :func:`analysed` (at most :data:`TEXT_MEMO`), each feature's :func:`token`.
    (A plain class: a ``NamedTuple``'s annotations are compiled when a process imports
    it, and a prompt's hook imports this module: ``tests/test_lean_paths.py``.)"""

    __slots__ = ("texts", "tokens")

    def __init__(self) -> None:
        self.texts: dict[str, tuple[Any, ...]] = {}
        self.tokens: dict[str, str] = {}


def analysed(text: str, aliases: tuple[str, ...], memo: Memo,
             analyze: Callable[[str], Analysis]) -> tuple[Any, ...]:
    """``text``'s features (by ``analyze``: the index's), its ``aliases``' features, its
    quoted-only features, its postings (its distinct terms, sorted, one string) and how
    many terms those are; kept in ``memo`` when it has no aliases, so a text said by many
    records is analysed once (a claim is about 17 us of a rebuild's recall build)."""
    body = analyze(text)
    alias_features = [f for a in aliases for f in analyze(a).features] if aliases else []
    features, quoted, tokens = body.features, body.quoted, memo.tokens
    get_token = tokens.get
    unique = {get_token(f) or _memo_token(tokens, f)
              for f in ((*features, *alias_features, *quoted) if alias_features or quoted
                        else features)}
    known = (features, alias_features, quoted, " ".join(sorted(unique)), len(unique))
    if not aliases:
        if len(memo.texts) >= TEXT_MEMO:
            memo.texts.clear()
        memo.texts[text] = known
    return known
