"""``export --kind pin --status expired`` (a claim's status; a pin is never expired) wrote
an empty export and exited 0: ``-o backup.jsonl`` left an empty backup without a word,
while ``pins --status expired`` is a usage error naming the statuses a pin has. Now the
same refusal: exit 2, ``usage``, nothing written; ``--kind all`` takes either kind's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks


@pytest.mark.parametrize(("kind", "status", "named"), [
    ("pin", "expired", "active, superseded, deleted"),
    ("PIN", "Invalid", "active, superseded, deleted"),
    ("memory", "deleted", "active, superseded, invalid, expired")])
def test_a_status_the_kind_never_has_is_refused(home: Path, project: Path, kind: str,
                                                status: str, named: str) -> None:
    env = {"WAYMARKS_HOME": str(home), "HOME": str(home.parent / "user")}
    assert waymarks("pin", "--", "Run the linters.", env=env, cwd=project).returncode == 0
    out = project / "backup.jsonl"
    done = waymarks("--json", "export", "--kind", kind, "--status", "active", "--status",
                    status, "-o", str(out), env=env, cwd=project)
    refused = json.loads(done.stdout)
    assert (done.returncode, refused["code"]) == (2, "usage"), refused
    assert f"--status {status.lower()}: no {kind.lower()} has that status (a {kind.lower()}'s: " \
        f"{named}); nothing was written" in refused["message"], refused
    assert not out.exists()
    kept = waymarks("--json", "export", "--status", status, "--status", "active", env=env,
                    cwd=project)
    assert kept.returncode == 0 and len(json.loads(kept.stdout)["items"]) == 1, kept.stdout
