"""A re-read of this stop's warm-helper and output changes (each test failed before)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from waymarks.cli import warm_server


def test_a_client_that_gave_up_before_run_was_said_does_not_stop_the_helper() -> None:
    """``run PID`` failed to reach a client that had given up (5 s on a loaded machine):
    its closed socket stayed among the children, and watching it (fd -1) raised
    ``ValueError`` out of the helper's loop: the helper died, and every command it ran
    ended its client with status 1."""
    gone, _other = socket.socketpair()
    gone.close()
    listening, peer = socket.socketpair()
    try:
        assert warm_server._wait([listening], {os.getpid(): gone}, {}, 0) == []
    finally:
        listening.close()
        peer.close()
        _other.close()


def test_a_c_locale_has_the_markers_dash_written_escaped_not_a_traceback(
        tmp_path: Path) -> None:
    """Under the C locale with UTF-8 mode off stdout is ASCII with ``surrogateescape``,
    which cannot write the marker's dash either: a recall ended in a traceback there."""
    project = tmp_path / "p"
    project.mkdir()
    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"), "HOME": str(tmp_path),
           "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
           "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_SEMANTIC": "off"}
    env.pop("PYTHONIOENCODING", None)
    waymarks = [sys.executable, "-m", "waymarks.cli.main"]
    subprocess.run([*waymarks, "memory", "add", "--",
                    "The billing service uses Kafka for its events."],
                   cwd=project, env=env, check=True, capture_output=True)
    for args in (["recall", "which service uses Kafka?"],
                 ["--json", "recall", "which service uses Kafka?"]):
        done = subprocess.run([*waymarks, *args], cwd=project, env=env,
                              capture_output=True)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        assert b"Traceback" not in done.stderr and b"Kafka" in done.stdout
