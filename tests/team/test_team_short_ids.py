"""Short IDs where team items are shown beside the person's own: one short form, one item."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

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


def _forged(writer: Writer, item_id: str, text: str, at: int, key: str | None = None) -> None:
    """A claim of ``writer``'s under ``item_id`` (a teammate's file may choose any)."""
    from waymarks.core.team import make_line

    writer.seq += 1
    item = {"id": item_id, "text": text, **({"key": key} if key else {})}
    line, writer.prev = make_line(contributor=writer.contributor, seq=writer.seq,
                                  prev=writer.prev, entry_id=f"e-{writer.seq}", at=at,
                                  author=writer.author, op="add", kind="memory", item=item)
    with writer.path.open("ab") as handle:
        handle.write(line)


@pytest.mark.parametrize(("kept", "invalid", "key"), [
    ("abcdefabcdef0001", "abcdefabcdef0002", "db-port"),  # the key rule: supersede
    ("abcdefabcdef0001", "abcdefabcdef0002", None),  # a signature: unshare
    ("abcdefabcdef", "abcdefabcdef0002", None)])  # one ID those 12 characters alone
def test_the_command_a_conflict_suggests_settles_that_conflict(
        repo: Path, home: Path, kept: str, invalid: str, key: str | None) -> None:  # noqa: F811
    """Two teammates' claims conflict, their IDs sharing the first 12 characters: `team
    status` suggested `waymarks team supersede abcdefabcdef -- TEXT` (or `unshare`), which
    was refused as ambiguous; and where one ID is those 12 characters, the `unshare` meant
    for the other withdrew it. The command names as much of the ID as tells it apart,
    and run as given it settles the conflict it was suggested for."""
    run(home, repo, "trust", ".")
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    words = ("The database port is 5433.", "The database port is 5434.") if key else (
        "The staging database runs 3 replicas.", "The staging database runs 5 replicas.")
    _forged(Writer(directory, "ann-00000001", "Ann"), kept, words[0], 10, key)
    _forged(Writer(directory, "bob-00000002", "Bob"), invalid, words[1], 20, key)
    [conflict] = run(home, repo, "team", "status")["conflicts"]
    assert (conflict["kept"], conflict["invalid"]) == (kept, invalid)
    command = shlex.split(conflict["resolve"])
    assert command[:3] == ["waymarks", "team", "supersede" if key else "unshare"]
    named = command[3]
    assert named == (kept if key else invalid)[:max(12, len(named))]
    assert len(named) == (16 if key or kept != "abcdefabcdef" else 13), conflict
    text = waymarks("--home", str(home), "team", "status", cwd=repo).stdout
    assert f"`{conflict['resolve']}`" in text, text
    given = ["--yes", *command[3:]]
    run(home, repo, "team", *command[2:3], *(
        [g.replace("TEXT", "The database port is 5435.") for g in given] if key else
        [*given, "the other is right"]))
    status = {i["id"]: i["status"] for i in run(home, repo, "team", "status")["items"]}
    assert status[kept] == ("superseded" if key else "active"), status
    assert status[invalid] == ("invalid" if key else "expired"), status  # (unshared)
    assert not run(home, repo, "team", "status")["conflicts"]


def test_a_share_refused_for_a_conflict_names_an_id_the_supersede_takes(
        repo: Path, home: Path) -> None:  # noqa: F811 (the fixture)
    """The refusal of a share a team claim contradicts names the command replacing that
    claim: with two team IDs sharing their first 12 characters it named both alike."""
    run(home, repo, "trust", ".")
    directory = repo / ".waymarks" / "team"
    directory.mkdir(parents=True)
    ann = Writer(directory, "ann-00000001", "Ann")
    _forged(ann, "abcdefabcdef0001", "The staging database runs 3 replicas.", 10)
    _forged(ann, "abcdefabcdef0002", "Deploys go out on Tuesdays.", 20)
    mine = run(home, repo, "memory", "add", "--scope", "project", "--",
               "The staging database runs 5 replicas.")["id"]
    refused = run(home, repo, "team", "share", "--yes", mine, expect=2)
    assert refused["code"] == "conflict", refused
    command = re.search(r"`(waymarks team supersede [^`]*)`", refused["message"])
    assert command is not None, refused
    words = shlex.split(command.group(1))
    assert words[3] == "abcdefabcdef0001", refused
    run(home, repo, "team", "supersede", "--yes", words[3], "--",
        "The staging database runs 5 replicas.")
    status = {i["id"]: i["status"] for i in run(home, repo, "team", "status")["items"]}
    assert status["abcdefabcdef0001"] == "superseded" and status[
        "abcdefabcdef0002"] == "active", status


def test_a_share_id_is_named_by_its_first_12_characters() -> None:
    """Random share IDs (32 hex digits) stay 12 characters in a suggested command;
    only another ID starting alike makes one longer, and an ID another starts with
    whole is named whole (an exact ID is taken before a prefix)."""
    import uuid

    from waymarks.core.text import Naming, ids_named

    ids = [uuid.uuid4().hex for _ in range(2000)] + ["abcdefabcdef", "abcdefabcdef00",
                                                      "abcdefabcdef0002"]
    naming = Naming(ids)
    for item_id in ids:
        ref = naming.ref(item_id)
        assert ids_named(ids, ref) == [item_id], (item_id, ref)
    assert [naming.ref(i) for i in ids[-3:]] == ["abcdefabcdef", "abcdefabcdef00",
                                                "abcdefabcdef000"]
    assert sum(len(naming.ref(i)) == 12 for i in ids[:2000]) >= 1990
