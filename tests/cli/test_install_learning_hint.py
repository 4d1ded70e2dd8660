"""What an installer says of learning is what `learn status` says: an unreadable
configuration is off and said so (the hint said how to turn learning on, and `learn on`
then failed on the file), and a project install names its project's own turning off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks


def _home(tmp_path: Path, home_config: str, project_config: str | None = None) -> None:
    for folder in ("user", "wm", "project/.waymarks"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "wm" / "config.toml").write_text(home_config)
    if project_config is not None:
        (tmp_path / "project" / ".waymarks" / "config.toml").write_text(project_config)


def _run(tmp_path: Path, *args: str) -> Ran:
    env = {"HOME": str(tmp_path / "user"), "WAYMARKS_HOME": str(tmp_path / "wm"),
           "PI_CODING_AGENT_DIR": str(tmp_path / "pi")}
    done = waymarks(*args, env=env, cwd=tmp_path / "project")
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _json(tmp_path: Path, *args: str) -> dict[str, object]:
    answer: dict[str, object] = json.loads(_run(tmp_path, "--json", *args).stdout)
    return answer


def test_an_unreadable_configuration_is_said_not_a_way_to_turn_learning_on(
        tmp_path: Path) -> None:
    _home(tmp_path, "[evolution]\nlearn = true\n[privacy\n")
    said = _run(tmp_path, "pi", "install").stdout
    assert "Learning from conversations is off:" in said
    assert "not a readable TOML file" in said and "learn on" not in said


def test_a_project_install_says_its_project_turns_learning_off(tmp_path: Path) -> None:
    _home(tmp_path, "[evolution]\nlearn = true\n", "[evolution]\nlearn = false\n")
    assert _json(tmp_path, "claude-code", "install")["learning"] is False
    assert _json(tmp_path, "claude-code", "install", "--user")["learning"] is True


def test_config_show_names_an_ignored_file_once_and_the_learning_it_honours(
        tmp_path: Path) -> None:
    _home(tmp_path, "[evolution]\nlearn = true\n", "[evolution]\nlearn = false\n")
    ignored = _json(tmp_path, "config", "show")["ignored"]
    assert isinstance(ignored, list) and len(ignored) == len(set(ignored))
    assert any("learn = false is honoured" in line for line in ignored)
    status = _json(tmp_path, "learn", "status")
    assert status["learning"] is False and status["projectOff"] is True


def test_an_install_for_another_home_names_it_in_the_command_it_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed with `--home H`, the installers advised a bare `waymarks learn on`, which
    turned learning on in the default home while the hooks they wrote used H."""
    _home(tmp_path, "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the default home's root
    env = {"HOME": str(tmp_path / "user"), "PI_CODING_AGENT_DIR": str(tmp_path / "pi")}
    other = tmp_path / "wm home"
    for installer in (("pi", "install"), ("claude-code", "install", "--user")):
        said = waymarks("--home", str(other), *installer, env=env, cwd=tmp_path / "project")
        assert said.returncode == 0, said.stderr
        hint = said.stdout.strip().splitlines()[-1]
        assert hint.endswith(f"waymarks --home '{other}' learn on"), hint
    assert waymarks("--home", str(other), "learn", "on", env=env).returncode == 0
    status = waymarks("--home", str(other), "--json", "learn", "status", env=env)
    assert json.loads(status.stdout)["learning"] is True  # what the hooks' home reads
    default = waymarks("pi", "install", env=env, cwd=tmp_path / "project")  # the default
    assert default.stdout.strip().splitlines()[-1].endswith("): waymarks learn on")


def test_learn_on_writes_a_linked_home_configuration_where_it_leads(tmp_path: Path) -> None:
    """A home config.toml linked into a dotfiles checkout is read through the link, but
    `learn on`, what the installers advise, refused it ("it is a symbolic link ...;
    refusing to replace it"), with no way given to turn learning on."""
    _home(tmp_path, "")
    dotfile = tmp_path / "dotfiles" / "waymarks.toml"
    dotfile.parent.mkdir()
    dotfile.write_text("# mine\n[privacy]\nredactSecrets = true\n")
    link = tmp_path / "wm" / "config.toml"
    link.unlink()
    link.symlink_to(dotfile)
    assert _json(tmp_path, "learn", "on")["learning"] is True
    assert link.is_symlink() and link.resolve() == dotfile
    assert dotfile.read_text() == "# mine\n[privacy]\nredactSecrets = true\n\n[evolution]\n" \
        "learn = true\n"
    assert _json(tmp_path, "learn", "status")["learning"] is True
    dotfile.unlink()  # a link that leads nowhere is still refused, nothing made
    env = {"HOME": str(tmp_path / "user"), "WAYMARKS_HOME": str(tmp_path / "wm")}
    assert waymarks("learn", "off", env=env, cwd=tmp_path / "project").returncode == 1
    assert link.is_symlink() and not dotfile.exists()


def test_an_install_for_the_data_directory_under_another_waymarks_home_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed with `--home` the user data directory while WAYMARKS_HOME names another
    home, the hint gave a bare `waymarks learn on`: in that shell it turned learning on in
    WAYMARKS_HOME's home, where no hook looked."""
    _home(tmp_path, "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    data_home = tmp_path / "data" / "waymarks"
    env = {"HOME": str(tmp_path / "user"), "PI_CODING_AGENT_DIR": str(tmp_path / "pi"),
           "WAYMARKS_HOME": str(tmp_path / "wm")}
    said = waymarks("--home", str(data_home), "pi", "install", env=env, cwd=tmp_path / "project")
    assert said.returncode == 0, said.stderr
    hint = said.stdout.strip().splitlines()[-1]
    assert hint.endswith(f"waymarks --home {data_home} learn on"), hint


def test_the_learn_commands_name_the_home_they_were_run_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`waymarks --home H learn on` (H: the installers' home) said "Turn it off with
    `waymarks learn off`": run as given, that turned learning off in the default home and
    said "nothing more is captured" while H, where the hooks look, went on learning. So
    for `learn status`'s way to turn it on and `evolve`'s refusal."""
    _home(tmp_path, "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the default home's root
    env = {"HOME": str(tmp_path / "user")}
    other = tmp_path / "wm home"
    named = f"waymarks --home '{other}' learn"
    said = waymarks("--home", str(other), "learn", "on", env=env, cwd=tmp_path / "project")
    assert said.returncode == 0, said.stderr
    assert f"Turn it off with `{named} off`" in said.stdout, said.stdout
    assert waymarks("--home", str(other), "learn", "off", env=env).returncode == 0
    status = waymarks("--home", str(other), "learn", "status", env=env).stdout
    assert status.rstrip().endswith(f"{named} on"), status
    evolve = waymarks("--home", str(other), "evolve", env=env, cwd=tmp_path / "project")
    assert evolve.returncode == 2 and f"`{named} on`" in evolve.stdout + evolve.stderr
    bare = waymarks("learn", "on", env=env).stdout  # the default home: the bare command
    assert "Turn it off with `waymarks learn off`" in bare, bare


def test_status_says_whether_learning_is_on_here(tmp_path: Path) -> None:
    """`waymarks status`, "where things are, and what is in effect", said nothing of
    learning: a person checking whether their conversations were being captured saw the
    same status with it on, off, turned off by the project or unreadable."""
    _home(tmp_path, "")
    off = _json(tmp_path, "status")["learning"]
    assert off == {"enabled": False, "projectOff": False, "problem": None}
    assert "Learning: off" in _run(tmp_path, "status").stdout
    _run(tmp_path, "learn", "on")
    assert _json(tmp_path, "status")["learning"]["enabled"] is True
    assert "Learning: on (statements you make are captured; `waymarks learn off` " \
        "turns it off)" in _run(tmp_path, "status").stdout
    # a trusted project's summaries and tool output are captured too: status says so
    _run(tmp_path, "trust", str(tmp_path / "project"))
    assert "Learning: on (statements you make are captured, and in this trusted project " \
        "compaction summaries and work turns' tool results; `waymarks learn off` turns " \
        "it off)" in _run(tmp_path, "status").stdout
    _run(tmp_path, "untrust", str(tmp_path / "project"))
    (tmp_path / "project" / ".waymarks" / "config.toml").write_text(
        "[evolution]\nlearn = false\n")
    said = _run(tmp_path, "status").stdout
    assert "Learning: off here (this project's .waymarks/config.toml turns it off)" in said
    (tmp_path / "project" / ".waymarks" / "config.toml").write_text("[evolution\n")
    broken = _json(tmp_path, "status")["learning"]  # (an untrusted project's: status ran)
    assert broken["enabled"] is False and ".waymarks/config.toml" in broken["problem"]
    assert "Learning: off (" in _run(tmp_path, "status").stdout


def test_evolution_status_names_the_home_it_was_run_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`waymarks --home H evolution status` with a route and learning off said "Not
    running: learning is off for this home: ... (waymarks learn on)": run as given, that
    turned learning on in the default home, not in H."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    other = tmp_path / "wm home"
    other.mkdir()
    (other / "config.toml").write_text(
        '[evolution]\nlearn = false\nprovider = "openai"\napi = "openai"\n'
        'endpoint = "http://127.0.0.1:9/v1"\nmodel = "m1"\n')
    env = {"HOME": str(tmp_path / "user"), "OPENAI_API_KEY": "sk-test-0000"}
    said = waymarks("--home", str(other), "evolution", "status", env=env).stdout
    assert f"(waymarks --home '{other}' learn on)" in said, said
