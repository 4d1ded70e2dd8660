"""Every module under ``src/waymarks`` imports, each in the process's order of the package
walk (checked in a real subprocess, a fresh interpreter). Many modules are imported lazily,
only on the path that needs them (the credential rules for a text the secrets pre-test
passes, a host's adapter for its command): a name renamed in one module and still imported
under its old name by another one merged beside it broke that path alone, and no fast test
walked it (``secret_connections`` imported ``_is_reference`` after it became
``is_reference``: every ``memory add`` of a text the pre-test passed ended in a
traceback, exit 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_WALK = """
import importlib, json, pkgutil, waymarks
failed = {}
for module in pkgutil.walk_packages(waymarks.__path__, "waymarks."):
    try:
        importlib.import_module(module.name)
    except Exception as exc:  # what a lazy import on that path would raise
        failed[module.name] = f"{type(exc).__name__}: {exc}"
print(json.dumps(failed))
"""


def test_every_module_under_src_imports(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / ".cache"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", _WALK], capture_output=True, text=True,
                          env=env, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {}
