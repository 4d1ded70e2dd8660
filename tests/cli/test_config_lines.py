"""``config show`` and ``privacy`` print each setting on its own line.

A trusted repository's ``.waymarks/config.toml`` (or the home's) may name providers with
any string; a name holding a line break printed lines of its own (``privacy``: a forged
"Local providers (may see everything): -" under the real one), since the final escaping
pass keeps line breaks. The values now go through ``cell``, as every listing's cells do;
``--json`` still carries them exactly. Provider IDs holding one are refused since (a
line break, like every control, bidi or zero-width character, is no part of a provider's
name: ``core/provider_ids.py``); other values keep being shown escaped.
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
    """Provider IDs holding a line break are refused where they are read now (every
    source of one, ``core/provider_ids.py``), naming the file and line: the refusal is
    one line, and no forged line is printed. A value that is not a provider ID and holds a
    line break (here the project's path, in ``Config files:``) is still shown escaped."""
    project = tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text(CONFIG, encoding="utf-8")
    _cli(tmp_path, project, "trust", str(project))
    for args in (("config", "show"), ("privacy",)):
        done = waymarks(*args, env={"WAYMARKS_HOME": str(tmp_path / "home"),
                                    "HOME": str(tmp_path / "user")}, cwd=project)
        assert done.returncode == 1, done.stdout + done.stderr
        out = done.stdout + done.stderr
        assert not [line for line in out.splitlines() if line.lower().startswith("forged")], out
        assert "config.toml line 3: localProviders: the provider ID 'l\\nFORGED: local' " \
            "holds a control character (U+000A)" in out, out
    odd = tmp_path / "p\nFORGED: path"
    (odd / ".waymarks").mkdir(parents=True)
    (odd / ".waymarks" / "config.toml").write_text('[privacy]\nlocalProviders = ["l"]\n')
    _cli(tmp_path, odd, "trust", str(odd))
    out = _cli(tmp_path, odd, "config", "show")
    assert not [line for line in out.splitlines() if line.lower().startswith("forged")], out
    assert "p\\nFORGED: path/.waymarks/config.toml" in out, out


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
