"""What an import's report says was written: ``written`` is whether any line was (an
import refused at its writes, every line of it, and one whose every line was a duplicate
both said ``"written": true``, with nothing written), and a refusal by what another
process wrote between the check and the writes is told apart from one by the check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_transfer import _row, cli  # noqa: F401 (cli: the fixture)
from waymarks.service.app import Waymarks

DEPLOYS = "The deploy target is production."


def a_sibling_writes_after_the_check(monkeypatch: pytest.MonkeyPatch, home: Path,
                                     project: Path) -> list[str]:
    """Another session of ``project`` writes :data:`DEPLOYS` for the project between the
    import's check and its writes; the ID it was given, once it is."""
    checked = Waymarks.dry_run_all
    sibling: list[str] = []

    def check_then_a_sibling_writes(app: Waymarks, *args: Any, **kwargs: Any) -> Any:
        decisions = checked(app, *args, **kwargs)
        other = Waymarks(home, cwd=str(project))
        try:
            other.session_new()
            made = other.remember(DEPLOYS, scope="project")
            sibling.append(made.id)  # type: ignore[union-attr]
        finally:
            other.close()
        return decisions

    monkeypatch.setattr(Waymarks, "dry_run_all", check_then_a_sibling_writes)
    return sibling


def test_lines_refused_by_a_write_made_after_the_check_are_a_partial_import(
        cli: Any, home: Path, project: Path, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another session wrote a claim contradicting a line between the import's check and
    its writes: the report was `rejected`, exit 2 (docs/cli.md: a refusal changes nothing)
    while the other lines were committed, and it blamed "lines imported before them". It
    is `partial` now, exit 1, naming the claim the line conflicts with."""
    cli("trust", str(project))
    source = tmp_path / "project.jsonl"
    source.write_text("".join(_row(text, scope="project") + "\n" for text in (
        "Builds run on the CI farm.", "The deploy target is staging.",
        "Reviews need two approvals.")))
    sibling = a_sibling_writes_after_the_check(monkeypatch, home, project)
    report = cli("import", str(source), expect=1)
    assert (report["outcome"], report["code"], report["written"]) == (
        "partial", "changed_since_check", True)
    assert report["counts"] == {"imported": 2, "refused": 1}
    assert report["conflicts"] == sibling
    [line] = [e for e in report["lines"] if e["outcome"] == "refused"]
    assert (line["line"], line["code"], line["conflicts"]) == (2, "conflict", sibling)
    assert f"line 2: conflict with {sibling[0]}" in report["message"]
    assert "imported before them" not in report["message"]
    stored = {i["text"] for i in cli("memory", "--status", "active")["items"]}
    assert stored == {"Builds run on the CI farm.", "Reviews need two approvals.", DEPLOYS}


def test_an_import_whose_every_line_was_refused_at_its_writes_wrote_nothing(
        cli: Any, home: Path, project: Path, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    cli("trust", str(project))
    source = tmp_path / "project.jsonl"
    source.write_text(_row("The deploy target is staging.", scope="project") + "\n")
    sibling = a_sibling_writes_after_the_check(monkeypatch, home, project)
    report = cli("import", str(source), expect=2)
    assert (report["outcome"], report["code"], report["written"]) == (
        "rejected", "changed_since_check", False)
    assert report["counts"] == {"refused": 1} and report["conflicts"] == sibling
    assert "nothing was imported" in report["message"]
    assert [i["text"] for i in cli("memory", "--status", "active")["items"]] == [DEPLOYS]


def test_an_import_of_duplicates_only_wrote_nothing(cli: Any, tmp_path: Path  # noqa: F811
                                                    ) -> None:
    source = tmp_path / "twice.jsonl"
    source.write_text("".join(_row(text) + "\n" for text in ("Builds run on the CI farm.",
                                                             "Reviews need two approvals.")))
    assert cli("import", str(source))["written"] is True
    again = cli("import", str(source))
    assert (again["outcome"], again["written"], again["counts"]) == (
        "imported", False, {"duplicate": 2})
    assert len(cli("memory")["items"]) == 2
