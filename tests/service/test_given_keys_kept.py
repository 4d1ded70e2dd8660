"""Whether a session may see a claim with a given key (``--key``) is asked of SQLite
once while nothing changes (issue 15): every plan asked, the probe being ~0.05-0.1 ms
of CPU of a plan at 1k memories. A claim keyed by this process, or by another
process, is still found by the next plan."""

from __future__ import annotations

from pathlib import Path

from waymarks.service.app import Waymarks
from waymarks.service.planning import plan_request

PROBE = "instr(record, X'226b6579223a')"
PROMPT = "bump the release-pipeline counter"


def _plan(app: Waymarks) -> tuple[list[str], list[str]]:
    """A plan of :data:`PROMPT`: the IDs it included, and the key probes it ran."""
    statements: list[str] = []
    app.projection.db.set_trace_callback(statements.append)
    try:
        plan = plan_request(app, PROMPT, provider="remote")
    finally:
        app.projection.db.set_trace_callback(None)
    return ([e.id for e in plan.manifest if e.decision == "included"],
            [s for s in statements if PROBE in s])


def test_the_given_key_probe_runs_once_while_nothing_changes(home: Path,
                                                             project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.remember("The staging database listens on port 5433", scope="project")
        for _ in range(2):
            _plan(app)
        included, probes = _plan(app)
        assert probes == []  # (before: one a plan)
        # this process keys a claim whose words are not the request's: the next plan
        # asks again, and puts it in
        keyed = app.remember("Releases go through GitHub Actions.", scope="project",
                             key="release-pipeline")
        assert keyed.id is not None
        included, probes = _plan(app)
        assert keyed.id in included and len(probes) == 1
        _, probes = _plan(app)
        assert probes == []


def test_a_key_given_by_another_process_is_found(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.remember("The staging database listens on port 5433", scope="project")
        for _ in range(3):
            included, _ = _plan(app)
        with Waymarks(home, cwd=str(project)) as other:
            keyed = other.remember("Releases go through GitHub Actions.", scope="project",
                                   key="release-pipeline")
        assert keyed.id is not None
        included, probes = _plan(app)
        assert keyed.id in included and len(probes) == 1
