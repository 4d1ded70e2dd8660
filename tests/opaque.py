"""What a test reads when it asserts that an answer does not say something: the answer's
text with its opaque values masked.

A revision token ends in 22 random base64 characters, an item's or a learned claim's ID is
random hex, a source reference random base64, a temporary folder's name has a random suffix:
any short word turns up in them by chance. ``"k8s" not in json.dumps(results)`` failed stop
61's landing CI on a revision's ``…_k8sjJu…`` (about one run in a thousand); ``"8080"`` is in
one random 24-hex ID of 3,000. A test that asserts a word is absent reads :func:`content`: the
same text, every such value replaced by :data:`MASK`, so only what was said is searched. What
is masked is a whole token of a shape no sentence has (a word inside prose, ``port 8080``, a
``k8s`` cluster, stays), and what a test passes itself (its temporary folder's path).
"""

from __future__ import annotations

import json
import re
from typing import Any

MASK = "<opaque>"

#: revision tokens (r1.<expiry>.<leaf digest>.<MAC>), source references, UUIDs, and runs of
#: 8 hex digits or more (entry and claim IDs, digests), each as a whole token
OPAQUE = re.compile(
    r"\br1\.[0-9a-z]+\.[0-9a-f]{8}\.[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])"
    r"|\bsrc_[A-Za-z0-9_-]{16}(?![A-Za-z0-9_-])"
    r"|(?<![0-9A-Za-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])"
    r"|(?<![0-9a-f])[0-9a-f]{8,}(?![0-9a-f])")


def content(answer: Any, *known: str) -> str:
    """``answer`` (a text, or anything JSON takes) as text, its opaque values and each of
    ``known`` (a temporary path the test made) replaced by :data:`MASK`."""
    text = answer if isinstance(answer, str) else json.dumps(answer)
    for value in sorted(known, key=len, reverse=True):
        text = text.replace(value, MASK)
    return OPAQUE.sub(MASK, text)
