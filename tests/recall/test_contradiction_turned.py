"""A state said by a verb of turning or switching mid-clause ("We turned on query caching
in production."), and whether data is encrypted as a state ("encrypted at rest" /
"encrypted in transit"): held-out pairs of ``benchmarks/conflict_pairs.json`` (tags
``heldout-s66`` and ``heldout-s67``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.claim_words import subject_terms
from waymarks.service.app import Waymarks

#: a claim | the opposite state (refused) | the same state said otherwise (written)
TURNED = """
We turned on query caching in production. | Query caching is disabled in production. \
| Query caching is enabled in production.
Rate limiting is enabled in production. | We switched off rate limiting in production. \
| Rate limiting is turned on in production.
The disk of the build cache is encrypted. | The disk of the build cache is unencrypted. \
| The disk of the build cache is encrypted with KMS.
User uploads are encrypted at rest. | User uploads are stored in plaintext. \
| User uploads are encrypted in transit.
"""


@pytest.mark.parametrize("line", TURNED.strip().splitlines())
def test_a_state_turned_mid_clause_is_the_state(app: Waymarks, line: str) -> None:
    """"on" was a state only ending its clause: "turned on query caching" stated none, and
    "… is turned on in production." was refused beside "… is enabled in production." by
    the replay rule's shared key."""
    refused_beside_first(app, line)


def test_encrypted_at_rest_and_in_transit_are_two_facts(app: Waymarks) -> None:
    """No state read, the replay rule's shared key refused the second beside the first."""
    kept = _written(app, "User uploads are encrypted at rest.").id
    assert _written(app, "User uploads are encrypted in transit.").id != kept


def test_rest_is_a_word_of_the_subject_but_at_rest() -> None:
    """"at rest" is where data is stored; "the REST API" names a thing."""
    assert "rest" in subject_terms("the rest api listens on 8080")
    assert "rest" not in subject_terms("user uploads are encrypted at rest")
