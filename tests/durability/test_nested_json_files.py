"""The JSON files Waymarks writes for itself, found nested past what the decoder can
follow (``[[[[...``: damage, or a hostile hand), give the answer a damaged file gives: a
clear refusal for the trust list, "nothing recorded" for the derived notes. Decoding one
raised ``RecursionError``, which escaped as a traceback from every command."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.service.evolution_notes import host_route_path, last_capture_path
from waymarks.service.evolution_observe import last_capture
from waymarks.service.evolution_status import host_route
from waymarks.service.outcomes import ServiceError
from waymarks.service.semantic_backfill import PROGRESS_FILE, progress
from waymarks.service.trust import TRUST_FILE, TrustStore

NESTED = "[" * 200_000


def _nested(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(NESTED, encoding="utf-8")


def test_a_nested_trust_list_is_refused_clearly(tmp_path: Path) -> None:
    _nested(tmp_path / TRUST_FILE)
    with pytest.raises(ServiceError) as refused:
        TrustStore(tmp_path).projects()
    assert refused.value.code == "bad_trust_file" and "fix or remove it" in str(refused.value)


def test_nested_derived_notes_read_as_nothing_recorded(tmp_path: Path) -> None:
    _nested(last_capture_path(tmp_path))
    _nested(host_route_path(tmp_path))
    _nested(tmp_path / PROGRESS_FILE)
    assert last_capture(tmp_path) is None
    assert host_route(tmp_path) is None
    assert progress(tmp_path) is None
