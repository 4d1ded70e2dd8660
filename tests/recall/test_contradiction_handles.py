"""A handle or a channel named by its sigil is a value by its shape
(``core/claim_word_values.py``): "alerts now go to #sre-pager" was written beside "alerts
go to #ops-alerts" (the channel's words were subject words, so the subjects differed; a
pair of ``benchmarks/conflict_pairs_registers.json``). The second pair was written after
the change."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import second_refused_or_written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("alerts go to #ops-alerts", "alerts now go to #sre-pager", True),
    ("Deploy notifications go to #deploys.", "Deploy notifications go to #release-notes.", True),
    # look-alikes: another thing's channel, a narrower thing, a language's name, addresses
    ("Deploy notifications go to #deploys.", "Incident alerts go to #incidents.", False),
    ("Questions go to #help-infra.", "Questions about billing go to #help-billing.", False),
    ("C# services use .NET 8.", "C# services are in the monorepo.", False),
    ("Mail ops@example.com for access.", "Mail sre@example.com for paging.", False),
])
def test_a_handle_or_a_channel_is_a_value(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    second_refused_or_written(app, first, second, conflict)
