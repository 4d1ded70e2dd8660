"""``memory add --source nope`` (an entry ID of no entry: typed from an example, or a
list's column pasted from another session) was refused as ``off_branch``, "source entry
nope is not on the active branch": the person looked for a branch to switch to. An ID
that names no entry of the session is ``not_found`` in every command's one shape; one on
another branch of the conversation is still ``off_branch``. Nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks


def _run(home: Path, project: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    done = waymarks("--json", *args, env={"WAYMARKS_HOME": str(home),
                                          "HOME": str(home.parent / "user")}, cwd=project)
    return done.returncode, json.loads(done.stdout)


def _ledgers(home: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(home.rglob("*.jsonl"))}


def test_a_source_that_names_no_entry_is_not_found_and_one_off_the_branch_is_off_branch(
        home: Path, project: Path) -> None:
    root = _run(home, project, "session", "say", "root")[1]["entryId"]
    side = _run(home, project, "session", "say", "side")[1]["entryId"]
    assert _run(home, project, "session", "branch", root, "--summary", "again")[0] == 0
    before = _ledgers(home)
    for args in (("memory", "add", "--source", "1a2b3c4d", "--", "The cache is Redis."),
                 ("pin", "--source", "1a2b3c4d", "--", "Run the linters."),
                 ("memory", "add", "--source", f"{root},1a2b3c4d", "--", "The cache is Redis.")):
        code, refused = _run(home, project, *args)
        assert (code, refused["code"]) == (2, "not_found"), refused
        assert refused["message"] == ("no session entry '1a2b3c4d' in this session; list "
                                      "them with `waymarks session show`"), refused
    code, refused = _run(home, project, "memory", "add", "--source", side, "--",
                         "The cache is Redis.")
    assert (code, refused["code"]) == (2, "off_branch"), refused
    assert _ledgers(home) == before  # nothing written
    code, done = _run(home, project, "memory", "add", "--source", root, "--",
                      "The cache is Redis.")
    assert (code, done["outcome"]) == (0, "committed"), done
