"""``MEMORY.md`` is read by other tools as it is (Pi's personal-memory extension injects it
into every request, on a directory shared through ``[personal] directory``), so a
local-only entry's name and description, which never leave the machine through a plan,
have no line there. Each test failed before the fix: the index listed them in clear."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.inprocess import waymarks

BANK = "My bank is Chase and my salary is 250000"
ADDRESS = "my home address is 12 Elm Street"


def _index(home: Path) -> str:
    return (home / "memory" / "MEMORY.md").read_text(encoding="utf-8")


def test_a_local_only_entry_has_no_line_in_the_index(cli: Callable[..., dict],
                                                     home: Path, project: Path) -> None:
    cli("personal", "save", "--classification", "local-only", "--name", "Bank", "--", BANK)
    cli("personal", "save", "--name", "Editor", "--", f"I use vim [ds4:local-only]and "
        f"{ADDRESS}[/ds4:local-only] daily")
    cli("personal", "save", "--name", "Reviews", "--", "Keep pull requests small.")
    index = _index(home)
    for private in ("Bank", "bank.md", "Chase", "250000", "Elm Street", "editor.md"):
        assert private not in index, private
    assert "- [Reviews](reviews.md)" in index  # the others are listed as before
    # `personal index` prints the file it wrote; `personal list` still shows every entry
    printed = waymarks("--home", str(home), "--cwd", str(project), "personal", "index",
                       cwd=project)
    assert printed.returncode == 0 and "Chase" not in printed.stdout
    assert "Reviews" in printed.stdout
    listed = cli("personal", "list")
    assert {"bank", "editor", "reviews"} <= {e["slug"] for e in listed["entries"]}


def test_a_hand_edited_entry_made_local_only_leaves_the_index(cli: Callable[..., dict],
                                                              home: Path) -> None:
    cli("personal", "save", "--name", "Bank", "--", BANK)
    assert "Chase" in _index(home)
    entry = home / "memory" / "bank.md"
    entry.write_text(entry.read_text(encoding="utf-8").replace(
        "---\n", "---\nclassification: local-only\n", 1), encoding="utf-8")
    cli("personal", "index")
    assert "Chase" not in _index(home)


def test_an_entry_saved_without_a_level_under_a_local_only_default_has_no_line(
        cli: Callable[..., dict], home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "local-only"\n',
                                      encoding="utf-8")
    cli("personal", "save", "--name", "Bank", "--", BANK)
    assert "Chase" not in _index(home) and "bank.md" not in _index(home)
