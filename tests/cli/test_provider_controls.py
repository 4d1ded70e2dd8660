"""A provider ID holding a control character (``--provider $'x\\e[2J'``) was taken as it
was: the plan was made for it and its manifest kept it (``manifest`` then printed the
escape sequence's name). It is refused where provider IDs are read
(``service.planning.destination``), for every command naming one, and nothing is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from waymarks.cli.main import main


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)

    def run(*args: str, expect: int = 0) -> dict:  # type: ignore[type-arg]
        code = main(["--json", *args])
        out = capsys.readouterr().out
        assert code == expect, out
        return json.loads(out)

    return run


@pytest.mark.parametrize("provider", ["x\x1b[2J", "ollama\n", "open\x00ai", "a\x7fb",
                                      "\x9bopenai"])
def test_a_provider_id_with_a_control_character_is_refused(  # type: ignore[no-untyped-def]
        cli, home: Path, provider: str) -> None:
    cli("trust", ".")
    cli("memory", "add", "--scope", "project", "--", "The database port is 5433.")
    for command in (("plan", "--provider", provider, "--prompt", "database port"),
                    ("recall", "--provider", provider, "port"),
                    ("privacy", "sanitize", "--provider", provider)):
        refused = cli(*command, expect=2)
        assert refused["code"] == "invalid_argument", refused
        assert "control character" in refused["message"]
        assert all(ch >= " " and ch != "\x7f" for ch in refused["message"]), refused
    kept = cli("manifest")
    assert "provider" not in kept and "no plan yet" in kept["note"], kept  # none recorded
    made = cli("plan", "--provider", "ollama", "--prompt", "database port")
    assert made["manifest"]["provider"] == "ollama"
    assert cli("manifest")["provider"] == "ollama"
