"""The recall index's postings: the FTS5 term standing for each analysed feature
(:func:`token`), and the per-call memo of them :meth:`~waymarks.store.recall_index.
RecallIndex.add` keeps (moved out of :mod:`waymarks.store.recall_index`, at the 600-line
cap)."""

from __future__ import annotations

from typing import Final

from waymarks.core.digests import blake2b

#: bound of the per-call memo of feature tokens
TOKEN_MEMO: Final = 1_000_000


def token(feature: str) -> str:
    """The FTS5 term standing for a feature."""
    return "t" + blake2b(feature.encode(), digest_size=8).hexdigest()


def _memo_token(tokens: dict[str, str], feature: str) -> str:
    """:func:`token`, kept in ``tokens`` while it holds fewer than ``TOKEN_MEMO``."""
    term = token(feature)
    if len(tokens) < TOKEN_MEMO:
        tokens[feature] = term
    return term
