"""The Claude Code helper answered with code that was not the one on disk, or not its
hook's installation's (each test failed before its fix):

1. a module the helper first imported while serving (the planner, on the first prompt)
   was remembered at the size and time its file had when the helper next compared its
   files: after a ``git pull`` in between, at the new code's, so the helper planned every
   prompt with the old code for as long as hooks came. A file modified after the helper
   started now counts as changed.
2. a request did not say which installation sent it: after a new venv or Python, a move
   from ``pip --user`` to pipx or ``claude-code install`` run again, the old
   installation's helper (same protocol) answered the new installation's hooks with its
   own code. A request names its installation now; a helper of another answers
   "protocol" (the hook does the work itself) and exits.

Each installation here is a copy of this checkout's ``src`` in a temporary directory
(modified a day ago), run by this interpreter: the helper started from it with
``-m``, its hooks by its own ``hook_entry.py`` as ``claude-code install`` writes them.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import isolated_python
from tests.hosts.test_cc_helper_stalled import ENTRY
from tests.hosts.test_cc_review_hooks import _environ, _helpers_of, _wait
from waymarks.hosts import cc_client
from waymarks.service.app import Waymarks

SOURCE = ENTRY.parents[2]  # this checkout's src
#: what every pin's block says, in the planner's renderer (an installation's copy of it is
#: changed to tell its code from this one's)
LINE = '"Pinned content JSON:"'


def _installation(root: Path, names: tuple[str, ...] = ("*",)) -> Path:
    """A copy of this checkout's ``src`` at ``root`` (of the files matching ``names``),
    made a day ago: an install made long before its helper started (a checkout's own
    files may have changed a moment ago, which a helper then starts taking for an
    upgrade); its ``hook_entry.py``."""
    for path in SOURCE.rglob("*.py"):
        if "__pycache__" not in path.parts and any(path.match(name) for name in names):
            copy = root / path.relative_to(SOURCE)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, copy)
            os.utime(copy, (time.time() - 86400,) * 2)
    return root / "waymarks" / "hosts" / "hook_entry.py"


def _mark(entry: Path, line: str) -> None:
    """Change the pin blocks this installation's planner renders to say ``line``."""
    render = entry.parents[1] / "planner" / "render.py"
    text = render.read_text()
    assert LINE in text
    render.write_text(text.replace(LINE, line))


def _start(home: Path, entry: Path) -> subprocess.Popen[bytes]:
    """The helper of ``entry``'s installation, listening (not pinged: a ping is a request
    of the test's own installation)."""
    environ = _environ(subagent=False, PYTHONPATH=str(entry.parents[2]))
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=environ, cwd=home, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait(lambda: Path(cc_client.socket_path(home)).exists() or helper.poll() is not None,
          "no helper")
    assert helper.poll() is None
    return helper


