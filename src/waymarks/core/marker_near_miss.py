"""Text that looks like a classification marker but is not one: a person who wrote
``[ds4: local-only]`` or ``[ds4:local_only]`` meant to classify the span, and nothing did
(:mod:`waymarks.core.privacy` defines the working markers).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import tag_spans
from waymarks.core.text import INVISIBLE

#: what a person may have meant as a marker: brackets of any width, spaces, ``_`` or ``-``
#: in ``local-only``, any case, invisible characters removed first (see near_miss_markers)
_LOOSE_MARKER: Final = lazy(
    r"[\[({<]\s*/?\s*ds\s*4\s*[:;=_-]?\s*(?:normal|internal|sensitive|local[\s_-]*only)"
    r"\s*[\])}>]", re.IGNORECASE)


def near_miss_markers(text: str) -> int:
    """How many things in ``text`` look like a classification marker but are not one
    (``[ds4: local-only]``, ``[ds4:local_only]``, fullwidth brackets, a zero-width space
    inside): they classify nothing, so a write should say so."""
    if "4" not in text and "４" not in text:
        return 0
    import unicodedata  # here, not at import: only a text holding a "4" needs it

    loose = INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    tags = len(tag_spans(text, escaped=True))  # working and escaped tags are real markers
    return max(0, len(_LOOSE_MARKER.findall(loose)) - tags)
