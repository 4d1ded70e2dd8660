"""``--json`` listings print the data only, so they build only the data (issue 15: over
2,504 pins the text table nobody saw cost ~400 ms of CPU). The document must be exactly
what the full listing's data is: checked through the real entry point (a subprocess),
for both places ``--json`` may stand, against the listing built with its text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.commands.items import _listing
from waymarks.service.app import Waymarks


def _cli(home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           *args], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow
def test_json_listings_are_the_full_listings_data(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        first = app.pin("Run the tests\tbefore every commit\u200b")
        app.pin("Use tabs", scope="project", classification="internal")
        app.pin("Prefer rebase", supersedes=getattr(first, "id", None))
        app.remember("The database port is 5433.", key="db-port")
        app.remember("Ship on Fridays? never.")
    for kind, command in (("pin", ["pins"]), ("memory", ["memory", "list"])):
        with Waymarks(home, cwd=str(project)) as app:
            full = _listing(app, kind)  # type: ignore[arg-type]
            limited = _listing(app, kind, limit=1)  # type: ignore[arg-type]
        assert full.text and full.table is not None  # the person's listing has its text
        for args in (["--json", *command], [*command, "--json"]):
            done = _cli(home, project, *args)
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout) == full.data
            assert len(done.stdout.splitlines()) == 1
        done = _cli(home, project, "--json", *command, "--limit", "1")
        assert json.loads(done.stdout) == limited.data and "omitted" in limited.data
        plain = _cli(home, project, *command)  # without --json: the text, as before
        assert plain.returncode == 0 and plain.stdout.rstrip("\n") == full.text
