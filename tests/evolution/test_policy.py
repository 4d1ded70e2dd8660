"""The pure backoff schedule and error-policy table (core/evolution_policy.py)."""

from __future__ import annotations

import pytest

from waymarks.core.evolution_policy import (
    ATTEMPT_DEADLINE_S,
    action_for,
    attempt_deadline_s,
    backoff_s,
    lease_s,
    should_pause,
    step_action,
)
from waymarks.core.model_port import MODEL_ERROR_CODES


@pytest.mark.parametrize(("failures", "base"), [(1, 60), (2, 300), (3, 900), (4, 3600),
                                                 (9, 3600)])
def test_backoff_steps_and_jitter_stay_within_twenty_percent(failures: int, base: int) -> None:
    assert backoff_s(failures, 0.5) == pytest.approx(base)
    assert backoff_s(failures, 0.0) == pytest.approx(base * 0.8)
    assert backoff_s(failures, 0.999999) == pytest.approx(base * 1.2, rel=1e-5)
    assert base * 0.8 <= backoff_s(failures, 7.0) <= base * 1.2  # clamped, never wild


def test_every_model_error_code_has_a_policy_and_cancel_never_counts() -> None:
    for code in MODEL_ERROR_CODES:
        assert action_for(code).code == code
    cancelled = action_for("cancelled")
    assert cancelled.counts == "none" and cancelled.cooldown == "none"
    assert action_for("some provider text").code == "unknown"


def test_the_error_table() -> None:
    auth = action_for("auth")
    assert (auth.cooldown, auth.cooldown_s, auth.counts) == ("provider", 900, "none")
    assert not auth.same_provider_fallback
    assert action_for("rate_limited").cooldown_s == 60
    assert action_for("rate_limited", retry_after_s=120).cooldown_s == 120
    assert action_for("rate_limited", retry_after_s=5).cooldown_s == 60  # never shorter
    # 402 / quota: the whole provider (another model of the account fails the same way),
    # 1 h, or until the reset the provider supplied; never a failure of the source
    quota = action_for("quota")
    assert (quota.cooldown, quota.cooldown_s, quota.counts) == ("provider", 3600, "none")
    assert not quota.same_provider_fallback
    assert action_for("quota", retry_after_s=7200).cooldown_s == 7200
    assert action_for("quota", retry_after_s=600).cooldown_s == 600  # the reset, sooner
    assert action_for("quota", retry_after_s=1).cooldown_s == 60  # bounded
    assert action_for("quota", retry_after_s=10**9).cooldown_s == 86400
    assert action_for("bad_request").cooldown == "model"
    assert action_for("bad_request").cooldown_s == 3600
    assert action_for("timeout").transport and action_for("timeout").counts == "failure"
    assert action_for("invalid_output").counts == "output"


def test_step_outcomes_and_pauses() -> None:
    assert step_action("applied") == step_action("no_change") == "settled"
    assert step_action("refused_only") == "settled"  # nothing learned, still settled
    assert step_action("invalid_output") == "output"
    assert step_action("pinned") == "pause"
    assert not should_pause(4, 2) and should_pause(5, 0) and should_pause(0, 3)


def test_lease_and_deadlines() -> None:
    assert lease_s(ATTEMPT_DEADLINE_S) == 150
    assert attempt_deadline_s(120, 0, 300) == 120
    assert attempt_deadline_s(120, 250, 300) == 50  # a backup's deadline is clamped
    assert attempt_deadline_s(120, 300, 300) == 0
