"""docs/benchmarks.md lists every script of ``benchmarks/``: each one run as
``python benchmarks/NAME.py`` has a line in the page's block of commands, and each module
the scripts share (no ``__main__``: helpers, data, a frozen baseline) is named on the
page. Ten scripts had no line there (``learned_hook.py``, ``hybrid_oneshot.py``,
``supersede_chain.py`` …), so nobody reading the page knew to rerun them."""

from __future__ import annotations

import json
import re

from tests.documentation import ROOT

BENCHMARKS = ROOT / "benchmarks"
PAGE = ROOT / "docs" / "benchmarks.md"
_LINE = re.compile(r"^\.venv/bin/python benchmarks/([A-Za-z0-9_]+\.py)\b", re.M)


def _block() -> str:
    """The page's first fenced block: the commands to run."""
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(r"^```sh\n(.*?)^```", text, re.S | re.M)
    assert found, "docs/benchmarks.md has no ```sh block of commands"
    return found.group(1)


def _runnable(name: str) -> bool:
    return '__name__ == "__main__"' in (BENCHMARKS / name).read_text(encoding="utf-8")


def test_every_script_has_a_command_line() -> None:
    listed = set(_LINE.findall(_block()))
    scripts = {p.name for p in BENCHMARKS.glob("*.py") if _runnable(p.name)}
    assert scripts, "no benchmark script found"
    assert not scripts - listed, f"not in docs/benchmarks.md's commands: {sorted(scripts - listed)}"
    assert not listed - scripts, f"listed but no script: {sorted(listed - scripts)}"


def test_every_shared_module_is_named() -> None:
    text = PAGE.read_text(encoding="utf-8")
    shared = {p.name for p in BENCHMARKS.glob("*.py") if not _runnable(p.name)}
    assert shared, "no shared benchmark module found"
    missing = sorted(name for name in shared if f"`{name}`" not in text
                     and f"benchmarks/{name}" not in text)
    assert not missing, f"not named in docs/benchmarks.md: {missing}"


def test_the_pair_count_is_the_fixture_s() -> None:
    pairs = json.loads((BENCHMARKS / "conflict_pairs.json").read_text(encoding="utf-8"))
    line = next(line for line in _block().splitlines()
                if line.startswith(".venv/bin/python benchmarks/conflicts.py ") and "#" in line)
    said = re.search(r"([\d,]+) claim pairs", line)
    assert said, line
    assert int(said.group(1).replace(",", "")) == len(pairs), (line, len(pairs))
