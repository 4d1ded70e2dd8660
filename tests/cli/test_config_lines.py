"""``config show`` and ``privacy`` print each setting on its own line.

A trusted repository's ``.waymarks/config.toml`` (or the home's) may name providers with
any string; a name holding a line break printed lines of its own (``privacy``: a forged
"Local providers (may see everything): -" under the real one), since the final escaping
pass keeps line breaks. The values now go through ``cell``, as every listing's cells do;
``--json`` still carries them exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks

FORGED = "FORGED: "
CONFIG = ('[privacy]\ndefaultProvider = "x\\nFORGED: provider"\n'
          'localProviders = ["l\\nFORGED: local"]\n'
          '[privacy.remoteProviders]\n"r\\nFORGED: remote" = ["normal"]\n')


def _cli(tmp_path: Path, project: Path, *args: str) -> str:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(tmp_path / "home"),
                                "HOME": str(tmp_path / "user")}, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_a_repositorys_provider_names_print_no_lines_of_their_own(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text(CONFIG, encoding="utf-8")
    _cli(tmp_path, project, "trust", str(project))
    for args in (("config", "show"), ("privacy",)):
        out = _cli(tmp_path, project, *args)
        assert not [line for line in out.splitlines() if line.lower().startswith("forged")], out
        assert "x\\nFORGED: provider" in out, out
    shown = json.loads(_cli(tmp_path, project, "--json", "privacy"))
    assert shown["defaultProvider"] == "x\nFORGED: provider"


def test_a_setting_left_unset_reads_as_unset_not_as_python(tmp_path: Path) -> None:
    """``config show`` printed ``defaultContextWindow = None`` on every home that does not
    set it (Python's word for nothing); `--json` keeps ``null``."""
    project = tmp_path / "project"
    project.mkdir()
    out = _cli(tmp_path, project, "config", "show")
    [line] = [line for line in out.splitlines() if "defaultContextWindow" in line]
    assert "None" not in line and "not set" in line, out
    shown = json.loads(_cli(tmp_path, project, "--json", "config", "show"))
    assert shown["effective"]["defaultContextWindow"] is None
