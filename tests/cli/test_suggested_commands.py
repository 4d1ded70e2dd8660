"""A command the CLI suggests with a stored word in it is the command a shell runs.

A refusal's "run `waymarks trust PATH` first" wrote the project's path as it is, and
`team status` wrote a teammate's item ID into "settle with `waymarks team supersede ID --
TEXT`" as the file holds it. A folder named ``p $(touch PWNED)`` (a subfolder of a cloned
repository, say) or an item ID ``$(touch x)ab…`` in a teammate's file made the suggested
line, pasted into a shell, run ``touch`` and act on the wrong path or ID. Both words are
now quoted as a shell reads them (``core.text.shell_command``, the helper the web
inspector's actions already used).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.inprocess import Ran, waymarks
from waymarks.core.team import genesis, make_line


def _cli(home: Path, cwd: Path, *args: str) -> Ran:
    return waymarks(*args, env={"WAYMARKS_HOME": str(home), "HOME": str(home.parent / "user")},
                    cwd=cwd)


def _pasted(command: str, where: Path) -> list[str]:
    """The words ``command`` gives ``waymarks`` when pasted into bash (run in ``where``)."""
    shell = "waymarks() { printf '%s\\0' \"$@\"; }; " + command
    done = subprocess.run(["bash", "-c", shell], cwd=where, capture_output=True, text=True,
                          check=True, timeout=30)
    return done.stdout.split("\0")[:-1]


def test_the_trust_command_a_refusal_suggests_quotes_the_projects_path(tmp_path: Path) -> None:
    project = tmp_path / "p $(touch PWNED)"
    project.mkdir()
    done = _cli(tmp_path / "home", project, "pin", "--scope", "project", "--", "Use uv")
    assert done.returncode == 2, done.stdout + done.stderr
    suggested = re.search(r"run `([^`]*)` first", done.stderr)
    assert suggested, done.stderr
    paste = tmp_path / "paste"
    paste.mkdir()
    assert _pasted(suggested.group(1), paste) == ["trust", str(project)]
    assert not list(paste.iterdir()), "the pasted line ran a command of its own"


def test_team_status_quotes_a_teammates_item_id_in_the_command_it_suggests(
        tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
    home = tmp_path / "home"
    for args in (("trust", str(project)), ("team", "init")):
        done = _cli(home, project, *args)
        assert done.returncode == 0, done.stdout + done.stderr
    prev, lines = genesis("mate"), b""
    for seq, (item_id, text) in enumerate((("$(touch x)ab" + "0" * 20, "The port is 5433"),
                                           ("c" * 32, "The port is 5434")), 1):
        line, prev = make_line(contributor="mate", seq=seq, prev=prev, entry_id=f"{seq:032x}",
                               at=1_796_503_259_574 + seq, author="mate", op="add",
                               kind="memory", item={"id": item_id, "key": "db-port",
                                                    "text": text})
        lines += line
    (project / ".waymarks" / "team" / "mate.jsonl").write_bytes(lines)
    done = _cli(home, project, "team", "status")
    assert done.returncode == 0, done.stdout + done.stderr
    suggested = re.search(r"settle with `([^`]*)`", done.stdout)
    assert suggested, done.stdout
    paste = tmp_path / "paste"
    paste.mkdir()
    assert _pasted(suggested.group(1), paste) == ["team", "supersede", "$(touch x)ab", "--",
                                                  "TEXT"]
    assert not list(paste.iterdir()), "the pasted line ran a command of its own"


def test_health_quotes_another_sessions_claim_id_in_the_command_it_suggests(
        tmp_path: Path) -> None:
    """``health`` names a session claim that a project claim of another session contradicts,
    with the commands that settle it; that session's file chose its claim's ID."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    assert _cli(home, project, "trust", str(project)).returncode == 0
    assert _cli(home, project, "memory", "add", "--key", "db-port", "--",
                "The database port is 5433").returncode == 0
    first = {p.name for p in (home / "sessions").glob("*/*.jsonl")}
    session = json.loads(_cli(home, project, "--json", "session", "show").stdout)["session"]
    assert _cli(home, project, "session", "new").returncode == 0
    added = json.loads(_cli(home, project, "--json", "memory", "add", "--scope", "project",
                            "--key", "db-port", "--", "The database port is 5434").stdout)
    other = next(p for p in (home / "sessions").glob("*/*.jsonl") if p.name not in first)
    other.write_text(other.read_text(encoding="utf-8").replace(
        added["id"], "$(:>x)ab" + added["id"][8:]), encoding="utf-8")
    assert _cli(home, project, "rebuild-index").returncode == 0
    done = _cli(home, project, "--session", session["id"], "health")
    suggested = re.search(r"keep one with `([^`]*)`", done.stdout)
    assert suggested, done.stdout + done.stderr
    paste = tmp_path / "paste"
    paste.mkdir()
    assert _pasted(suggested.group(1), paste) == ["memory", "supersede", "$(:>x)ab", "--",
                                                  "CLAIM"]
    assert not list(paste.iterdir()), "the pasted line ran a command of its own"


