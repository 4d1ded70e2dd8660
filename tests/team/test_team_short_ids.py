"""Short IDs where team items are shown beside the person's own: one short form, one item."""

from __future__ import annotations

from pathlib import Path

from tests.inprocess import waymarks
from tests.team.test_team_hostile import _forge, repo, run  # noqa: F401 (a fixture)
from tests.team.test_team_source import Writer


def test_a_team_id_equal_to_your_ids_first_8_characters_is_told_apart_in_manifest(
        repo: Path, home: Path) -> None:  # noqa: F811 (the fixture)
    """A teammate's line whose item ID is the first 8 characters of the person's pin:
    `manifest` listed both as ``d1ed0b99``, and which one a row meant could not be told.
    The pin's row now shows its whole ID."""
    run(home, repo, "trust", ".")
    mine = run(home, repo, "pin", "--scope", "project", "--",
               "Run the migrations check before deploys")["id"]
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    _forge(Writer(directory, "mal-00000003", "Mal"), mine[:8], "Deploys skip the review "
           "step", at=10)
    run(home, repo, "plan", "how do we deploy?")
    text = waymarks("--home", str(home), "manifest", cwd=repo).stdout
    rows = [line.split()[:3] for line in text.splitlines()[1:]]
    assert ["included", "pin", mine] in rows, text
    assert ["included", "team", mine[:8]] in rows, text


def test_a_teammates_huge_item_id_is_cut_in_manifest_included_and_excluded(
        repo: Path, home: Path) -> None:  # noqa: F811 (the fixture)
    """An item ID of 100,000 characters (any line may hold one) was printed whole on its
    row by `manifest` and `excluded`; it is cut as `team status` cuts it, and two such IDs
    sharing their first 12 characters are still told apart."""
    run(home, repo, "trust", ".")
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    mal = Writer(directory, "mal-00000003", "Mal")
    _forge(mal, "Z" * 100_000, "Deploys skip the review step", at=10)
    _forge(mal, "Z" * 20 + "Y" * 80, "Deploys skip the lint step", at=20)
    run(home, repo, "plan", "how do we deploy?")
    for command in ("manifest", "excluded"):
        text = waymarks("--home", str(home), command, cwd=repo).stdout
        assert max(map(len, text.splitlines())) < 200, text[:300]
        assert f" {'Z' * 21}… " in text, text[:300]  # (past the 20 both IDs start with)
        assert command == "excluded" or f" {'Z' * 20}Y… " in text, text[:300]


def test_short_forms_stay_short_unless_another_id_starts_with_them() -> None:
    from waymarks.commands.planning import _short
    from waymarks.commands.render import unambiguous

    ids = ["0820181d-1b6d-4305-b420-5d1a3d859585", "0820181d", "1a2b3c4d-0000-4000-8000-"
           "000000000000", "1a2b3c4d-9999-4000-8000-000000000000", "ffffffff-0000-4000-8000-"
           "000000000000", "personal:x", "a" * 70, "a" * 30 + "b" * 40, "c" * 70]
    assert unambiguous(ids, _short) == {
        ids[0]: ids[0], ids[1]: "0820181d", ids[2]: ids[2], ids[3]: ids[3],
        ids[4]: "ffffffff", ids[5]: "personal:x", ids[6]: "a" * 31 + "…",
        ids[7]: "a" * 30 + "b…", ids[8]: "c" * 12 + "…"}


def test_team_ids_sharing_their_first_12_characters_are_listed_apart(
        repo: Path, home: Path) -> None:  # noqa: F811 (the fixture)
    """Two items of a teammate's whose IDs share their first 12 characters: `team status`
    listed both as ``abcdefabcdef``, and the unshare of that prefix is refused as
    ambiguous. Each row now shows as much as tells it apart, which an unshare takes."""
    run(home, repo, "trust", ".")
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    mal = Writer(directory, "mal-00000003", "Mal")
    _forge(mal, "abcdefabcdef0001", "Deploys skip review", at=10)
    _forge(mal, "abcdefabcdef0002", "Deploys need two reviews", at=20)
    mal.add("Deploys go out on Tuesdays")
    text = waymarks("--home", str(home), "team", "status", cwd=repo).stdout
    rows = [line.split()[0] for line in text.splitlines()[1:4]]
    assert rows == ["abcdefabcdef0001", "abcdefabcdef0002", "mal-00000003"], text
    run(home, repo, "team", "unshare", "--yes", rows[1], "wrong")
    assert [i["status"] for i in run(home, repo, "team", "status")["items"]] == [
        "active", "deleted", "active"]
