"""Every example of README.md's "Using it" table and of docs/cli.md (its table and its
command block) run as written, in order, in a temporary home and a trusted git project:
an option the page shows that the command does not take, or an example that fails, is a
failure here. The IDs the pages show (``1a2b3c4d``, ``<id>``, ``ID``) are replaced by the
ones the examples before them made; the other placeholders (``TEXT``, ``WORDS``,
``QUESTION``) by words. Not run: the servers (``waymarks mcp``, ``ui``), which wait for a
client."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.documentation import ROOT
from tests.inprocess import waymarks as run_waymarks

#: the examples refused here (exit 2), by the words that start them, with what the
#: refusal says: the one the page says is refused, and two that need what a test run has
#: not (a terminal for the editor; a teammate's file in the repository to count again)
REFUSED = {"memory add -- The database port is 5432.": "Refused (conflict)",
           "memory edit ": "needs a terminal",
           "team include alice-1a2b3c4d": "no contributor 'alice-1a2b3c4d'"}
SERVERS = ("mcp", "ui")


def readme_examples() -> list[str]:
    """The commands of README's "Using it" table ("run, for example")."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("| to … | run, for example |", 1)[1].split("\n\n", 1)[0]
    return [code for row in table.splitlines()[2:]
            for code in re.findall(r"`(waymarks [^`]+)`", row.split("|")[2])]


def cli_page_examples() -> list[str]:
    """docs/cli.md's "Which command do I want?" table, then its block of commands (each
    line's comment dropped, lines joined by `;` split)."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = text.split("| to … | run |", 1)[1].split("\n\n", 1)[0]
    found = [code for row in table.splitlines()[2:]
             for code in re.findall(r"`(waymarks [^`]+)`", row.split("|")[2])]
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        command: list[str] = []
        for word in [*words, ";"]:
            if word.endswith(";") and word != ";":
                command.append(word[:-1])
                word = ";"
            if word == ";":
                if command:
                    found.append(shlex.join(command))
                command = []
            else:
                command.append(word)
    return found


class Walk:
    """Runs examples in one home and project, keeping the IDs they made."""

    def __init__(self, home: Path, project: Path) -> None:
        self.home, self.project = home, project
        self.named: dict[tuple[str, str], str] = {}  # (shown ID, kind) -> real ID
        self.entry: str | None = None
        self.seeds = 0

    def cli(self, *args: str) -> Any:
        return run_waymarks("--home", str(self.home), *args, cwd=self.project)

    def _active(self, kind: str) -> str:
        listed = json.loads(self.cli("--json", "pins" if kind == "pin" else "memory",
                                     "--status", "active").stdout)["items"]
        if not listed:  # an example needs one: add it, as the example before it would
            self.seeds += 1
            words = ("pin", "--") if kind == "pin" else ("memory", "add", "--")
            added = json.loads(self.cli("--json", *words, f"Seed number {self.seeds}.").stdout)
            return str(added["id"])
        return str(max(listed, key=lambda i: i["createdAt"])["id"])

    def _entry(self) -> str:
        if self.entry is None:
            said = self.cli("--json", "session", "say", "A message to cite.")
            self.entry = str(json.loads(said.stdout)["entryId"])
        return self.entry

    def _id(self, shown: str, words: list[str], at: int) -> str:
        before = words[at - 1] if at else ""
        kind = ("entry" if before == "--source" or words[:2] == ["session", "branch"]
                else "pin" if words[0] in ("unpin", "pin") else "memory")
        if (shown, kind) not in self.named or shown in ("<id>", "ID"):
            self.named[(shown, kind)] = self._entry() if kind == "entry" else self._active(kind)
        return self.named[(shown, kind)]

    def words(self, example: str) -> tuple[list[str], Path | None]:
        words = shlex.split(example)[1:]
        target = None
        if ">" in words:  # the shell's redirect of standard output
            at = words.index(">")
            target, words = self.project / words[at + 1], words[:at]
        filled = []
        for at, word in enumerate(words):
            if word in ("<id>", "ID") or re.fullmatch(r"1a[0-9a-f]{6}", word):
                word = self._id(word, words, at)
            word = {"TEXT": "Some words to keep.", "WORDS": "database port",
                    "QUESTION": "which port?"}.get(word, word)
            filled.append(str(Path.home()) + word[1:] if word.startswith("~/") else word)
        return filled, target

    def run(self, example: str) -> tuple[int, str]:
        words, target = self.words(example)
        done = self.cli(*words)
        if target is not None:
            target.write_text(done.stdout, encoding="utf-8")
        return done.returncode, done.stdout + done.stderr


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "docs" / "rules.md").write_text("Keep functions short.\n", encoding="utf-8")
    return project


@pytest.mark.parametrize("examples", [readme_examples, cli_page_examples],
                         ids=["README.md", "docs/cli.md"])
def test_every_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            examples: Any) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("EDITOR", "true")
    (tmp_path / "user").mkdir()
    walk = Walk(tmp_path / "home", _project(tmp_path))
    failed = failures(walk, examples())
    assert not failed, "\n".join(failed)


def failures(walk: Walk, examples: list[str]) -> list[str]:
    """The examples that did not answer as the page says (exit 0, or 2 and the refusal
    :data:`REFUSED` names), each with its exit status and what it said."""
    failed = []
    for example in examples:
        if shlex.split(example)[1] in SERVERS:
            continue
        status, said = walk.run(example)
        refusal = next((why for start, why in REFUSED.items()
                        if example.split(" ", 1)[1].startswith(start)), None)
        if status != (0 if refusal is None else 2) or (refusal or "") not in said:
            failed.append(f"{example} -> exit {status}: {said.strip()[:300]}")
    return failed


def _options() -> set[str]:
    import click

    from waymarks.cli.app import build_root

    found = {"--help"}  # (every command's help option, not among its params)

    def walk(command: click.Command) -> None:
        found.update(o for p in command.params if isinstance(p, click.Option)
                     for o in (*p.opts, *p.secondary_opts) if o.startswith("--"))
        if isinstance(command, click.Group):
            context = click.Context(command)
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                if sub is not None:
                    walk(sub)

    walk(build_root())
    return found


def test_the_options_the_pages_name_exist_and_every_option_is_documented() -> None:
    """README.md and docs/cli.md name only options some command takes; every option of
    every command is named on some page (``export --output`` was on none: only ``-o``)."""
    options = _options()
    named = {page: set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)",
                                  (ROOT / page).read_text(encoding="utf-8")))
             for page in ("README.md", "docs/cli.md")}
    assert {page: sorted(o - options) for page, o in named.items()} == {
        "README.md": [], "docs/cli.md": []}
    everything = "\n".join(p.read_text(encoding="utf-8") for p in
                           [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    assert sorted(o for o in options if o not in everything) == []
