"""Fixtures of the host adapters' tests."""

from __future__ import annotations

import pytest

from waymarks.hosts import cc_helper


@pytest.fixture
def steady_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Claude Code helper run on a thread of the test process takes its code for
    unchanged. Its check for an upgrade under it watches every module of its process, here
    the tests' and pytest's among them: a file of the checkout edited while the suite ran
    (a commit, a stash in the checkout it runs from) ended such a helper at its first
    request, unanswered (about one run in six of tests/hosts/test_cc_helper_in_status.py;
    started again, it answered once the edit was 2 s old). A real helper watches only its
    own code; that check has tests of its own (test_cc_review.py, test_cc_helper_upgrade.py)."""
    monkeypatch.setattr(cc_helper.LoadedCode, "changed", lambda self: False)
