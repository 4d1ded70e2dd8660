"""A pin that puts the pins over their budget says so (a review: one more pin silently
dropped every pin from every request; the write reported success with no note).

The plan falls back then (nothing is added, pins never split); the write's note and its
``pinsLeftOut`` are the plan's own reason, so the two agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

#: about 94 tokens with its wrapper: accented letters count one token each
ACCENTED = "Ünïcödé rüles ápply hére. " * 10


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, run_main: Any) -> Any:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("WAYMARKS_CC_HELPER", "off")
    monkeypatch.chdir(project)
    home.mkdir(exist_ok=True)
    return run_main


def fallback(cli: Any) -> str | None:
    return cli("plan", "--prompt", "fix the bug")["manifest"]["fallback"]  # type: ignore


def test_the_pin_that_tips_the_pins_over_their_budget_says_so(cli: Any, home: Path) -> None:
    (home / "config.toml").write_text("[context]\nmaxPinnedTokens = 300\n")
    first = cli("pin", "--", "Never push directly to main.")
    assert first["pinsLeftOut"] is None and first["notices"] == []
    assert cli("pin", "--", ACCENTED)["pinsLeftOut"] is None
    assert fallback(cli) is None  # ~294 tokens: they fit

    tipped = cli("pin", "--", "Use tabs.")
    assert tipped["outcome"] == "committed"
    assert tipped["pinsLeftOut"] is not None and tipped["pinsLeftOut"] == fallback(cli)
    assert "pin budget (300)" in tipped["pinsLeftOut"]
    [note] = tipped["notices"]
    assert "maxPinnedTokens" in note and "unpin" in note and "Use tabs" not in note

    shown = cli("pin", "--supersedes", tipped["id"], "--", "Use tabs, four wide.", text=True)
    assert "note: plans now add nothing, not even the pins: pins need" in shown

    listed = cli("pins")["items"]
    accented = next(i["id"] for i in listed if i["text"].startswith("Ünïcödé"))
    cli("unpin", accented)
    assert fallback(cli) is None
    after = cli("pin", "--", "Run the linters.")
    assert after["pinsLeftOut"] is None and after["notices"] == []


def test_a_projects_lower_pin_budget_is_named_when_a_pin_goes_over_it(
        cli: Any, project: Path) -> None:
    cli("trust", str(project))
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "config.toml").write_text("[context]\nmaxPinnedTokens = 150\n")
    assert cli("pin", "--scope", "project", "--", "Never push to main.")["pinsLeftOut"] is None
    over = cli("pin", "--scope", "project", "--", "Use tabs.")
    assert over["pinsLeftOut"] == fallback(cli)
    assert "pin budget (150)" in over["pinsLeftOut"]
    assert "project's .waymarks/config.toml" in over["notices"][0]
