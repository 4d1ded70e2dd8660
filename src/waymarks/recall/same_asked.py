"""Two things joined, each said with the same attribute: "where is the gateway config and
the billing config?" asks the config of the gateway and that of billing.

The plan reads words joined by "and", "or", a comma or "&" to an attribute as asks of one
subject ("which deploy host and key?": the deploy's host and its key), so "config and the
billing" made billing a second ask of the gateway, and a claim naming the gateway and
billing ("The gateway routes /api/billing to the billing service.") answered it, while
"The billing config lives in …", which does not name the gateway, did not. Read as "the
gateway and the billing config", the two are subjects joined (:attr:`~waymarks.recall.
scoring.QueryPlan.co_subjects`), each asked the attribute
(:func:`~waymarks.recall.gates.query_facts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.analysis import word_feature
from waymarks.recall.vocabulary import ATTRIBUTES

if TYPE_CHECKING:
    import re

#: two things joined, each with the same word after it ("the gateway config and the
#: billing config")
_SAME_ASKED: Final = lazy(
    r"\b([^\W_]+)\s+([^\W_]+)(\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+|\s*&\s*)"
    r"((?:the\s+|its\s+|their\s+)?[^\W_]+)\s+\2\b")


def one_ask_each(folded: str) -> str:
    """The folded question with "X config and the Y config" read "X and the Y config"
    when the word said twice is an attribute (:data:`~waymarks.recall.vocabulary.
    ATTRIBUTES`)."""
    return _SAME_ASKED.sub(_one_ask, folded)


def _one_ask(match: re.Match[str]) -> str:
    if word_feature(match.group(2)) not in ATTRIBUTES:
        return match.group(0)
    return f"{match.group(1)}{match.group(3)}{match.group(4)} {match.group(2)}"
