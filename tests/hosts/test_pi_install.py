"""``waymarks pi install | uninstall`` against a loader path holding what Waymarks did not
write: refused in one line that says what to do, with nothing changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks
from waymarks.hosts import pi_install


def pi(home: Path, agent: Path, action: str, *, new_process: bool = False
       ) -> Ran | subprocess.CompletedProcess[str]:
    """``waymarks pi ACTION``: the real entry point in this process, or in a new one for a
    command that could hang it (a FIFO to read)."""
    args = ["--home", str(home), "--json", "pi", action, "--agent-dir", str(agent)]
    env = {"WAYMARKS_HOME": str(home)}
    if not new_process:
        return waymarks(*args, env=env)
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args],
                          env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("content", [b"\xff\xfe", b"// mine\n\xff"])
def test_a_loader_that_is_not_utf8_is_refused_not_a_traceback(
        tmp_path: Path, home: Path, content: bytes) -> None:
    agent = tmp_path / "agent"
    loader = pi_install.loader_path(agent)
    loader.parent.mkdir(parents=True)
    loader.write_bytes(content)
    for action, fix in (("install", "move it away first"), ("uninstall", "leaving it alone")):
        done = pi(home, agent, action)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done
        message = json.loads(done.stdout)["message"]
        assert message == f"{loader} " + ("exists and " if action == "install" else "") + \
            f"was not written by Waymarks; {fix}"
    assert loader.read_bytes() == content


def test_a_linked_loader_is_refused_with_what_to_do(tmp_path: Path, home: Path) -> None:
    agent = tmp_path / "agent"
    loader = pi_install.loader_path(agent)
    pi_install.install(agent)
    elsewhere = tmp_path / "dotfiles.ts"
    elsewhere.write_text(loader.read_text() + "// an older one\n")
    loader.unlink()
    loader.symlink_to(elsewhere)
    with pytest.raises(FileExistsError, match="symbolic link to an older loader; remove the "
                                              "link, then run this again"):
        pi_install.install(agent)
    loader.unlink()
    loader.symlink_to(loader.name)  # a loop
    with pytest.raises(FileExistsError, match="is a symbolic link that leads to no file, not "
                                              "a loader Waymarks wrote; move it away first"):
        pi_install.install(agent)
    assert os.readlink(loader) == loader.name
    loader.unlink()
    os.mkfifo(loader)
    done = pi(home, agent, "install", new_process=True)
    assert done.returncode == 2
    assert json.loads(done.stdout)["message"].endswith("is a FIFO, not a loader Waymarks "
                                                       "wrote; move it away first")


def _agent_dir_refused(agent_dir: str, env: dict[str, str], cwd: Path) -> list[dict[str, str]]:
    """``waymarks --json pi install`` then ``uninstall`` with ``--agent-dir AGENT_DIR``,
    each in a process of its own run in ``cwd``: both refused as an invalid argument, with
    no traceback; their JSON answers."""
    answers: list[dict[str, str]] = []
    for action in ("install", "uninstall"):
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "pi",
                               action, "--agent-dir", agent_dir], env=env, cwd=cwd,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done
        refused = json.loads(done.stdout)
        assert refused["code"] == "invalid_argument", refused
        answers.append(refused)
    return answers


@pytest.mark.parametrize("blank", ["", " "])
def test_a_blank_agent_dir_is_refused_not_taken_for_pis_own(tmp_path: Path, home: Path,
                                                            blank: str) -> None:
    """``--agent-dir ""`` (a script's unset variable) installed into, or uninstalled from,
    the real ``~/.pi/agent``, as if none were given: refused, and nothing changed there."""
    user = tmp_path / "user"
    installed = user / ".pi" / "agent"
    pi_install.install(installed)  # what `pi install` left in the default agent directory
    before = pi_install.loader_path(installed).read_text()
    env = {**os.environ, "WAYMARKS_HOME": str(home), "HOME": str(user)}
    env.pop("PI_CODING_AGENT_DIR", None)
    for refused in _agent_dir_refused(blank, env, tmp_path):
        assert refused["message"].startswith("--agent-dir is empty"), refused
    assert pi_install.loader_path(installed).read_text() == before
    assert sorted(p.name for p in (installed / "extensions").iterdir()) == ["waymarks.ts"]


@pytest.mark.parametrize("relative", ["agent", "./.pi/agent", "pi agent/"])
def test_a_relative_agent_dir_is_refused_not_written_into_the_working_folder(
        tmp_path: Path, home: Path, relative: str) -> None:
    """``--agent-dir agent`` (``~`` left out, a path typed from another folder) wrote
    ``agent/extensions/waymarks.ts`` into whatever folder the command ran in, a project's,
    where Pi never looks, and said "Installed …; restart Pi to load it". Refused, naming
    the fix, and nothing is written there."""
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "WAYMARKS_HOME": str(home), "HOME": str(tmp_path / "user")}
    for refused in _agent_dir_refused(relative, env, project):
        assert "relative path" in refused["message"] and "absolute" in refused["message"]
    assert list(project.iterdir()) == []


def test_an_install_for_another_home_than_this_shells_waymarks_home_warns(
        tmp_path: Path) -> None:
    """`waymarks --home B pi install` in a shell whose WAYMARKS_HOME names A wrote a loader
    naming B, which sets the bridge's home only where none is set (`??=`): a Pi started
    from that shell used A, while install reported B (and told how to turn learning on
    there), with nothing said."""
    shell_home, other, agent = tmp_path / "a", tmp_path / "b", tmp_path / "agent"
    args = ["--home", str(other), "pi", "install", "--create", "--agent-dir", str(agent)]
    env = {"WAYMARKS_HOME": str(shell_home), "HOME": str(tmp_path)}
    said = waymarks(*args, env=env)
    assert said.returncode == 0, said.stderr
    assert f"WAYMARKS_HOME in this environment names {shell_home}" in said.stdout
    assert json.loads(waymarks("--json", *args, env=env).stdout)["environmentHome"] == \
        str(shell_home)
    same = waymarks("--home", str(shell_home), "--json", "pi", "install", "--agent-dir",
                    str(agent), env=env)
    assert json.loads(same.stdout)["environmentHome"] is None


def test_a_shell_with_an_empty_waymarks_home_runs_pi_with_the_installed_home(
        tmp_path: Path) -> None:
    """`WAYMARKS_HOME=` (set, empty: `export WAYMARKS_HOME=` in a profile) is no home to
    Waymarks, which uses the default one; the loader's `??=` kept the empty value, so a Pi
    started there used the default home, not the one installed for, and install, which
    reads the empty value as unset, warned of nothing (reproduced with the real Pi 1.6: the
    bridge wrote the default home). The loader now sets an empty one too, and so for
    WAYMARKS_BIN (empty: the `waymarks` on PATH, not this installation's)."""
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed to run the loader's lines")
    home = tmp_path / "b"
    loader = pi_install.loader_text(home=home)
    lines = [line for line in loader.splitlines() if line.startswith("process.env.")]
    script = "\n".join([*lines, "console.log(JSON.stringify([process.env.WAYMARKS_HOME, "
                        "process.env.WAYMARKS_BIN]))"])
    ran = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "WAYMARKS_HOME": "", "WAYMARKS_BIN": ""})
    assert ran.returncode == 0, ran.stderr
    named_home, binary = json.loads(ran.stdout)
    assert named_home == str(home)
    assert binary and binary.endswith("waymarks")
    kept = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "WAYMARKS_HOME": "/elsewhere"})
    assert json.loads(kept.stdout)[0] == "/elsewhere"  # one that names a home still wins
