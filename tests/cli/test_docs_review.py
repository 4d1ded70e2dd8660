"""Defects a review of README against the CLI's behaviour reproduced; each test failed
before its fix."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from waymarks.cli import output
from waymarks.commands.results import Column, Table

CLAIM = "The database port defaults to 5432 and the replica listens on 5433 for reads."
COLUMNS = (Column(""), Column("ID"), Column("STATUS"), Column("SCOPE"), Column("CREATED"),
           Column("UPDATED"), Column("KEY"), Column("TEXT", wide=True))
ROW = ("*", "2b213226", "superseded→b78fb3c6", "session", "2026-12-04 21:24",
       "2026-12-04 21:24", "database-port-defaults", CLAIM)


def _shown(monkeypatch: pytest.MonkeyPatch, columns: int) -> str:
    monkeypatch.setattr(output, "_terminal_size", lambda: os.terminal_size((columns, 40)))
    monkeypatch.setenv("NO_COLOR", "1")
    text = output.render_table(Table(COLUMNS, [ROW], ["superseded"], ("(* = applies)",)))
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_a_narrow_terminal_still_shows_the_claim(monkeypatch: pytest.MonkeyPatch,
                                                 columns: int) -> None:
    """At 80 columns the fields beside the text left it no room: the memory list showed
    IDs, dates and keys, and no claim (at 100 too, with a superseded row). The rows are
    stacked then: their short fields, and below them the rest and the text, wrapped."""
    shown = _shown(monkeypatch, columns)
    assert " ".join(shown.split()).count(CLAIM) == 1, shown
    assert "database-port-defaults" in shown and "superseded→b78fb3c6" in shown
    assert all(len(line.rstrip()) <= columns for line in shown.splitlines()), shown
    assert shown.endswith("(* = applies)")


def test_a_wide_terminal_keeps_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _shown(monkeypatch, 200)
    header = shown.splitlines()[0].split()
    assert header == ["ID", "STATUS", "SCOPE", "CREATED", "UPDATED", "KEY", "TEXT"]
    assert CLAIM in shown


def test_manifest_text_without_a_plan_and_with_personal_lines(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """With no plan it printed "provider None, 0 tokens"; a personal line's ID
    (``personal:<slug>``) was cut to "personal", so every line read the same."""
    from waymarks.cli.main import main

    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(project)
    assert main(["manifest"]) == 0
    assert capsys.readouterr().out.strip() == "No plan yet: run `waymarks plan --prompt TEXT`."
    assert main(["personal", "save", "--name", "Editor", "--description", "vim", "--",
                 "I use vim for editing."]) == 0
    assert main(["plan", "--prompt", "which editor do I use?"]) == 0
    capsys.readouterr()
    assert main(["manifest"]) == 0
    shown = capsys.readouterr().out
    assert "personal:editor" in shown and "provider None" not in shown, shown


def test_the_help_names_every_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    from waymarks.cli.main import main

    assert main(["-h"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert all(n in text for n in ("0 done", "2 refused", "1 an environment",
                                         "130 interrupted")), text


@pytest.mark.parametrize(("args", "admitted"), [
    (["recall", "vault"], True), (["--json", "pins"], True),
    (["memory", "add", "--", "x"], False), (["export", "-o", "/tmp/x.jsonl"], False),
    (["--home", "/elsewhere", "context", "recall x"], False), (["--bogus", "recall"], False),
])
def test_the_warm_helper_runs_only_the_commands_a_client_routes(
        args: list[str], admitted: bool) -> None:
    """Only the client checked that a request was a recall or a listing of pins: a
    request made by hand ran any command in the helper (a write, an export), outside the
    sandbox the client was in."""
    from waymarks.cli import warm, warm_server

    request = warm._request(args)[len(warm.PROTOCOL) + 1:].split(b"\0")
    answer = warm_server._admitted(request, None)
    assert (not isinstance(answer, bytes)) is admitted, answer


def test_a_client_with_no_new_privileges_is_never_confined_alike(tmp_path: Path) -> None:
    """Landlock needs no-new-privileges and /proc does not show it: such a client could
    be in a sandbox the helper is not in, so its command never runs in the helper."""
    from waymarks.cli import warm

    def process(name: str, status: str) -> str:
        folder = tmp_path / name
        (folder / "ns").mkdir(parents=True)
        for link in ("ns/mnt", "ns/pid", "ns/user", "ns/net"):
            (folder / link).symlink_to(f"{link[3:]}:[4026531840]")
        (folder / "root").symlink_to("/")
        (folder / "status").write_text(status)
        return str(folder)

    free = "Name:\tpython\nSeccomp:\t0\nNoNewPrivs:\t0\nCapEff:\t000001ffffffffff\n"
    alike = warm.confinement(process("free", free))
    assert alike is not None and alike == warm.confinement(process("alike", free))
    assert warm.confinement(process("nnp", free.replace("Privs:\t0", "Privs:\t1"))) is None
    assert warm.confinement(process("capless", free.replace("1ff", "000"))) != \
        warm.confinement(process("free-again", free))


def test_tokens_after_a_plan_that_fell_back_says_so(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A review: after a plan that fell back (pins and request past the model limit),
    `tokens` said "No plan yet." though `manifest` listed that plan."""
    from waymarks.cli.main import main

    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(project)
    assert main(["plan", "--fixed-tokens", "99999", "--model-limit", "8000", "--prompt",
                 "hi"]) == 0
    capsys.readouterr()
    assert main(["tokens"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("The last plan fell back") and "8000" in said
    assert main(["--json", "tokens"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["blocks"] == [] and "8000" in document["fallback"]


@pytest.mark.parametrize("decision", ["included", "excluded"])
def test_included_and_excluded_without_a_plan_say_there_is_none(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], decision: str) -> None:
    """With no plan they said "Nothing included in the last plan.", of a plan never made
    (``manifest`` said "No plan yet"); ``--json`` carries the same note."""
    import json

    from waymarks.cli.main import main

    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("WAYMARKS_CLI_HELPER", "off")
    monkeypatch.chdir(project)
    assert main([decision]) == 0
    assert capsys.readouterr().out.strip() == "No plan yet: run `waymarks plan --prompt TEXT`."
    assert main(["--json", decision]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "items": [], "note": "no plan yet: run `waymarks plan --prompt TEXT`"}
    assert main(["plan", "--prompt", "which database?"]) == 0
    capsys.readouterr()
    assert main([decision]) == 0
    assert "No plan yet" not in capsys.readouterr().out
