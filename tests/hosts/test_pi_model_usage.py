"""What Pi's model reports about a call's usage, as far as it can be believed: the
extension forwards ``Number(usage.input) || 0``, so a count from 2**63 to 1e21 arrives as a
Python int. A real home, real SQLite, the bridge's own ``PiEvolution`` and its queue."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.evolution.step_double import FileStep
from waymarks.core.model_port import SourceRef
from waymarks.service.evolution_wiring import register_step
from waymarks.store.jobs import JobStore


def test_a_token_count_past_sqlites_integers_settles_the_job(tmp_path: Path) -> None:
    """2**64 input tokens from Pi's model overflowed the call's accounting row: the attempt
    crashed, the job stayed leased with its call reserved, and each retry paid again."""
    from waymarks.hosts.pi_model import PiEvolution
    from waymarks.service.app import Waymarks

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    step = FileStep(tmp_path / "step")
    step.add("s1", classification="normal", origin=str(project.resolve()),
             captured_at="2026-12-01T10:00:00.000Z")

    def ask(method: str, params: dict[str, Any]) -> Any:
        return {"text": '{"claims": []}', "provider": params["provider"],
                "model": params["model"], "stopReason": "stop",
                "inputTokens": 2**64, "outputTokens": 5 * 10**18}

    register_step(lambda app: step)
    evolution = PiEvolution(ask)
    try:
        with Waymarks(home, cwd=str(project)) as app:
            result = evolution.run(app, "piprov", "pi-m")
    finally:
        evolution.close()
        register_step(None)
    assert (result["outcome"], result["sourceId"]) == ("settled", "s1"), result
    db = sqlite3.connect(home / "evolution.db")
    try:
        assert db.execute("SELECT state, lease_until FROM jobs").fetchall() == [
            ("settled", None)]
        assert db.execute("SELECT outcome, input_tokens, output_tokens FROM model_calls"
                          ).fetchall() == [("ok", 0, 0)]
    finally:
        db.close()


def test_the_store_never_strands_a_call_on_a_count_it_cannot_hold(tmp_path: Path) -> None:
    """The second guard: whatever an adapter passes, finishing a call records it (a count
    past SQLite's 64 bits as 0) instead of raising with the call reserved."""
    store = JobStore.open(tmp_path / "home")
    try:
        store.add_jobs([SourceRef("s1", "/work/a", "normal", "2026-12-01T10:00:00.000Z")], 0)
        lease = store.lease("s1", "A", 0, 150_000)
        assert lease is not None
        call = store.reserve_call(lease, "p", "m", 1, hourly_cap=20, source_calls=4,
                                  source_models=2, daily_usd=None)
        assert isinstance(call, int)
        store.finish_call(call, "ok", 2, 2**70, input_tokens=2**64, output_tokens=-1,
                          reasoning_tokens=2**63)
        assert store.job("s1").spent_ms == 0  # type: ignore[union-attr]
    finally:
        store.close()
    db = sqlite3.connect(tmp_path / "home" / "evolution.db")
    try:
        assert db.execute("SELECT outcome, input_tokens, output_tokens, reasoning_tokens, "
                          "duration_ms FROM model_calls").fetchall() == [("ok", 0, 0, 0, 0)]
    finally:
        db.close()
