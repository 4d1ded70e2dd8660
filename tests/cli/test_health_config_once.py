"""``health`` in a trusted project whose configuration cannot be read listed the same fault
twice, once as the *active session's* ("problem: active session: …/config.toml: Expected
']' …" and "problem: configuration: …/config.toml: …"): the refresh of the session reads
the settings (and the trust list), and its failure was taken for the session's. It is
said once now, as the configuration's; ``activeSessionProblem`` stays empty (the session
is fine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks


@pytest.mark.parametrize("where", ["home", "project", "trust"])
def test_an_unreadable_configuration_is_one_problem_named_as_itself(
        home: Path, project: Path, where: str) -> None:
    env = {"WAYMARKS_HOME": str(home), "HOME": str(home.parent / "user")}

    def cli(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
        done = waymarks("--json", *args, env=env, cwd=project)
        return done.returncode, json.loads(done.stdout)

    assert cli("trust", ".")[0] == 0
    assert cli("memory", "add", "--", "The database port is 5433.")[0] == 0
    broken = {"home": home / "config.toml", "trust": home / "trusted-projects.json",
              "project": project / ".waymarks" / "config.toml"}[where]
    broken.parent.mkdir(exist_ok=True)
    broken.write_text("[privacy\n" if where != "trust" else '{"projects": [', encoding="utf-8")
    code, report = cli("health")
    assert (code, report["code"]) == (1, "attention"), report
    about = [p for p in report["problems"] if str(broken) in p]
    said = ("Expected ']' at the end of a table declaration (at line 1, column 9)"
            if where != "trust" else "unreadable trust list (Expecting value: line 1 column 15 "
            "(char 14))")
    assert about == [f"configuration: {broken}: {said}; fix or remove it"], report["problems"]
    assert report["activeSessionProblem"] is None, report
