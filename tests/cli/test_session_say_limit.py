"""``session say`` took a message of any length (100,000 characters were appended whole,
exit 0) where every other write has a limit: it is refused now past 4,000 characters, a
pin's limit, with the words a pin's refusal uses (exit 2, `too_long`, nothing appended)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks as run_waymarks


def _ledgers(home: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((home / "sessions").rglob("*.jsonl"))}


def test_a_message_past_the_pin_limit_is_refused(home: Path, project: Path) -> None:
    def cli(*args: str, expect: int = 0) -> str:
        done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
        assert done.returncode == expect, (args[:3], done.stdout[:300], done.stderr[:300])
        return done.stdout + done.stderr

    cli("session", "new")
    said = json.loads(cli("--json", "session", "say", "a" * 4000))
    assert said["entryId"]
    before = _ledgers(home)
    long = "word " * 20000
    shown = json.loads(cli("--json", "session", "say", long, expect=2))
    assert (shown["outcome"], shown["code"]) == ("rejected", "too_long"), shown
    assert shown["message"] == ("The message has 99999 characters; the limit is 4000: "
                                "shorten it; nothing was written")
    pinned = json.loads(cli("--json", "pin", "--", long, expect=2))
    assert pinned["message"] == shown["message"].replace("The message", "Pin content")
    assert cli("session", "say", "a" * 4001, expect=2).startswith("Refused (too_long): ")
    assert _ledgers(home) == before


def test_a_branch_summary_past_the_limit_is_refused(home: Path, project: Path) -> None:
    """`session branch --summary` took any length too (20,000 characters appended)."""
    def cli(*args: str, expect: int = 0) -> str:
        done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
        assert done.returncode == expect, (args[:3], done.stdout[:300], done.stderr[:300])
        return done.stdout + done.stderr

    entry = json.loads(cli("--json", "session", "say", "A message."))["entryId"]
    before = _ledgers(home)
    shown = json.loads(cli("--json", "session", "branch", entry, "--summary", "x" * 20000,
                           expect=2))
    assert (shown["code"], shown["message"]) == ("too_long", "The summary has 20000 "
                                                 "characters; the limit is 4000: shorten it; "
                                                 "nothing was written")
    assert _ledgers(home) == before
    assert json.loads(cli("--json", "session", "branch", entry, "--summary", "y" * 4000))


def test_each_help_names_the_limit(home: Path, project: Path) -> None:
    """`session say -h` said the 4,000 characters; `session branch -h` said nothing of its
    --summary's, which is the same limit since c43492ac."""
    for command in ("say", "branch"):
        done = run_waymarks("--home", str(home), "session", command, "-h", cwd=project)
        assert done.returncode == 0, done.stderr
        assert "at most 4,000 characters" in " ".join(done.stdout.split()), (command,
                                                                             done.stdout)
