"""A control character inside a credential (NUL, BEL, ESC, DEL, a C1 control such as the
8-bit CSI) hid it from every rule: the write took it, and a plan for a remote provider
sent the token whole with a ``\\u001b`` in its middle, which a model reads through as it
reads through a zero-width space. Each test failed before the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from tests.privacy.secret_corpus import TOKENS
from waymarks.core.secrets import find_secrets, redact

GHP = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
#: C0 and C1 controls that do not end a line, and DEL: each renders as nothing
CONTROLS = ["\x00", "\x07", "\x08", "\x1b", "\x1f", "\x7f", "\x80", "\x9b"]


@pytest.mark.parametrize("mark", CONTROLS, ids=[f"U+{ord(m):04X}" for m in CONTROLS])
def test_a_control_character_inside_any_token_does_not_hide_it(mark: str) -> None:
    for kind, token in TOKENS:
        middle = len(token) // 2
        hidden = f"{mark}see {token[:middle]}{mark}{token[middle:]} then{mark} go"
        redacted, count = redact(hidden)
        assert count == 1 and token[middle:] not in redacted, kind
        # the text around the span is as it was, its control characters included
        assert redacted.startswith(f"{mark}see ") and redacted.endswith(f" then{mark} go")
        assert redact(redacted) == (redacted, 0)


def test_line_breaks_and_tabs_still_end_a_token() -> None:
    for mark in ("\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85"):
        # the word after a break is a word of its own, not a token's tail
        found = find_secrets(f"see {GHP}{mark}then go")
        assert [(s.start, s.end) for s in found] == [(4, 4 + len(GHP))], repr(mark)


def _cli(home: Path, project: Path, *args: str, expect: int = 0) -> str:
    done = waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return done.stdout


def test_a_token_with_an_escape_inside_is_refused_by_the_real_cli(home: Path,
                                                                  project: Path) -> None:
    hidden = f"CI deploy uses {GHP[:20]}\x1b{GHP[20:]} always"
    said = _cli(home, project, "--json", "memory", "add", hidden, expect=2)
    answer = json.loads(said)
    # typed text holding a control character is refused first (the CLI's own check, before
    # the credential one); either way nothing is written and the answer does not echo it
    assert answer["code"] == "invalid_argument" and "U+001B" in answer["message"], answer
    assert GHP[20:] not in said and GHP[4:20] not in said
    listed = _cli(home, project, "--json", "memory")
    assert GHP[20:] not in listed


def test_a_ledger_holding_one_sends_it_redacted_to_a_remote_model(home: Path,
                                                                  project: Path) -> None:
    _cli(home, project, "memory", "add", "CI deploy uses PLACEHOLDER always")
    [ledger] = (home / "sessions").rglob("*.jsonl")
    # a hand edit (or a host's own ledger): the token with an ESC inside, as JSON writes it
    ledger.write_text(ledger.read_text().replace(
        "PLACEHOLDER", f"{GHP[:20]}\\u001b{GHP[20:]}"))
    _cli(home, project, "rebuild-index")
    plan = _cli(home, project, "plan", "--provider", "anthropic", "--prompt", "CI deploy")
    assert "CI deploy uses [REDACTED:github-token] always" in plan
    assert GHP[20:] not in plan and GHP[4:20] not in plan
    local = _cli(home, project, "plan", "--provider", "ollama", "--prompt", "CI deploy")
    assert "PLACEHOLDER" not in local  # the edit was read: a local model gets it exactly


def test_a_long_log_with_colour_codes_is_redacted_in_memory_of_its_size() -> None:
    """Since a control character is read through, a log with ANSI colours (ESC) took the
    path that stored the place of every character kept: a list of ints, about 42 bytes of
    memory per character of text (some 300 MB for an 8 MB paste, five times the CPU). Only
    the removed characters' places are stored now; spans map back as before."""
    import tracemalloc

    line = "INFO 2026-12-06 worker 17 processed batch 4411 in 35 ms ok\n"
    log = "\x1b[32m" + line * (1_000_000 // len(line)) + f"\x1b[0m token {GHP[:9]}\x1b"
    log += f"\u200b{GHP[9:]}\x1b[0m done"
    tracemalloc.start()
    try:
        spans = find_secrets(log)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(log), peak / len(log)
    [span] = spans
    assert log[span.start:span.end] == f"{GHP[:9]}\x1b\u200b{GHP[9:]}"
    redacted, count = redact(log)
    assert count == 1 and redacted.endswith(" token [REDACTED:github-token]\x1b[0m done")
