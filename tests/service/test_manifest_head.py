"""A plan's stored manifest: the pins' entries, the same plan after plan, are compared as
the planner made them and made into JSON only when they changed; what is stored is the
same either way (``manifest``, ``included``, ``excluded`` and ``tokens`` read it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from waymarks.planner.select import ManifestEntry
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.planning import plan_request


def _count_json(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    to_json = ManifestEntry.to_json

    def counted(entry: ManifestEntry) -> dict[str, Any]:
        made.append(entry.kind)
        return to_json(entry)

    monkeypatch.setattr(ManifestEntry, "to_json", counted)
    return made


def _stored(app: Waymarks) -> dict[str, Any]:
    stored = app.projection.last_manifest()
    assert stored is not None and stored.pop("madeAt")  # (when it was made)
    return stored


def test_unchanged_pins_entries_are_not_made_into_json_again(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(keep_recall_index=True)
    for n in range(3):
        assert isinstance(app.pin(f"Rule {n}: keep changes small"), Committed)
    assert isinstance(app.remember("The billing service listens on port 8123"), Committed)
    made = _count_json(monkeypatch)
    first = plan_request(app, "what port does the billing service use?")
    assert made.count("pin") == 3  # the first plan of this process: all of them
    assert _stored(app) == first.manifest_json()
    made.clear()
    again = plan_request(app, "what port does the billing service use?")
    assert made.count("pin") == 0 and made  # only the memory's entries
    stored = _stored(app)
    assert stored == again.manifest_json()
    assert list(stored) == list(again.manifest_json())  # the keys' order too
    assert [e["kind"] for e in stored["entries"]][:3] == ["pin"] * 3
    assert isinstance(app.pin("Rule 3: a new one"), Committed)
    made.clear()
    changed = plan_request(app, "what port does the billing service use?")
    assert made.count("pin") == 4  # the pins changed: made again
    assert _stored(app) == changed.manifest_json()
    assert "Rule 3" not in str(_stored(app))  # (IDs and reasons; never content)
