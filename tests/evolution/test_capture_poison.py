"""A capture request whose transcript holds half of a surrogate pair (JSON may escape one,
as a string cut inside an emoji) is captured with U+FFFD in its place: the words' UTF-8
encoding raised, the exception escaped the drain, and every later drain stopped at that
request (oldest first) with the requests behind it waiting for ever. And any other
failure a request meets counts a try against that request, never stops the queue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from waymarks.service import capture_spool
from waymarks.service.capture_spool import MAX_TRIES, pending, set_aside, write_request
from waymarks.service.evolution import Evolution, drain_captures

BROKEN = "We always deploy on Fridays with the blue pipeline \ud83d"
PLAIN = "From now on I prefer tabs over spaces in every Makefile"


def transcript(path: Path, statement: str) -> Path:
    entries = [{"type": "user", "uuid": "u1", "message": {"role": "user",
                                                          "content": statement}},
               {"type": "assistant", "uuid": "a1", "message": {"role": "assistant",
                "content": [{"type": "text", "text": "Noted \ud83d."}]}}]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def home_with(tmp_path: Path, *statements: str) -> Path:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    for n, statement in enumerate(statements):
        record = transcript(tmp_path / f"t{n}.jsonl", statement)
        assert write_request(home, "claude-code", "Stop", f"session-{n}", str(record),
                             str(project))
    return home


def statements(home: Path) -> list[str]:
    with Evolution(home) as evo:
        return sorted(s.text for s in evo.store.sources() if s.kind == "statement")


def test_a_lone_surrogate_in_the_persons_words_is_captured_as_a_replacement(
        tmp_path: Path) -> None:
    assert '"\\ud83d"' in json.dumps("\ud83d")  # what the transcript holds: an escape
    home = home_with(tmp_path, BROKEN, PLAIN)
    drained = drain_captures(home)
    assert (drained["done"], drained["kept"], pending(home)) == (2, 0, [])
    captured = statements(home)
    assert any(text.endswith("blue pipeline \ufffd") for text in captured), captured
    assert any(PLAIN in text for text in captured)


def test_a_request_that_fails_unexpectedly_counts_a_try_and_the_queue_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = home_with(tmp_path, PLAIN, PLAIN.replace("tabs", "spaces"))
    real = capture_spool.capture_request

    def capture(home: Path, request: dict[str, Any], evo: Evolution) -> int:
        if request["session"] == "session-0":
            raise ValueError("a defect met on this request's content")
        return real(home, request, evo)

    monkeypatch.setattr(capture_spool, "capture_request", capture)
    drained = drain_captures(home)
    assert (drained["done"], drained["kept"], drained["errors"]) == (
        1, 1, {"capture_error": 1})
    assert len(pending(home)) == 1 and len(statements(home)) == 1
    for _ in range(MAX_TRIES - 1):
        drain_captures(home)
    assert pending(home) == [] and len(set_aside(home)) == 1  # set aside, not retried for ever


@pytest.mark.parametrize("kind", ["fifo", "link_to_fifo", "directory"])
def test_an_entry_that_is_not_a_regular_file_is_set_aside_without_waiting(
        tmp_path: Path, kind: str) -> None:
    """A FIFO named like a request held every drain (and the spool's lock) until someone
    wrote to it; a directory was counted as waiting for ever. Each is set aside at once and
    the requests beside it are captured."""
    import os
    import subprocess
    import sys

    from waymarks.service.capture_spool import spool_dir

    home = home_with(tmp_path, PLAIN)
    odd = Path(spool_dir(home)) / "claude-code-odd-Stop.json"
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "link_to_fifo":
        os.mkfifo(tmp_path / "fifo")
        odd.symlink_to(tmp_path / "fifo")
    else:
        odd.mkdir()
    os.utime(odd, (1, 1), follow_symlinks=False)  # the oldest: drained first
    # a real process, bounded: before, it waited on the FIFO for ever
    done = subprocess.run(
        [sys.executable, "-c", "import sys, json; from pathlib import Path; "
         "from waymarks.service.evolution import drain_captures; "
         "print(json.dumps(drain_captures(Path(sys.argv[1]))))", str(home)],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    drained = json.loads(done.stdout)
    assert (drained["done"], drained["set_aside"], drained["errors"]) == (
        1, 1, {"not_regular": 1})
    assert pending(home) == [] and set_aside(home) == [odd.name]
    assert len(statements(home)) == 1
