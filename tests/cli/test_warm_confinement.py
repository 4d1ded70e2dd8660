"""A warm command never runs with more than its client had: a child of the helper has the
helper's groups, resource limits, nice value and CPU affinity, so a client with others is
served by a helper of its own (:func:`waymarks.cli.warm.confinement`). Real processes."""

from __future__ import annotations

import os
import resource
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_warm import _environment, _run, _stop_helpers, _warm_up
from waymarks.cli import warm


def _lower_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(
        resource.RLIMIT_FSIZE)[1]))


def _one_cpu() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _confinement_of(**options: object) -> list[str] | None:
    """The confinement of a process started from this one with ``options``."""
    child = subprocess.Popen(["sleep", "60"], **options)  # type: ignore[call-overload]
    try:
        return warm.confinement(f"/proc/{child.pid}")
    finally:
        child.kill()
        child.wait()


CHANGES: list[tuple[str, Callable[[], None] | None, dict[str, object]]] = [
    ("a lower resource limit", _lower_file_size, {}),
    ("a higher nice value", lambda: os.nice(1), {}),
]
if len(os.sched_getaffinity(0)) > 1:
    CHANGES.append(("fewer CPUs", _one_cpu, {}))
if os.geteuid() == 0:  # (only root may set another process's groups)
    CHANGES += [("another supplementary group", None, {"extra_groups": [1234]}),
                ("another group", None, {"group": 1234, "extra_groups": [os.getgid()]})]


@pytest.mark.parametrize(("change", "before_exec", "options"), CHANGES,
                         ids=[change for change, _, _ in CHANGES])
def test_a_process_with_other_groups_or_limits_is_confined_otherwise(
        change: str, before_exec: Callable[[], None] | None, options: dict[str, object]
) -> None:
    """Only namespaces, seccomp, capabilities, cgroup and label were compared: a client
    that dropped a group (a file readable by it only) or lowered ``ulimit -f`` had its
    command run warm with the helper's, and read the file or wrote past its limit."""
    mine = warm.confinement()
    assert _confinement_of() == mine  # a child confined as this process is: the same
    assert _confinement_of(preexec_fn=before_exec, **options) != mine


@pytest.mark.slow
def test_a_client_with_a_lower_file_size_limit_is_not_answered_with_the_helpers(
        tmp_path: Path) -> None:
    """``ulimit -S -f 4`` (SQLite cannot grow its shared-memory file: the command fails in
    its own process) was answered warm, with the helper's limit: status 0 and the pins."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home)
    try:
        assert _run(["pin", "--", "use tabs"], project, env).answer[0] == 0
        _warm_up(project, env, home)  # a helper without the limit serves
        cold = _run(["pins"], project, env, cold=True, preexec_fn=_lower_file_size)
        assert cold.answer[0] == 1 and "SQLITE_IOERR" in cold.answer[2]
        for _ in range(3):  # (the first starts a helper with the limit; it then serves)
            ran = _run(["pins"], project, env, preexec_fn=_lower_file_size)
            assert ran.answer == cold.answer
        assert _run(["pins"], project, env).answer[0] == 0  # the first helper serves on
    finally:
        _stop_helpers(home)
