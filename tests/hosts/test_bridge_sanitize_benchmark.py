"""``benchmarks/pi_bridge_sanitize.py`` checks that the bridge under test and the baseline's
answer every request alike, the same JSON: a key order or a number's type that changed (a
provider matches a prompt cache on the exact bytes; ``1`` and ``1.0`` and ``true`` are
three values) is an answer that differs. Python's ``==`` on the decoded answers took them
for the same, and the benchmark reported a change that altered what is sent as equal."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


class Answers:
    """Stands in for a bridge: answers every request with ``payload``."""

    def __init__(self, payload: str) -> None:
        self.payload = payload

    def call(self, method: str, params: object) -> tuple[float, bytes]:
        head = '{"id": 1, "result": {"withheld": false, "payload": '
        return 1.0, (head + self.payload + "}}").encode()

    def send(self, line: str) -> tuple[float, bytes]:
        return self.call("sanitize", line)

    def rss_mb(self) -> float:
        return 0.0


def benchmark(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # (its own imports, as when run)
    spec = importlib.util.spec_from_file_location("pi_bridge_sanitize_benchmark",
                                                  BENCHMARKS / "pi_bridge_sanitize.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("other", [
    '{"messages": [{"content": "hi", "role": "user"}], "model": "m"}',  # key order
    '{"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": 1.0}',
    '{"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": true}',
])
def test_answers_that_differ_as_json_are_told_apart(monkeypatch: pytest.MonkeyPatch,
                                                    other: str) -> None:
    figures = benchmark(monkeypatch).shape_figures
    first = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    same = json.dumps(first) if '"n"' not in other else json.dumps({**first, "n": 1})
    assert figures("messages", first, 2, {"current": Answers(same), "baseline": Answers(same)})
    with pytest.raises(AssertionError, match="differ"):
        figures("messages", first, 2, {"current": Answers(same), "baseline": Answers(other)})