def test_the_include_command_a_refusal_suggests_quotes_the_session_id(tmp_path: Path) -> None:
    """A write into an excluded session is refused with `waymarks memory include SID`; a
    session file placed in the project's folder chose that ID."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    assert _cli(home, project, "trust", str(project)).returncode == 0
    assert _cli(home, project, "pin", "--", "seed").returncode == 0
    session = next((home / "sessions").glob("*/*.jsonl"))
    header = json.loads(session.read_text(encoding="utf-8").splitlines()[0])
    header.update(id="$(:>y)s", timestamp="2026-12-01T00:00:00.000Z")
    planted = session.parent / "2026-12-01T00-00-00-000Z_planted.jsonl"
    planted.write_text(json.dumps(header) + "\n", encoding="utf-8")
    assert _cli(home, project, "memory", "exclude", "$(:>y)s").returncode == 0
    done = _cli(home, project, "--session", str(planted), "pin", "--scope", "project", "--",
                "Use uv")
    assert done.returncode == 2, done.stdout + done.stderr
    suggested = re.search(r"Nothing was written; `([^`]*)` first", done.stderr)
    assert suggested, done.stderr
    paste = tmp_path / "paste"
    paste.mkdir()
    assert _pasted(suggested.group(1), paste) == ["memory", "include", "$(:>y)s"]
    assert not list(paste.iterdir()), "the pasted line ran a command of its own"


def test_a_conflict_refusal_quotes_the_other_claims_id_in_the_command_it_suggests(
        tmp_path: Path) -> None:
    """A claim contradicting a project claim of another session is refused with `waymarks
    memory supersede ID -- NEW CLAIM`; that session's file chose the ID."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    assert _cli(home, project, "trust", str(project)).returncode == 0
    added = json.loads(_cli(home, project, "--json", "memory", "add", "--scope", "project",
                            "--key", "db-port", "--", "The database port is 5433").stdout)
    session = next((home / "sessions").glob("*/*.jsonl"))
    planted = "$(:>x)ab" + added["id"][8:]
    session.write_text(session.read_text(encoding="utf-8").replace(added["id"], planted),
                       encoding="utf-8")
    assert _cli(home, project, "rebuild-index").returncode == 0
    assert _cli(home, project, "session", "new").returncode == 0
    done = _cli(home, project, "memory", "add", "--scope", "project", "--key", "db-port", "--",
                "The database port is 5434")
    assert done.returncode == 2, done.stdout + done.stderr
    suggested = re.search(r"Use `([^`]*)` to replace it", done.stderr)
    assert suggested, done.stderr
    paste = tmp_path / "paste"
    paste.mkdir()
    assert _pasted(suggested.group(1), paste) == ["memory", "supersede", planted, "--", "NEW",
                                                  "CLAIM"]
    assert not list(paste.iterdir()), "the pasted line ran a command of its own"


def test_a_team_share_refusal_quotes_the_teammates_item_id(tmp_path: Path) -> None:
    """Sharing a claim a teammate's shared claim contradicts is refused with `waymarks team
    supersede ID -- TEXT`; the teammate's file chose the ID."""
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
    home = tmp_path / "home"
    for args in (("trust", str(project)), ("team", "init")):
        assert _cli(home, project, *args).returncode == 0
    line, _ = make_line(contributor="mate", seq=1, prev=genesis("mate"), entry_id="1" * 32,
                        at=1_796_503_259_574, author="mate", op="add", kind="memory",
                        item={"id": "$(:>x)ab" + "0" * 24, "key": "db-port",
                              "text": "The database port is 5433"})
    (project / ".waymarks" / "team" / "mate.jsonl").write_bytes(line)
    added = json.loads(_cli(home, project, "--json", "memory", "add", "--scope", "project",
                            "--key", "db-port", "--", "The database port is 5434").stdout)
    done = _cli(home, project, "team", "share", added["id"], "--yes")
    assert done.returncode == 2, done.stdout + done.stderr
    suggested = re.search(r"replace it with `([^`]*)`", done.stderr)
    assert suggested, done.stderr
    paste = tmp_path / "paste"
    paste.mkdir()
    assert _pasted(suggested.group(1), paste) == ["team", "supersede", "$(:>x)ab0000", "--",
                                                  "TEXT"]
    assert not list(paste.iterdir()), "the pasted line ran a command of its own"


def test_every_suggested_path_is_quoted_the_one_way() -> None:
    """The fixes a message gives with a path in them (moving a damaged session file aside,
    a read-only settings file's chmod) were quoted with ``shlex.quote``, which leaves a line
    break or an ESC in a folder's name raw inside its quotes: the line shown is not the one
    that runs once the terminal-safe pass escapes it. They go through ``shell_command``."""
    from waymarks.ledger.discovery import aside_fix

    path = "/home/dana/p\x1b]0;x\x07/s.jsonl"
    said = aside_fix(path)
    assert "$'/home/dana/p\\u001b]0;x\\u0007/s.jsonl'" in said, said
    assert "\x1b" not in said
