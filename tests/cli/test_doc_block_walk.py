"""docs/cli.md's block of commands walked alone, in order, on a fresh home, as a person
reading it from there does (``test_doc_examples`` runs the page's table first, whose `pi
install` makes ``~/.pi/agent``). `pi install --agent-dir ~/.pi/agent`, the block's
example, was refused there ("no such directory … add --create"), where `pi install`
without the flag makes that same folder: Pi's own default is made when missing, named or
not; another missing folder is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_doc_examples import Walk, _project, cli_page_examples, failures
from tests.documentation import ROOT
from tests.inprocess import waymarks as run_waymarks


def _block_examples() -> list[str]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = text.split("| to … | run |", 1)[1].split("\n\n", 1)[0]
    in_table = sum(row.count("`waymarks ") for row in table.splitlines()[2:])
    return cli_page_examples()[in_table:]


def test_the_block_alone_runs_on_a_fresh_home(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.setenv("EDITOR", "true")
    (tmp_path / "user").mkdir()
    walk = Walk(tmp_path / "home", _project(tmp_path))
    examples = _block_examples()
    assert examples[0] == "waymarks session new"
    assert "waymarks pi install --agent-dir '~/.pi/agent'" in examples
    failed = failures(walk, examples)
    assert not failed, "\n".join(failed)
    assert (tmp_path / "user" / ".pi" / "agent" / "extensions" / "waymarks.ts").is_file()


def test_another_missing_agent_dir_is_still_refused(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    (tmp_path / "user").mkdir()
    other = tmp_path / "user" / ".pi" / "agnet"
    done = run_waymarks("--home", str(tmp_path / "home"), "pi", "install", "--agent-dir",
                        str(other), cwd=tmp_path / "user")
    assert done.returncode == 2 and "no such directory" in done.stderr, done
    assert not other.exists()


def test_the_help_says_pi_s_default_is_made(tmp_path: Path) -> None:
    """`pi install -h` said a missing --agent-dir is refused unless --create, while Pi's own
    default is made, named or not (d25b0034)."""
    done = run_waymarks("--home", str(tmp_path / "home"), "pi", "install", "-h",
                        cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "does not exist (unless --create, or it is Pi's own default" in said, said
