"""EVOLUTION item 53 for configured routes, through the real ``waymarks evolve`` entry
point against a real loopback provider: a route's ``contextWindow``/``maxTokens`` in the
home's ``config.toml`` bound its calls as Pi's model window bounds Pi's (``maxTokens ==
contextWindow`` still sends, with no ceiling: F3; a declared ``maxTokens`` below the
window is the ceiling; an input the window cannot hold is not sent, the model cools down
and the next route is tried)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep
from tests.evolution.test_cli_evolution import _config, _run

ROUTE = ('[evolution]\nlearn = true\nprovider = "ollama"\napi = "openai"\n'
         'endpoint = "{origin}/v1"\nmodel = "m1"\n')


@pytest.mark.slow
def test_max_tokens_equal_to_the_window_sends_with_no_ceiling(home: Path, project: Path,
                                                               tmp_path: Path) -> None:
    step = FileStep(tmp_path / "step")
    step.add("src-1", "The user prefers tabs.")
    with FakeProvider([openai_ok('{"claims": []}')]) as fake:
        _config(home, ROUTE.format(origin=fake.origin)
                + "contextWindow = 131072\nmaxTokens = 131072\n")
        code, data, out = _run(home, project, "evolve", step=tmp_path / "step")
        assert code == 0 and data["outcome"] == "settled", out
        [sent] = fake.requests
    assert "max_tokens" not in sent["body"]  # F3: not a ceiling, and the request went out


@pytest.mark.slow
def test_a_declared_output_limit_is_the_ceiling(home: Path, project: Path,
                                               tmp_path: Path) -> None:
    step = FileStep(tmp_path / "step")
    step.add("src-1", "The user prefers tabs.")
    with FakeProvider([openai_ok('{"claims": []}')]) as fake:
        _config(home, ROUTE.format(origin=fake.origin)
                + "contextWindow = 32768\nmaxTokens = 1024\n")
        code, data, out = _run(home, project, "evolve", step=tmp_path / "step")
        assert code == 0 and data["outcome"] == "settled", out
        [sent] = fake.requests
    assert sent["body"]["max_tokens"] == 1024
    code, data, _ = _run(home, project, "evolution", "status", step=tmp_path / "step")
    assert code == 0
    assert (data["routes"][0]["contextWindow"], data["routes"][0]["maxTokens"]) == \
        (32_768, 1_024)


@pytest.mark.slow
def test_an_input_the_window_cannot_hold_goes_to_the_next_route(home: Path, project: Path,
                                                                 tmp_path: Path) -> None:
    step = FileStep(tmp_path / "step")
    step.add("src-1", "The user prefers tabs. " * 200)  # ~4,600 bytes: > 1,536 tokens
    with FakeProvider([openai_ok('{"claims": []}')]) as fake:
        _config(home, ROUTE.format(origin=fake.origin)
                + "contextWindow = 2048\nmaxTokens = 512\n"
                + f'[[evolution.backups]]\nprovider = "other"\napi = "openai"\n'
                  f'endpoint = "{fake.origin}/v1"\nmodel = "big"\ncontextWindow = 128000\n')
        code, data, out = _run(home, project, "evolve", step=tmp_path / "step")
        assert code == 0, out
        assert (data["outcome"], data["model"]) == ("settled", "big"), data
        assert [r["body"]["model"] for r in fake.requests] == ["big"]  # m1 never called
        code, data, _ = _run(home, project, "evolution", "status", step=tmp_path / "step")
    assert code == 0
    assert [(c["provider"], c["model"], c["reason"]) for c in data["cooldowns"]] == \
        [("ollama", "m1", "bad_request")]
    assert step.settled("src-1")
