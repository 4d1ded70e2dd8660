"""A `--key` longer than a key can be (160 characters, folded to a slug as stored): `memory
add` refused it (too_long, exit 2), while `memory list --key` (and `memory --key`) cut it
to its first 160 characters, so on an empty set it said "No memory items match." (exit 0)
and beside a claim keyed with those 160 characters it listed that claim as a match of
another key. One rule now: every command given such a key refuses it, exit 2, too_long,
with the same words and the fix; nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks as run_waymarks

LIMIT = ("Memory key has {n} characters as stored (folded to a slug); the limit is 160: "
         "give a shorter key (e.g. --key db-port)")


def _cli(home: Path, project: Path, *args: str, expect: int = 0) -> str:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args[:3], done.stdout[:300], done.stderr[:300])
    return done.stdout + done.stderr


def _ledgers(home: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((home / "sessions").rglob("*.jsonl"))}


@pytest.mark.parametrize("stored", [False, True])
def test_a_key_past_the_limit_is_refused_by_every_command(home: Path, project: Path,
                                                          stored: bool) -> None:
    _cli(home, project, "session", "new")
    if stored:  # a claim whose key is the long one's first 160 characters
        _cli(home, project, "memory", "add", "--key", "k" * 160, "--", "The port is 1.")
    before = _ledgers(home)
    for key in ("k" * 300, "k" * 300 + "-x", "K" * 161):
        n = len(key)
        for args in (("memory", "list", "--key", key), ("memory", "--key", key),
                     ("context", f"memory list --key {key}")):
            shown = json.loads(_cli(home, project, "--json", *args, expect=2))
            assert (shown["outcome"], shown["code"]) == ("rejected", "too_long"), shown
            assert shown["message"] == LIMIT.format(n=n) + "; no claim has a longer one"
            said = _cli(home, project, *args, expect=2)
            assert said.startswith("Refused (too_long): Memory key has") and "No memory" \
                not in said
        added = json.loads(_cli(home, project, "--json", "memory", "add", "--key", key, "--",
                                "The database is postgres.", expect=2))
        assert added["message"] == LIMIT.format(n=n) + "; nothing was written"
    assert _ledgers(home) == before
    listed = json.loads(_cli(home, project, "--json", "memory", "list", "--key", "k" * 160))
    assert len(listed["items"]) == int(stored)
