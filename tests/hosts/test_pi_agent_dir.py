"""``waymarks pi install --agent-dir PATH`` made any path: a typo became a new tree of
folders (and "restart Pi to load it" was said for a folder Pi never reads), a folder of
the project put a loader naming this machine's ``waymarks`` into the repository, and
``--agent-dir /etc/pi`` run as root wrote into the system. Now a path that does not exist
is refused unless ``--create`` is given, and one inside the project (its git checkout) or
in a system folder is refused: exit 2, ``invalid_argument``, nothing made."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.inprocess import waymarks


def _install(tmp_path: Path, cwd: Path, agent: Path | str, *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    done = waymarks("--json", "pi", "install", *extra, "--agent-dir", str(agent),
                    env={"WAYMARKS_HOME": str(tmp_path / "home"), "HOME": str(tmp_path / "user")},
                    cwd=cwd)
    return done.returncode, json.loads(done.stdout)


def _tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def test_an_agent_dir_that_does_not_exist_is_made_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "user").mkdir()
    agent = tmp_path / "typo" / "pi" / "agent"
    code, refused = _install(tmp_path, tmp_path / "user", agent)
    assert (code, refused["code"]) == (2, "invalid_argument"), refused
    assert "no such directory" in refused["message"] and "--create" in refused["message"]
    assert not (tmp_path / "typo").exists()
    code, done = _install(tmp_path, tmp_path / "user", agent, "--create")
    assert code == 0 and Path(done["path"]).is_file(), done
    (tmp_path / "a-file").write_text("mine")
    code, refused = _install(tmp_path, tmp_path / "user", tmp_path / "a-file", "--create")
    assert (code, refused["code"]) == (2, "invalid_argument"), refused
    assert "not a directory" in refused["message"]
    assert (tmp_path / "a-file").read_text() == "mine"


def test_an_agent_dir_inside_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    (project / "tools" / "pi").mkdir(parents=True)
    before = _tree(project)
    for agent, extra in ((project / "tools" / "pi", ()), (project / "new", ("--create",)),
                         (project, ())):
        code, refused = _install(tmp_path, project / "src", agent, *extra)
        assert (code, refused["code"]) == (2, "invalid_argument"), refused
        assert f"inside the project {project}" in refused["message"], refused
    link = tmp_path / "link-into-project"
    link.symlink_to(project / "tools")
    code, refused = _install(tmp_path, project / "src", link, "--create")
    assert (code, refused["code"]) == (2, "invalid_argument"), refused
    assert _tree(project) == before  # nothing written or made


def test_a_system_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "user").mkdir()
    link = tmp_path / "looks-private"
    link.symlink_to("/usr")
    for agent in ("/", "/etc/waymarks-test-agent", "/usr/local/waymarks-test-agent",
                  str(link / "waymarks-test-agent")):
        code, refused = _install(tmp_path, tmp_path / "user", agent, "--create")
        assert (code, refused["code"]) == (2, "invalid_argument"), refused
        assert "system folder" in refused["message"], refused
    assert not os.path.lexists("/etc/waymarks-test-agent")
    assert not os.path.lexists("/usr/local/waymarks-test-agent")
    assert not os.path.lexists("/extensions/waymarks.ts")


def test_a_project_holding_the_persons_home_does_not_refuse_pis_own_folder(
        tmp_path: Path) -> None:
    """A dotfiles repository at ``~``: ``~/.pi/agent`` is in that checkout, and is Pi's."""
    user = tmp_path / "user"
    (user / ".git").mkdir(parents=True)
    (user / ".pi" / "agent").mkdir(parents=True)
    code, done = _install(tmp_path, user, user / ".pi" / "agent")
    assert code == 0 and done["changed"] is True, done
