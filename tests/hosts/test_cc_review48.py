"""Claude Code hook command lines a review found wrong (each test failed before its fix):

1. a relative or empty home (``--home relhome``, ``WAYMARKS_HOME=envrel``, ``--home ''``)
   was taken: the whole store, prompts included, was created inside the project, where
   ``git status`` offers it for a commit (the CLI refuses such a home);
2. a hook command line with a mistake (an extra argument, an unknown option, no event)
   exited 2 from the console script, which Claude Code reads as "block the prompt": every
   prompt was blocked. It exits 1 with a usage line now; help still answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import isolated_python

WAYMARKS = Path(sys.executable).parent / "waymarks"
ENTRY = Path(__file__).resolve().parents[2] / "src" / "waymarks" / "hosts" / "hook_entry.py"
SESSION = "11111111-2222-3333-4444-555555555555"


def _hook(project: Path, command: list[str], env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    body = json.dumps({"session_id": SESSION, "cwd": str(project),
                       "hook_event_name": "UserPromptSubmit", "prompt": "hi"})
    # no WAYMARKS_HOME, and a HOME of the test's own: were an empty home taken for the
    # default again, the default would be here (it was the person's real one)
    environ = {k: v for k, v in os.environ.items() if k not in ("WAYMARKS_HOME",
                                                                 "XDG_DATA_HOME")}
    environ["HOME"] = str(project.parent / "person")
    return subprocess.run(command, input=body, text=True, capture_output=True, cwd=project,
                          env={**environ, "WAYMARKS_CC_HELPER": "off", **(env or {})},
                          timeout=60)


@pytest.mark.parametrize("how", ["--home relative", "WAYMARKS_HOME", "--home empty",
                                 "launcher --home empty", "launcher --home relative"])
def test_a_relative_or_empty_home_is_refused_and_nothing_is_created(project: Path,
                                                                    how: str) -> None:
    tail = ["hook", "claude-code", "UserPromptSubmit"]
    env = None
    if how == "--home relative":
        command = [str(WAYMARKS), "--home", "relhome", *tail]
    elif how == "WAYMARKS_HOME":
        command, env = [str(WAYMARKS), *tail], {"WAYMARKS_HOME": "envrel"}
    elif how == "--home empty":
        command = [str(WAYMARKS), "--home", "", *tail]
    else:
        home = "" if how.endswith("empty") else "relhome"
        command = [*isolated_python(), str(ENTRY), "--home", home, *tail]
    done = _hook(project, command, env)
    assert done.returncode == 1, done.stderr
    assert "not an absolute path" in done.stderr and done.stdout == ""
    assert sorted(p.name for p in project.iterdir()) == []
    assert not (project.parent / "person").exists()


@pytest.mark.parametrize("mistake", [["UserPromptSubmit", "extra"],
                                     ["UserPromptSubmit", "--json", "extra"],
                                     ["--bogus", "UserPromptSubmit"], []])
def test_a_mistyped_hook_line_never_exits_2(project: Path, home: Path,
                                            mistake: list[str]) -> None:
    done = _hook(project, [str(WAYMARKS), "--home", str(home), "hook", "claude-code",
                           *mistake])
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "not a hook command line" in done.stderr + done.stdout
    assert not (home / "sessions").exists()
    helped = _hook(project, [str(WAYMARKS), "hook", "claude-code", "--help"])
    assert helped.returncode == 0 and "PostToolUseFailure" in helped.stdout


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_one_helper_per_home_a_stalled_one_is_replaced_and_unlinks_only_its_own(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper that stalled past the client's ping (4 s) got a second helper on the same
    socket path, and the one that went idle first unlinked the socket the other served,
    which then ran unreachable for its 30 idle minutes. A helper starting beside a live
    one (it holds helper.lock and answers) leaves; one starting beside a stalled one
    takes the path over; and a helper unlinks the socket only if it is still its own."""
    import fcntl
    import socket as sockets
    import threading

    from waymarks.files.locks import open_lock
    from waymarks.hosts import cc_client, cc_helper
    from waymarks.spawn.freshness import LoadedCode
    from waymarks.spawn.sockets import at_socket

    path = Path(cc_client.socket_path(home))
    # the helpers run in this test's process, whose modules are the whole test run's: a
    # module file another test wrote just before (or this file, edited during the run)
    # read as an upgrade, and a helper answered its first request "protocol" and ended
    # (a clean-clone CI run); the code's freshness is not what this test is about
    monkeypatch.setattr(LoadedCode, "changed", lambda self: False)

    def wait_for(check: Callable[[], bool]) -> None:
        for _ in range(2400):
            if check():
                return
            threading.Event().wait(0.05)
        raise AssertionError("never happened")

    # each helper idles longer than a ping may wait (cc_client.ANSWER_TIMEOUT_S): one that
    # ended while another asked it or the stalled socket took its socket away under the
    # test (the first's 2 s; the second's 1 s, while a ping that reached the stalled socket
    # just before the second took the path over waited its 4 s: no ping was ever answered,
    # a clean-clone CI run at load 8-14)
    idle = cc_client.ANSWER_TIMEOUT_S + 2.0
    first = threading.Thread(target=cc_helper.serve, args=(home, idle))
    first.start()
    wait_for(path.exists)
    served = path.stat().st_ino
    cc_helper.serve(home, 30.0)  # the first holds the lock and answers: returns at once
    assert path.stat().st_ino == served
    first.join(60)
    assert not path.exists()  # idle, it removed its own socket
    # a holder that is stalled: it has the lock and a socket that never answers
    held = open_lock(path.with_suffix(".lock"))
    fcntl.flock(held, fcntl.LOCK_EX)
    stalled = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    at_socket(str(path), stalled.bind)  # (a test's home may be past the address limit)
    stalled.listen(4)
    try:
        second = threading.Thread(target=cc_helper.serve, args=(home, idle))
        second.start()
        # (the stalled one never answers: an answer is the second's, on the path it took)
        wait_for(lambda: cc_client._ask(home, "ping", b"") is not None)
        path.unlink()
        path.write_text("another helper's socket")  # put there while the second idled
        second.join(60)
        assert not second.is_alive() and path.read_text() == "another helper's socket"
    finally:
        stalled.close()
        os.close(held)


