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


def _homes(tmp_path: Path, *allowed: str) -> tuple[Path, list[Path]]:
    """Homes sharing one personal directory (``[personal] directory``), each with its
    own ``remoteDefaultAllowed``."""
    shared = tmp_path / "shared-memory"
    homes = []
    for n, levels in enumerate(allowed):
        home = tmp_path / f"home-{n}"
        home.mkdir()
        (home / "config.toml").write_text(
            f'[personal]\ndirectory = "{shared}"\n[privacy]\nremoteDefaultAllowed = '
            f"[{levels}]\n", encoding="utf-8")
        homes.append(home)
    return shared, homes


def _run(home: Path, project: Path, *args: str) -> str:
    ran = waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def _plan(home: Path, project: Path) -> None:
    _run(home, project, "plan", "--provider", "ollama", "--prompt", "what do I prefer")


def test_two_homes_sharing_a_directory_no_longer_take_turns_rewriting_the_index(
        tmp_path: Path, project: Path) -> None:
    """Each plan rewrote MEMORY.md to its own home's policy: the internal entry's line
    came and went, a new file every plan, and whichever home planned last decided what
    Pi injected. A plan now only removes what its home forbids."""
    shared, (strict, wide) = _homes(tmp_path, '"normal"', '"normal", "internal"')
    _run(wide, project, "personal", "save", "--classification", "internal", "--name",
         "VPN", "--", VPN)
    _run(wide, project, "personal", "save", "--name", "Reviews", "--",
         "Keep pull requests small.")
    index = shared / "MEMORY.md"
    assert "- [VPN](vpn.md)" in index.read_text(encoding="utf-8")  # the saver's policy
    _plan(strict, project)  # the stricter home removes what it may not hand a model
    settled = index.read_text(encoding="utf-8")
    assert "vpn" not in settled.casefold() and "- [Reviews](reviews.md)" in settled
    inode = index.stat().st_ino
    for home in (wide, strict, wide, strict):
        _plan(home, project)
        assert index.read_text(encoding="utf-8") == settled
        assert index.stat().st_ino == inode  # not rewritten at all
    # a save or `personal index` writes the whole index for its own home's policy
    _run(wide, project, "personal", "index")
    assert "- [VPN](vpn.md)" in index.read_text(encoding="utf-8")


def test_homes_allowing_different_levels_settle_on_what_both_allow(
        tmp_path: Path, project: Path) -> None:
    """Neither home's levels hold the other's: each plan that wrote its own index added
    the line the other had just removed, for ever."""
    shared, (first, second) = _homes(tmp_path, '"normal", "internal"',
                                     '"normal", "sensitive"')
    _run(first, project, "personal", "save", "--classification", "internal", "--name",
         "VPN", "--", VPN)
    _run(second, project, "personal", "save", "--classification", "sensitive", "--name",
         "Health", "--", HEALTH)
    _run(second, project, "personal", "save", "--name", "Reviews", "--",
         "Keep pull requests small.")
    _plan(first, project)
    _plan(second, project)
    index = shared / "MEMORY.md"
    settled, inode = index.read_text(encoding="utf-8"), index.stat().st_ino
    for private in ("vpn", "health", "diabetes"):
        assert private not in settled.casefold(), private
    assert "- [Reviews](reviews.md)" in settled
    for home in (first, second, first):
        _plan(home, project)
        assert index.read_text(encoding="utf-8") == settled
        assert index.stat().st_ino == inode


def test_a_plan_keeps_the_line_of_an_entry_renamed_by_hand_as_it_now_reads(
        cli: Callable[..., dict], home: Path) -> None:
    """A plan keeps an index line by the entry file it names: matched on the old name
    too, a hand-renamed entry lost its line (and Pi its entry) until the next save."""
    cli("personal", "save", "--name", "Reviews", "--", "Keep pull requests small.")
    cli("personal", "save", "--classification", "internal", "--name", "VPN", "--", VPN)
    entry = home / "memory" / "reviews.md"
    entry.write_text(entry.read_text(encoding="utf-8").replace(
        "name: Reviews", "name: Code reviews"), encoding="utf-8")
    index = home / "memory" / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "- [VPN](vpn.md) — " + VPN + "\n",
                     encoding="utf-8")
    cli("plan", "--provider", "ollama", "--prompt", "what do I prefer in reviews")
    text = index.read_text(encoding="utf-8")
    assert "- [Code reviews](reviews.md)" in text and "vpn" not in text.casefold()


def test_a_description_linking_another_entry_does_not_keep_that_entrys_line(
        tmp_path: Path, project: Path) -> None:
    """Only the link an index line opens with names its entry: one in a description made a
    plan of the home allowing the linked entry put its line back after the other home's
    plan had removed it, on every plan."""
    shared, (strict, wide) = _homes(tmp_path, '"normal"', '"normal", "internal"')
    _run(wide, project, "personal", "save", "--classification", "internal", "--name",
         "VPN", "--", VPN)
    _run(wide, project, "personal", "save", "--name", "Remote work", "--description",
         "connect first, see [VPN](vpn.md)", "--", "Connect to the VPN before pushing.")
    index = shared / "MEMORY.md"
    _plan(strict, project)
    _plan(wide, project)
    text = index.read_text(encoding="utf-8")
    assert "- [VPN](vpn.md)" not in text and "- [Remote work](remote-work.md)" in text


def test_an_index_too_large_to_read_is_emptied_by_the_next_plan(
        cli: Callable[..., dict], home: Path) -> None:
    """A plan could not read an index larger than an entry file may be, so it left it as
    it was, the line of an entry no remote model may receive included, for every reader
    that injects it; a plan cannot check such an index's lines, so it keeps none."""
    cli("personal", "save", "--classification", "sensitive", "--name", "Health", "--", HEALTH)
    cli("personal", "save", "--name", "Reviews", "--", "Keep pull requests small.")
    index = home / "memory" / "MEMORY.md"
    index.write_text("# Personal memory index\n\n- [Health](health.md) — " + HEALTH + "\n"
                     + "- note\n" * 60_000, encoding="utf-8")
    cli("plan", "--provider", "ollama", "--prompt", "what do I prefer in reviews")
    assert index.read_text(encoding="utf-8") == "# Personal memory index\n"
    cli("personal", "index")  # which writes the whole index again
    assert "- [Reviews](reviews.md)" in index.read_text(encoding="utf-8")
