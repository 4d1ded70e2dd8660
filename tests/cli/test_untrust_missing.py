"""``untrust PATH`` of a folder that does not exist said "Was not trusted: PATH", exit 0:
a typo looked like a project that had been untrusted. It is `not_found` now (exit 2, the
one shape every unknown name has, naming `waymarks trust --list`), nothing changed. A
trusted folder deleted since is still removed from the list (its entry is all that is
left of it), and the answer says the folder no longer exists."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks as run_waymarks
from waymarks.core.text import echoed


def _cli(home: Path, project: Path, *args: str, expect: int = 0) -> str:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return done.stdout + done.stderr


def _state(home: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(home.rglob("*"))
            if p.is_file() and p.suffix in {".json", ".jsonl"}}


def test_untrust_of_a_missing_folder_that_is_not_trusted_is_not_found(
        home: Path, project: Path, tmp_path: Path) -> None:
    _cli(home, project, "trust", ".")
    _cli(home, project, "pin", "--", "Run the tests first.")
    before = _state(home)
    missing = tmp_path / "no-such-project"
    shown = json.loads(_cli(home, project, "--json", "untrust", str(missing), expect=2))
    assert (shown["outcome"], shown["code"]) == ("rejected", "not_found"), shown
    assert shown["message"] == (f"no trusted project '{echoed(str(missing))}' (no such "
                                "directory, and not in the trust list); list them with "
                                "`waymarks trust --list`")
    said = _cli(home, project, "untrust", str(missing), expect=2)
    assert said.startswith("Refused (not_found): no trusted project")
    assert _state(home) == before
    listed = json.loads(_cli(home, project, "--json", "trust", "--list"))
    assert listed["projects"] == [str(project.resolve())]


def test_a_trusted_folder_deleted_since_is_untrusted_and_said_so(
        home: Path, project: Path, tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    _cli(home, project, "trust", str(gone))
    gone.rmdir()
    shown = json.loads(_cli(home, project, "--json", "untrust", str(gone)))
    assert shown["changed"] is True and shown["project"] == str(gone.resolve())
    _cli(home, project, "trust", str(project))
    gone.mkdir()
    _cli(home, project, "trust", str(gone))
    gone.rmdir()
    said = _cli(home, project, "untrust", str(gone))
    assert said.startswith(f"No longer trusted: {gone.resolve()} (the folder no longer "
                           "exists: its entry in the trust list is removed)")
    listed = json.loads(_cli(home, project, "--json", "trust", "--list"))
    assert listed["projects"] == [str(project.resolve())]
    # an existing folder that is not trusted is still answered as before
    assert _cli(home, project, "untrust", str(tmp_path)).startswith("Was not trusted: ")
