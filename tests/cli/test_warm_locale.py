"""The warm start (:mod:`waymarks.cli.warm`) for a client whose interpreter decodes the
names the OS gives it otherwise than a helper started with ``python -I`` would (an ASCII
locale with UTF-8 mode and locale coercion switched off): the child decoded the client's
directory with the helper's encoding, so a command a helper ran answered where the same
command in its own process refused. Real processes, as in ``tests/cli/test_warm.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.test_warm import _await, _environment, _python, _run, _stop_helpers

pytestmark = pytest.mark.slow  # real processes and a helper (~1 s or more)

#: an ASCII locale: no UTF-8 mode, no coercion to C.UTF-8 (``-I`` does not ignore it)
ASCII_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


def test_a_client_in_an_ascii_locale_is_answered_as_its_own_process_answers(
        tmp_path: Path) -> None:
    """A helper started with ``-I`` in the C locale ran in UTF-8 mode whatever the client
    said: ``pins`` in a directory named ``pröj`` listed pins through it and was refused
    in its own process (the name is not ASCII text there)."""
    home, project = tmp_path / "home", tmp_path / "pr\u00f6j"
    project.mkdir()
    home.mkdir()  # (the refused command makes none, and a helper starts in its home)
    env = _environment(home, **ASCII_LOCALE)
    try:
        alone = _run(["pins"], project, env, cold=True)
        assert alone.answer[0] == 2 and "not a UTF-8 path" in alone.answer[2], alone.answer
        assert _await(lambda: _run(["pins"], project, env).warm, 90), \
            "a helper started and served a command"
        served = _run(["pins"], project, env)
        assert served.warm
        assert served.answer == alone.answer
    finally:
        _stop_helpers(home)


def test_a_helper_refuses_a_client_that_decodes_names_otherwise(tmp_path: Path) -> None:
    """A request says how its client decodes names (file system encoding, UTF-8 mode),
    and the helper runs only one that decodes as it does."""
    code = ("import sys\n"
            "from waymarks.cli import warm, warm_server\n"
            "sys.path[:] = warm._paths()\n"
            "fields = warm._request(['pins']).split(b'\\0')[1:]\n"
            "same = warm_server._admitted(fields, None)\n"
            "own = warm_server.settings()\n"
            "warm_server.settings = lambda: own.replace('utf-8', 'ascii', 1)\n"
            "print(type(same).__name__, warm_server._admitted(fields, None))\n")
    env = {k: v for k, v in os.environ.items() if k not in ASCII_LOCALE}
    done = _python(code, env={**env, "LC_ALL": "C.UTF-8"}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Request", "b'installation'"]
