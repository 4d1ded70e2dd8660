"""A project's path is one line wherever the CLI prints it.

What a command prints is escaped on its way out except line breaks and tabs (a body's
lines are its own), so a path printed without ``cell`` kept them: a project folder named
``p\\nWARNING: …`` (a cloned repository's subfolder, say) printed a line of its own in
``status``, ``session show``, ``trust``, ``trust --list``, ``memory sources``, ``memory
show`` and the refusal of a project pin, a line a person reads as the tool's. The path is
escaped there now (``\\n``), as every listing escapes its cells.
"""

from __future__ import annotations

from pathlib import Path

from tests.inprocess import waymarks

FORGED = "WARNING: forged"


def _cli(tmp_path: Path, project: Path, *args: str, expect: int = 0) -> str:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(tmp_path / "home"),
                                "HOME": str(tmp_path / "user")}, cwd=project)
    assert done.returncode == expect, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_a_path_with_a_line_break_prints_no_line_of_its_own(tmp_path: Path) -> None:
    project = tmp_path / f"p\n{FORGED} line\tTAB"
    project.mkdir()
    shown = [_cli(tmp_path, project, "pin", "--scope", "project", "--", "x", expect=2),
             _cli(tmp_path, project, "memory", "sources")]
    shown.append(_cli(tmp_path, project, "trust", str(project)))
    added = _cli(tmp_path, project, "memory", "add", "--scope", "project", "--", "Port 5433")
    memory_id = added.split()[2]
    shown += [_cli(tmp_path, project, *args) for args in (
        ("status",), ("session", "show"), ("trust", "--list"), ("memory", "show", memory_id))]
    for out in shown:
        assert not any(line.startswith(FORGED) for line in out.splitlines()), out
        assert f"p\\n{FORGED} line\\tTAB" in out, out


def test_a_written_or_refused_file_path_prints_no_line_of_its_own(tmp_path: Path) -> None:
    """``adr new`` said ``Created <project>/docs/…`` with the project's line break raw, and
    ``export -o`` its file's (written, or refused: no such directory), as did ``evolution
    import`` and ``archive-legacy`` of a folder that is not one."""
    project = tmp_path / f"p\n{FORGED} line"
    project.mkdir()
    missing = str(tmp_path / f"gone\n{FORGED} line")
    shown = [_cli(tmp_path, project, "adr", "new", "Use SQLite"),
             _cli(tmp_path, project, "export", "-o", f"x\n{FORGED} line.jsonl"),
             _cli(tmp_path, project, "export", "-o", f"{missing}/x.jsonl", expect=2),
             _cli(tmp_path, project, "evolution", "import", missing, expect=2),
             _cli(tmp_path, project, "evolution", "archive-legacy", missing, expect=2)]
    for out in shown:
        assert not any(line.startswith(FORGED) for line in out.splitlines()), out
        assert f"\\n{FORGED} line" in out, out


def test_an_installers_path_prints_no_line_of_its_own(tmp_path: Path) -> None:
    """``pi install`` said ``Installed <agent dir>/extensions/waymarks.ts`` and
    ``claude-code install`` ``<project>/.claude/settings.json: +…`` with the folder's line
    break raw."""
    project = tmp_path / f"p\n{FORGED} line"
    project.mkdir()
    agent = tmp_path / f"agent\n{FORGED} line"
    shown = [_cli(tmp_path, project, "pi", "install", "--create", "--agent-dir", str(agent)),
             _cli(tmp_path, project, "claude-code", "install")]
    for out in shown:
        assert not any(line.startswith(FORGED) for line in out.splitlines()), out
        assert f"\\n{FORGED} line" in out, out
