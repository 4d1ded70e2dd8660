"""A question asking how to do a thing to something, and the verb it asks.

"How do I reindex billing?" asks the reindexing of billing: "Reindex search with …" does
another thing's, and "The billing service listens on port 8041." says nothing of a
reindex; both were recalled, each holding one of the two words (the verb, rare in the
store, weighed more than the name and was enough alone). The verb right after "how do I"
(we, you; can, should …) or "how to" is what the question asks of the thing it names, as
an attribute is (:func:`~waymarks.recall.gates.query_facts`): a record must say it and
name the thing.

Read from the question's text when it is planned (:attr:`~waymarks.recall.scoring.
QueryPlan.action`); records are not re-indexed for it.
"""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.analysis import word_order

#: "how do I", "how can we", "how should you", "how to", and the word after them
_HOW_TO: Final = lazy(
    r"^\W*(?:(?:and|so|but|ok|okay|then)\W+)?how\s+(?:(?:do|does|did|can|could|should|would"
    r"|will|shall|must)\s+(?:i|we|you|one)|to)\s+([a-z][a-z-]*)\b")


def action_asked(folded: str) -> str | None:
    """The feature of the verb a folded question asks how to do ("how do I restart
    ingest?": ``"w:restart"``), or ``None``: no such question, or a verb no feature holds
    (a stop word, "get"; filler, "use")."""
    if "how" not in folded:
        return None
    match = _HOW_TO.match(folded)
    if match is None:
        return None
    features = word_order(match.group(1))
    return features[0] if len(features) == 1 else None
