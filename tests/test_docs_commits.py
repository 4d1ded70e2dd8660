"""A commit the documentation names is one of this branch's history. Work is merged by
cherry-picking, which gives each commit a new ID: a page citing the ID a change had on its
own branch (`docs/conflicts.md` said "after periods as rates (55839386)" and "committed
before any run (e684e698)", where main holds them as 2e2d91c2 and 13ff758f) sends a reader
to a commit `git show` finds nowhere on main. Only IDs git knows as commits are checked:
an example ID (`1a2b3c4d`) names none, and outside a git checkout, or in a shallow one
where older commits are absent, there is nothing to check."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.documentation import ROOT, pages

_ID = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8,40}(?![0-9A-Za-z])")


def _git(*args: str, given: str | None = None) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(ROOT), *args], input=given, text=True,
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def test_every_commit_cited_is_on_this_branch() -> None:
    history = _git("rev-list", "HEAD")
    if history is None or _git("rev-parse", "--is-shallow-repository") != "false\n":
        pytest.skip("not a whole git checkout")
    cited = {found: page.name for page in pages()
             for found in _ID.findall(page.read_text(encoding="utf-8"))}
    names = sorted(cited)
    kinds = _git("cat-file", "--batch-check=%(objecttype) %(objectname)",
                 given="".join(f"{name}\n" for name in names)) or ""
    answers = kinds.splitlines()
    assert len(answers) == len(names), "git answered for another number of IDs"
    on_branch = set(history.split())
    strays = [f"{name} ({cited[name]})" for name, line in zip(names, answers, strict=True)
              if line.startswith("commit ") and line.split()[1] not in on_branch]
    assert not strays, f"commits cited that are not in HEAD's history: {strays}"
