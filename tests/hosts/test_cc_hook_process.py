"""The hook's own process, as ``claude-code install`` runs it (``python -I -S hook_entry.py``)
without its warm helper: it answers, then ends without the interpreter's teardown (the
teardown of the ~230 modules a prompt's hook imports, with the cyclic collector on again,
was CPU spent after the answer on nothing to write), its ``atexit`` functions run and its
answer whole."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

from tests.conftest import isolated_python
from waymarks.hosts.claude_code import handle
from waymarks.service.app import Waymarks

ENTRY = Path(__file__).resolve().parents[2] / "src" / "waymarks" / "hosts" / "hook_entry.py"

#: the launcher run as ``__main__`` beside an object only a teardown frees, and an
#: ``atexit`` function (what the teardown does that matters)
PROBE = (
    "import atexit, runpy, sys\n"
    "class Kept:\n"
    "    def __del__(self):\n"
    "        sys.stderr.write('torn down\\n')\n"
    "kept = Kept()\n"
    "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
    "sys.argv = [sys.argv[1], *sys.argv[2:]]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n")


#: the same beside the console script's form (``waymarks hook claude-code EVENT``, what the
#: first installs wrote): its ``main`` run as the entry-point script runs it
CONSOLE_PROBE = PROBE.replace(
    "sys.argv = [sys.argv[1], *sys.argv[2:]]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n",
    "sys.argv = ['waymarks', *sys.argv[2:]]\n"
    "from waymarks.cli.main import main\n"
    "sys.exit(main())\n")


def _prompt_hook(home: Path, project: Path, probe: str = PROBE,
                 python: tuple[str, ...] = ()) -> subprocess.CompletedProcess[bytes]:
    """A pinned session's prompt hook run by the launcher under ``probe`` (by ``python``:
    the isolated one Claude Code runs it with when not given), without its helper."""
    session = str(uuid.uuid4())
    handle("SessionStart", {"session_id": session, "cwd": str(project),
                            "hook_event_name": "SessionStart", "source": "startup"}, home)
    with Waymarks(home, cwd=str(project), session=session) as app:
        app.pin("Always run the linters")
    event = json.dumps({"session_id": session, "cwd": str(project),
                        "hook_event_name": "UserPromptSubmit",
                        "transcript_path": str(project / "t.jsonl"),
                        "prompt": "lint my change"}).encode()
    return subprocess.run(
        [*(python or isolated_python()), "-c", probe, str(ENTRY), "--home", str(home), "hook",
         "claude-code", "UserPromptSubmit"],
        input=event, cwd=project, capture_output=True, timeout=120,
        env={**os.environ, "WAYMARKS_CC_HELPER": "off"})


def test_a_prompt_hook_in_its_own_process_ends_without_the_teardown(
        home: Path, project: Path) -> None:
    done = _prompt_hook(home, project)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert '"Always run the linters"' in context  # the answer, whole
    said = done.stderr.decode().splitlines()
    assert "atexit ran" in said and "torn down" not in said, said


def test_what_an_atexit_function_writes_to_standard_output_is_kept(
        home: Path, project: Path) -> None:
    """The ``atexit`` functions run before the streams are flushed, as the interpreter's
    own exit runs them: a line one wrote to standard output (a pipe: buffered) after the
    hook's answer was lost when the streams were flushed first and the process ended."""
    probe = PROBE.replace("sys.stderr.write('atexit ran", "sys.stdout.write('atexit ran")
    done = _prompt_hook(home, project, probe)
    assert done.returncode == 0, done.stderr
    answer, _, after = done.stdout.decode().rpartition("}")
    assert '"Always run the linters' in answer and after == "atexit ran\n", done.stdout
    assert "torn down" not in done.stderr.decode()  # (still ended without the teardown)


def test_a_refused_hook_command_line_still_exits_as_before(home: Path) -> None:
    """Nothing ran in the process (a usage message): the status is the launcher's 1."""
    done = subprocess.run([*isolated_python(), "-c", PROBE, str(ENTRY), "--home", str(home),
                           "hook", "claude-code"], capture_output=True, timeout=60)
    assert done.returncode == 1
    assert b"not a hook command line" in done.stderr


def test_a_prompt_hook_run_by_the_console_script_ends_without_the_teardown(
        home: Path, project: Path) -> None:
    """The console script's form (`waymarks hook claude-code UserPromptSubmit`) runs the
    same hook in its process and tore the interpreter down after the answer (~25 ms of
    CPU, with nothing to write); it ends as the launcher does: the answer whole, the
    ``atexit`` functions run (what one writes to standard output after the answer kept)."""
    import sys

    probe = CONSOLE_PROBE.replace("sys.stderr.write('atexit ran",
                                  "sys.stdout.write('atexit ran")
    done = _prompt_hook(home, project, probe, (sys.executable,))
    assert done.returncode == 0, done.stderr
    answer, _, after = done.stdout.decode().rpartition("}")
    context = json.loads(answer + "}")["hookSpecificOutput"]["additionalContext"]
    assert '"Always run the linters"' in context and after == "atexit ran\n", done.stdout
    assert "torn down" not in done.stderr.decode(), done.stderr


def test_a_refused_console_script_hook_line_still_exits_as_before(home: Path) -> None:
    """A usage message (no event) from the console script: exit 1, torn down as before."""
    import sys

    done = subprocess.run([sys.executable, "-c", CONSOLE_PROBE, str(ENTRY), "--home",
                           str(home), "hook", "claude-code"], capture_output=True, timeout=60)
    assert done.returncode == 1
    assert b"not a hook command line" in done.stderr
    assert b"atexit ran" in done.stderr
