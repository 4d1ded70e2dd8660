"""One set of values for every on/off switch: the helpers' and hybrid recall's."""

from __future__ import annotations

import pytest

from waymarks import semantic
from waymarks.spawn.switches import OFF, ON, switched_off


@pytest.mark.parametrize("value", ["0", "off", "OFF", " false ", "No"])
def test_every_off_value_switches_a_helper_and_hybrid_recall_off(
        value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert switched_off(value)
    monkeypatch.setenv(semantic.SWITCH, value)
    assert not semantic.enabled()


@pytest.mark.parametrize("value", ["", "1", "on", "yes", "True"])
def test_on_values_leave_them_on(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not switched_off(value)
    monkeypatch.setenv(semantic.SWITCH, value)
    assert semantic.enabled()


def test_a_value_neither_on_nor_off_is_each_switchs_own() -> None:
    # a helper stays on (it is only ever a speed-up); hybrid recall is off (a typo must not
    # leave a model loading on every prompt): semantic.enabled's docstring
    assert not switched_off("maybe") and "maybe" not in ON | OFF