def _hook(home: Path, entry: Path, event: str, body: dict[str, object],
          helper: str = "on") -> str:
    """``event``'s hook as ``claude-code install`` writes it for ``entry``'s installation
    (``helper``: ``WAYMARKS_CC_HELPER``): what it printed."""
    done = subprocess.run([*isolated_python(), str(entry), "--home", str(home),
                           "hook", "claude-code", event],
                          input=json.dumps({**body, "hook_event_name": event}),
                          text=True, capture_output=True,
                          env=_environ(subagent=False, WAYMARKS_CC_HELPER=helper),
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _context(printed: str) -> str:
    return str(json.loads(printed)["hookSpecificOutput"]["additionalContext"])


def _session(home: Path, entry: Path, project: Path) -> str:
    """A session started by ``entry``'s hook, with a pin its prompts are given."""
    sid = str(uuid.uuid4())
    _hook(home, entry, "SessionStart", {"session_id": sid, "cwd": str(project)}, "off")
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Always tag releases from main")
    return sid


def _end(home: Path) -> None:
    """End the helpers the hooks started (found by their command line: ours)."""
    for pid in _helpers_of(home):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    _wait(lambda: not _helpers_of(home), "a helper did not end")


#: a helper's check, in a process of its own (no module of another test in it): a module
#: imported after the helper started, from a file last changed long before, is not a
#: change; one changed after its import, before the helper first compared it, is
LATE_IMPORT = """
import sys
sys.path.insert(0, sys.argv[2])  # (this checkout's, copied)
from waymarks.spawn.freshness import LoadedCode

loaded = LoadedCode()  # (the CLI's helper: before its preload; Claude Code's: at its start)
sys.path.insert(0, sys.argv[1])
import early_probe
print(loaded.changed())
import late_probe
with open(late_probe.__file__, "w") as module:  # a `git pull` while it served
    module.write("VALUE = 22\\n")
print(loaded.changed())
"""


def test_a_module_imported_after_the_start_and_changed_before_its_check_counts(
        tmp_path: Path) -> None:
    """Both helpers' check (:class:`waymarks.spawn.freshness.LoadedCode`): the CLI's
    helper took its files' stamps after its preload, Claude Code's after each first
    import, so a file changed in between was taken at its new stamp."""
    source = _installation(tmp_path / "install", ("waymarks/__init__.py",
                                                   "spawn/__init__.py", "freshness.py"))
    for name in ("early_probe", "late_probe"):
        (tmp_path / f"{name}.py").write_text("VALUE = 1\n")
        os.utime(tmp_path / f"{name}.py", (time.time() - 86400,) * 2)
    done = subprocess.run([sys.executable, "-I", "-B", "-c", LATE_IMPORT, str(tmp_path),
                           str(source.parents[2])], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


#: a helper's check over modules stamped a day ahead (clock skew): one imported before
#: the start, one after; then the second is written (a `git pull`: stamped now)
FUTURE_STAMP = """
import os, sys, time
sys.path.insert(0, sys.argv[2])  # (this checkout's, copied)
from waymarks.spawn.freshness import LoadedCode

sys.path.insert(0, sys.argv[1])
import early_probe
loaded = LoadedCode()
print(loaded.changed())
import late_probe
print(loaded.changed())
with open(late_probe.__file__, "w") as module:
    module.write("VALUE = 22\\n")
print(loaded.changed())
"""


def test_a_module_stamped_in_the_future_is_compared_not_taken_for_a_change(
        tmp_path: Path) -> None:
    """A file whose modification time is ahead of the clock (a file server's clock, a VM
    set back) counted as changed at first sight: every helper quit on its first request
    and each prompt started a new one. Its stamp is kept, and a later write counts."""
    source = _installation(tmp_path / "install", ("waymarks/__init__.py",
                                                   "spawn/__init__.py", "freshness.py"))
    for name in ("early_probe", "late_probe"):
        (tmp_path / f"{name}.py").write_text("VALUE = 1\n")
        os.utime(tmp_path / f"{name}.py", (time.time() + 86400,) * 2)
    done = subprocess.run([sys.executable, "-I", "-B", "-c", FUTURE_STAMP, str(tmp_path),
                           str(source.parents[2])], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True"]


#: two prompts asked of the helper by its installation's own client, its planner changed
#: in between (a `git pull` of the install while it served), one right after the other
BACK_TO_BACK = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from waymarks.hosts import cc_client
home, raw = sys.argv[2], sys.argv[3].encode()
render = Path(sys.argv[1], "waymarks", "planner", "render.py")
first = cc_client._ask(home, "UserPromptSubmit", raw)
render.write_text(render.read_text().replace(sys.argv[4], sys.argv[5]))
print(json.dumps([first, cc_client._ask(home, "UserPromptSubmit", raw)]))
"""


@pytest.mark.slow
def test_a_module_the_helper_imported_late_and_changed_since_is_not_answered_with(
        tmp_path: Path, home: Path, project: Path) -> None:
    """Also: the helper compared its files at most once a second, so a prompt asked
    within a second of the last check was answered by the old planner."""
    entry = _installation(tmp_path / "install")
    home.mkdir()
    sid = _session(home, entry, project)  # (no helper yet: it runs in the hook)
    helper = _start(home, entry)
    try:
        prompt = {"session_id": sid, "cwd": str(project), "prompt": "tag the release"}
        raw = json.dumps({**prompt, "hook_event_name": "UserPromptSubmit"})
        done = subprocess.run([sys.executable, "-I", "-B", "-c", BACK_TO_BACK,
                               str(entry.parents[2]), str(home), raw, LINE,
                               '"Pinned content JSON (new code):"'],
                              env=_environ(subagent=False), capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        first, second = json.loads(done.stdout)
        assert "Pinned content JSON:" in _context(first)  # the planner, imported late
        assert second is None, "answered by the old planner"  # ("protocol": the hook's)
        assert helper.wait(60) == 0  # the stale helper left
        printed = _context(_hook(home, entry, "UserPromptSubmit", prompt))
        assert "Pinned content JSON (new code):" in printed  # the hook's own process
    finally:
        helper.terminate()
        helper.wait(30)
        _end(home)


@pytest.mark.slow
def test_a_hook_of_another_installation_is_not_answered_by_this_ones_helper(
        tmp_path: Path, home: Path, project: Path) -> None:
    old = _installation(tmp_path / "old")
    _mark(old, '"Pinned content JSON (old installation):"')
    home.mkdir()
    sid = _session(home, ENTRY, project)
    helper = _start(home, old)  # the old installation's helper, still warm
    try:
        printed = _hook(home, ENTRY, "UserPromptSubmit",
                        {"session_id": sid, "cwd": str(project), "prompt": "tag it"})
        context = _context(printed)
        assert "(old installation)" not in context, "the old installation's helper answered"
        assert "Pinned content JSON:" in context  # this installation's own code
        assert helper.wait(60) == 0  # the stale helper left
        # the hook started a helper of its own installation, which answers its hooks
        [pid] = _wait(lambda: _helpers_of(home), "the hook started no helper")
        _wait(lambda: cc_client._ask(home, "ping", b"") is not None, "no helper answers")
        again = _context(_hook(home, ENTRY, "UserPromptSubmit",
                               {"session_id": sid, "cwd": str(project), "prompt": "now"}))
        assert "Pinned content JSON:" in again and _helpers_of(home) == [pid]
    finally:
        helper.terminate()
        helper.wait(30)
        _end(home)


#: the installation a hook's request names, as a hook's process (``-I -S``) computes it
KEY = ("import sys; sys.path.append(sys.argv[1]); "
       "from waymarks.hosts.cc_client import installation; print(installation())")


def _key(python: Path | str, source: Path = SOURCE) -> str:
    done = subprocess.run([*isolated_python(python), "-c", KEY, str(source)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _alias(tmp_path: Path) -> Path:
    """This interpreter by another path to its installation (a link to its venv or
    prefix: ``python3`` beside ``python``, a symlinked project folder)."""
    root = Path(sys.executable).parents[1]
    (tmp_path / "alias").symlink_to(root, target_is_directory=True)
    return tmp_path / "alias" / Path(sys.executable).relative_to(root)


def test_an_installation_spelled_two_ways_is_one(tmp_path: Path) -> None:
    """A hook's request named its installation by the interpreter's path as written:
    hooks of two scopes run by ``python3`` and ``python`` of one venv each made the
    other's helper exit, a new helper every prompt. Links are followed now; another
    folder holding the same interpreter (another venv) is still another installation."""
    (tmp_path / "src").symlink_to(SOURCE, target_is_directory=True)
    mine = _key(sys.executable)
    assert _key(_alias(tmp_path)) == mine
    assert _key(sys.executable, tmp_path / "src") == mine
    other = tmp_path / "venv2" / "bin" / "python"
    other.parent.mkdir(parents=True)
    other.symlink_to(os.path.realpath(sys.executable))
    assert _key(other) != mine


@pytest.mark.slow
def test_a_hook_by_another_spelling_of_the_installation_keeps_its_helper(
        tmp_path: Path, home: Path, project: Path) -> None:
    home.mkdir()
    sid = _session(home, ENTRY, project)
    prompt = {"session_id": sid, "cwd": str(project), "prompt": "tag the release"}
    try:
        _hook(home, ENTRY, "UserPromptSubmit", prompt)  # starts this installation's helper
        [pid] = _wait(lambda: _helpers_of(home), "the hook started no helper")
        _wait(lambda: cc_client._ask(home, "ping", b"") is not None, "no helper answers")
        done = subprocess.run([*isolated_python(_alias(tmp_path)), str(ENTRY), "--home",
                               str(home), "hook", "claude-code", "UserPromptSubmit"],
                              input=json.dumps({**prompt, "hook_event_name":
                                                "UserPromptSubmit"}), text=True,
                              capture_output=True, env=_environ(subagent=False),
                              timeout=120)
        assert done.returncode == 0 and "Pinned content JSON:" in _context(done.stdout)
        _wait(lambda: cc_client._ask(home, "ping", b"") is not None, "no helper answers")
        assert _helpers_of(home) == [pid], "the helper left for the other spelling's hook"
    finally:
        _end(home)


#: a preload, then a module's file removed before the first request: noted after the
#: preload, it counts as gone
PRELOADED_GONE = """
import os, sys
sys.path.insert(0, sys.argv[2])  # (this checkout's, copied)
from waymarks.spawn.freshness import LoadedCode

loaded = LoadedCode()
sys.path.insert(0, sys.argv[1])
import gone_probe  # (the preload)
loaded.note()
os.remove(gone_probe.__file__)
print(loaded.changed())
"""


def test_a_preloaded_module_whose_file_went_before_the_first_request_counts(
        tmp_path: Path) -> None:
    """A re-read: the CLI's helper took its preloaded modules' stamps at its first
    request; a file gone by then was never remembered, so never counted as gone."""
    source = _installation(tmp_path / "install", ("waymarks/__init__.py",
                                                   "spawn/__init__.py", "freshness.py"))
    (tmp_path / "gone_probe.py").write_text("VALUE = 1\n")
    os.utime(tmp_path / "gone_probe.py", (time.time() - 86400,) * 2)
    done = subprocess.run([sys.executable, "-I", "-B", "-c", PRELOADED_GONE, str(tmp_path),
                           str(source.parents[2])], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]



#: a ping as a hook of the installation at ``argv[1]`` sends it, its answer printed
PING = ("import sys; sys.path.append(sys.argv[1]); from waymarks.hosts.cc_client import _ask; "
        "print(repr(_ask(sys.argv[2], 'ping', b'')))")


def _ping(home: Path, entry: Path, semantic: str, **extra: str) -> str:
    environ = _environ(subagent=False, WAYMARKS_SEMANTIC=semantic, **extra)
    done = subprocess.run([*isolated_python(), "-c", PING, str(entry.parents[2]),
                           str(home)], env=environ, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_hooks_with_hybrid_recall_switched_otherwise_each_keep_a_helper(
        tmp_path: Path, home: Path) -> None:
    """The helper served every hook with the environment of the one that started it, so a
    hook under other switches was answered "protocol" and the helper left: hooks that
    alternated (``WAYMARKS_SEMANTIC`` off, then on) started a new helper on every prompt,
    each prompt cold, and so did hooks differing only in ``WAYMARKS_SEMANTIC_BACKFILL``
    with hybrid recall off. Each combination has its own helper's socket: the other
    hook finds none of its own (it does the work itself and starts one), and this helper
    stays; with hybrid recall off the backfill switch is no difference."""
    entry = _installation(tmp_path / "installed")
    home.mkdir()
    environ = _environ(subagent=False, PYTHONPATH=str(entry.parents[2]),
                       WAYMARKS_SEMANTIC="off")
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=environ, cwd=home, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(lambda: any((home / "claude-code").glob("helper*.sock"))
              or helper.poll() is not None, "no helper")
        assert _ping(home, entry, "0") == "''"  # off too, spelled otherwise: answered
        assert _ping(home, entry, "off", WAYMARKS_SEMANTIC_BACKFILL="off") == "''"
        assert helper.poll() is None
        assert _ping(home, entry, "on") == "None"  # not its helper: the hook does it
        assert _ping(home, entry, "off") == "''"  # and this one still serves
        assert helper.poll() is None
    finally:
        if helper.poll() is None:
            helper.terminate()
        helper.wait(30)
        _end(home)
