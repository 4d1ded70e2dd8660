"""``MEMORY.md`` is read by other tools as it is (Pi's personal-memory extension injects it
into every request, on a directory shared through ``[personal] directory``), so an
entry's name and description have a line there only when a remote provider the home names
nowhere may receive them (``remoteDefaultAllowed``). Each test failed before the fix: the
index listed them in clear."""

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


HEALTH = "I have diabetes and see Dr Okafor monthly"
VPN = "the corp VPN gateway is vpn3.corp"


def test_the_index_lists_only_what_the_homes_remote_default_allows(
        cli: Callable[..., dict], home: Path) -> None:
    """A sensitive or internal entry never reaches a remote provider by default, so its
    line would carry it to whatever model a reader of the index runs."""
    cli("personal", "save", "--classification", "sensitive", "--name", "Health", "--", HEALTH)
    cli("personal", "save", "--classification", "internal", "--name", "VPN", "--", VPN)
    cli("personal", "save", "--name", "Editor", "--",
        "I use vim; [ds4:sensitive]my therapist is on Tuesdays[/ds4:sensitive]")
    cli("personal", "save", "--name", "Reviews", "--", "Keep pull requests small.")
    index = _index(home)
    for private in ("Health", "health.md", "diabetes", "vpn3", "vpn.md", "therapist",
                    "editor.md"):
        assert private not in index, private
    assert "- [Reviews](reviews.md)" in index
    # a home whose remote default allows internal text lists it, never sensitive text
    (home / "config.toml").write_text('[privacy]\nremoteDefaultAllowed = ["normal", '
                                      '"internal"]\n', encoding="utf-8")
    cli("personal", "index")
    index = _index(home)
    assert "- [VPN](vpn.md)" in index and "diabetes" not in index


def test_an_index_an_older_version_wrote_is_corrected_by_the_next_plan(
        cli: Callable[..., dict], home: Path) -> None:
    cli("personal", "save", "--classification", "sensitive", "--name", "Health", "--", HEALTH)
    cli("personal", "save", "--name", "Reviews", "--", "Keep pull requests small.")
    older = "# Personal memory index\n\n- [Health](health.md) — " + HEALTH + \
        "\n- [Reviews](reviews.md) — Keep pull requests small.\n"
    (home / "memory" / "MEMORY.md").write_text(older, encoding="utf-8")
    cli("plan", "--provider", "ollama", "--prompt", "what do I prefer in reviews")
    index = _index(home)
    assert "diabetes" not in index and "- [Reviews](reviews.md)" in index
