"""What an installer says of learning is what `learn status` says: an unreadable
configuration is off and said so (the hint said how to turn learning on, and `learn on`
then failed on the file), and a project install names its project's own turning off."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks


def _install(tmp_path: Path, *args: str) -> dict[str, object]:
    env = {"HOME": str(tmp_path / "user"), "WAYMARKS_HOME": str(tmp_path / "wm"),
           "PI_CODING_AGENT_DIR": str(tmp_path / "pi")}
    done = waymarks("--json", *args, env=env, cwd=tmp_path / "project")
    assert done.returncode == 0, done.stdout + done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def test_an_unreadable_configuration_is_said_not_a_way_to_turn_learning_on(
        tmp_path: Path) -> None:
    for folder in ("user", "wm", "project"):
        (tmp_path / folder).mkdir()
    (tmp_path / "wm" / "config.toml").write_text("[evolution]\nlearn = true\n[privacy\n")
    done = waymarks("pi", "install", env={
        "HOME": str(tmp_path / "user"), "WAYMARKS_HOME": str(tmp_path / "wm"),
        "PI_CODING_AGENT_DIR": str(tmp_path / "pi")}, cwd=tmp_path / "project")
    assert done.returncode == 0
    assert "Learning from conversations is off:" in done.stdout
    assert "not a readable TOML file" in done.stdout and "learn on" not in done.stdout


def test_a_project_install_says_its_project_turns_learning_off(tmp_path: Path) -> None:
    for folder in ("user", "wm", "project/.waymarks"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "wm" / "config.toml").write_text("[evolution]\nlearn = true\n")
    (tmp_path / "project" / ".waymarks" / "config.toml").write_text(
        "[evolution]\nlearn = false\n")
    answer = _install(tmp_path, "claude-code", "install")
    assert answer["learning"] is False
    user = _install(tmp_path, "claude-code", "install", "--user")
    assert user["learning"] is True


def test_config_show_names_an_ignored_file_once_and_the_learning_it_honours(
        tmp_path: Path) -> None:
    for folder in ("user", "wm", "project/.waymarks"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "wm" / "config.toml").write_text("[evolution]\nlearn = true\n")
    (tmp_path / "project" / ".waymarks" / "config.toml").write_text(
        "[evolution]\nlearn = false\n")
    shown = _install(tmp_path, "config", "show")
    ignored = shown["ignored"]
    assert isinstance(ignored, list) and len(ignored) == len(set(ignored))
    assert any("learn = false is honoured" in line for line in ignored)
    status = _install(tmp_path, "learn", "status")
    assert status["learning"] is False and status["projectOff"] is True
