"""A flag named in prose, not given a value (``core/secret_checks.py``): "pass the --token
flag with the value from vault" sent "--token [REDACTED:secret] with …" and a write of it
was refused as a credential (exit 2): the flag rule read "flag" as the token. A noun naming
a flag (flag, option, argument, parameter, switch, field, value, variable) after it, where
prose goes on, is no value; a command's value still goes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.privacy.digests import shape_tests

test_a_flags_value_is_redacted, test_a_flag_named_in_prose_stays = shape_tests([
    ("mytool --password value --user x", "mytool --password [REDACTED:secret] --user x"),
    ("deploy --token Zq8Wm2Lp4Xc7 now", "deploy --token [REDACTED:secret] now"),
], [
    "hand the --token flag the value kept in vault, never inline it",
    "use the --password option only in CI",
    "set the --api-key argument from the env",
    "the --secret parameter is read from a file",
    "then the --token flag.",
    "the --password switch (deprecated) still works",
])


@pytest.mark.parametrize("text", ["hand the --token flag the value kept in vault"])
def test_the_cli_pins_it(tmp_path: Path, text: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "WAYMARKS_HOME": str(tmp_path / "home"),
           "WAYMARKS_SEMANTIC": "off"}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "pin", "--", text],
                          cwd=project, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Pinned" in done.stdout