def test_installing_beside_another_scopes_install_of_another_home_warns(
        project: Path, tmp_path: Path) -> None:
    """A user install with one home and a project install with another both ran: every
    prompt was recorded in both homes and its pins added twice, with nothing said."""
    from waymarks.hosts import claude_code_install as cc

    user = tmp_path / "person"
    user.mkdir()
    first, second = tmp_path / "home-a", tmp_path / "home-b"
    assert cc.install("user", project, user, first)
    [settings] = [c for c in cc.install("project", project, user, second)
                  if c.path.name == "settings.json"]
    [warning] = settings.notes
    assert warning.startswith(f"warning: the user scope's {user / '.claude/settings.json'} "
                              f"runs Waymarks' hooks with another home ({first})")
    assert f"`waymarks --home {first} claude-code uninstall --user`" in warning
    cc.uninstall("project", project, user, second)
    [settings] = [c for c in cc.install("project", project, user, first)
                  if c.path.name == "settings.json"]
    assert settings.notes == []  # the same home in both: one hook, nothing to say


def test_installing_beside_another_scopes_other_command_for_this_home_warns(
        project: Path, tmp_path: Path) -> None:
    """The same home in both scopes by two commands (a venv's ``python3`` and ``python``,
    an older release's ``waymarks`` script): Claude Code runs both (it drops only
    identical commands), each prompt's pins were added twice, with nothing said."""
    from waymarks.hosts import claude_code_install as cc

    user, home = tmp_path / "person", tmp_path / "home"
    user.mkdir()
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python3", "python"):
        (bin_dir / name).symlink_to(sys.executable)
    assert cc.install("user", project, user, home, python_path=bin_dir / "python3")
    [settings] = [c for c in cc.install("project", project, user, home,
                                        python_path=bin_dir / "python")
                  if c.path.name == "settings.json"]
    [warning] = settings.notes
    assert warning.startswith(f"warning: the user scope's {user / '.claude/settings.json'} "
                              "runs Waymarks' hooks for this home by another command")
    assert f"`waymarks --home {home} claude-code uninstall --user`" in warning
    # the same command in both: one hook for Claude Code, nothing to say
    [settings] = [c for c in cc.install("project", project, user, home,
                                        python_path=bin_dir / "python3")
                  if c.path.name == "settings.json"]
    assert settings.notes == []
    # an older release's console-script hook for this home, in the user scope
    path = user / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    for event, groups in data["hooks"].items():
        groups[0]["hooks"][0]["command"] = f"/old/bin/waymarks --home {home} hook " \
                                           f"claude-code {event}"
    path.write_text(json.dumps(data))
    cc.uninstall("project", project, user, home)
    [settings] = [c for c in cc.install("project", project, user, home,
                                        python_path=bin_dir / "python3")
                  if c.path.name == "settings.json"]
    assert [n.split(" by another command")[0] for n in settings.notes] == [
        f"warning: the user scope's {path} runs Waymarks' hooks for this home"]


def test_only_the_hook_command_itself_is_taken_for_a_hook(project: Path, home: Path) -> None:
    """The words "hook claude-code" anywhere in a command line (a claim's text, a recall
    query, `help hook claude-code`) were refused as a mistyped hook line; and the full
    CLI's `--home=DIR` form was refused on the hook's own line."""
    for words in (["memory", "add", "--", "The hook claude-code SessionStart runs first."],
                  ["help", "hook", "claude-code"], ["recall", "hook", "claude-code"]):
        done = _hook(project, [str(WAYMARKS), "--home", str(home), *words])
        assert done.returncode == 0, (words, done.stderr)
        assert "not a hook command line" not in done.stderr
    done = _hook(project, [str(WAYMARKS), f"--home={home}", "hook", "claude-code",
                           "UserPromptSubmit"])
    assert done.returncode == 0, done.stderr
    assert list((home / "sessions").glob("*/*.jsonl"))  # the prompt was recorded
