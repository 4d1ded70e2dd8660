"""Decision records as people write them by hand: file names and frontmatter that are not
the scaffold's own shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.personal.docs import DECISIONS_DIR, load_chunks

OLD = ("---\nid: ADR-0001\ntitle: Kafka retention\nstatus: Accepted\n"
       "decision: Keep kafka events thirty days\n---\n")


def decisions(project: Path) -> Path:
    folder = project / DECISIONS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ADR-0001-kafka-retention.md").write_text(OLD, encoding="utf-8")
    return folder


@pytest.mark.parametrize("name", ["ADR-0002-Shorter-Kafka-Retention.md",
                                  "adr-0002-shorter-kafka-retention.md",
                                  "ADR-0002_shorter_kafka_retention.md", "ADR-0002.md"])
def test_a_record_named_by_hand_supersedes_what_it_names(
        cli: Callable[..., dict], project: Path, name: str) -> None:
    """A record whose file name is not the scaffold's (capitals, ``_``, no slug) was read
    as a plain doc: its raw frontmatter was served, and the decision it supersedes as
    current (``adr new`` counts such a file's number, so it is a record)."""
    (decisions(project) / name).write_text(
        "---\nid: ADR-0002\ntitle: Shorter kafka retention\nstatus: Accepted\n"
        "decision: Keep kafka events seven days\nsupersedes: ADR-0001\n---\n",
        encoding="utf-8")
    chunks = load_chunks(project)
    assert [(c.status, c.text) for c in chunks] == [
        ("Accepted", "ADR-0002: Shorter kafka retention\nDecision: Keep kafka events seven "
                     "days")]
    cli("trust", str(project))
    sent = json.dumps(cli("plan", "--prompt", "how long do we keep kafka events?")["messages"])
    assert "seven days" in sent and "thirty" not in sent and "supersedes:" not in sent
    [row] = [d for d in cli("team", "status")["docs"] if d["path"].endswith(name)]
    assert (row["id"], row["status"]) == ("ADR-0002", "Accepted")


def test_a_record_without_an_id_is_named_by_its_number(project: Path) -> None:
    """Without an ``id`` a record is the number its file is named for, whatever the case
    (``adr-0001`` was no ``ADR-0001``: a record superseding it left it current)."""
    folder = decisions(project)
    (folder / "ADR-0001-kafka-retention.md").unlink()
    (folder / "adr-0001-kafka.md").write_text(OLD.replace("id: ADR-0001\n", ""))
    (folder / "ADR-0002-shorter.md").write_text(
        "---\nid: ADR-0002\ntitle: Shorter\nstatus: Accepted\nsupersedes: ADR-0001\n---\n")
    assert [c.source for c in load_chunks(project)] == [
        "docs/engineering/decisions/ADR-0002-shorter.md"]


@pytest.mark.parametrize("nothing", ["null", "~", "NULL", "[]", "''"])
def test_a_superseded_by_that_yaml_reads_as_nothing_retires_nothing(
        project: Path, nothing: str) -> None:
    """``superseded_by: null`` (or ``~``, ``[]``: YAML's ways to say there is none) was a
    value, so the decision in force was taken for a retired one and left every plan."""
    (decisions(project) / "ADR-0001-kafka-retention.md").write_text(
        OLD.replace("\n---\n", f"\nsuperseded_by: {nothing}\n---\n"), "utf-8")
    [summary] = load_chunks(project)
    assert (summary.status, summary.text) == (
        "Accepted", "ADR-0001: Kafka retention\nDecision: Keep kafka events thirty days")


@pytest.mark.parametrize("decision", [
    "decision: >\n  Keep kafka events\n  seven days.\n",
    "decision: >-\n  Keep kafka events\n\n  seven days.\n",
    "decision: |\n  Keep kafka events\n  seven days.\n",
    "decision: Keep kafka events\n  seven days.\n",
], ids=["folded", "folded-strip", "literal", "plain-continued"])
def test_a_decision_written_over_several_lines_is_served_whole(
        cli: Callable[..., dict], project: Path, decision: str) -> None:
    """A value over several lines (a YAML block scalar, ``decision: >``, or a plain one
    continued on indented lines) was its first line alone: every plan was served
    ``Decision: >``, and the decision itself was lost."""
    (decisions(project) / "ADR-0002-shorter.md").write_text(
        "---\nid: ADR-0002\ntitle: Shorter kafka retention\nstatus: Accepted\n"
        + decision + "why: |\n  cost\nsupersedes: ADR-0001\n---\n", encoding="utf-8")
    [summary] = load_chunks(project)
    said = " ".join(summary.text.split())
    assert said == ("ADR-0002: Shorter kafka retention Decision: Keep kafka events seven "
                    "days. Why: cost")
    cli("trust", str(project))
    plan = cli("plan", "--prompt", "how long do we keep kafka events?")
    assert "seven days" in json.dumps(plan["messages"])


def test_a_record_never_retires_itself(project: Path) -> None:
    """A record copied from the one it replaces, its ``id`` left as it was, named itself
    in its ``supersedes``: it retired itself with the other, and neither decision was
    served (the same for one naming its own ID there)."""
    folder = decisions(project)
    (folder / "ADR-0002-longer.md").write_text(
        OLD.replace("thirty", "ninety").replace("---\n", "---\nsupersedes: ADR-0001\n", 1))
    [summary] = load_chunks(project)
    assert (summary.source, summary.text) == (
        "docs/engineering/decisions/ADR-0002-longer.md",
        "ADR-0001: Kafka retention\nDecision: Keep kafka events ninety days")
    (folder / "ADR-0002-longer.md").unlink()
    (folder / "ADR-0001-kafka-retention.md").write_text(
        OLD.replace("---\n", "---\nsupersedes: ADR-0001\n", 1))
    assert [c.text for c in load_chunks(project)] == [
        "ADR-0001: Kafka retention\nDecision: Keep kafka events thirty days"]


@pytest.mark.parametrize(("named", "supersedes"), [
    ("id: ADR-0001", "supersedes: adr-0001"), ("id: ADR-0001", "supersedes: ADR-1"),
    ("id: adr-0001", "supersedes: ADR-0001"), ("id: ADR-1", "supersedes: ADR-0001"),
    ("id: ADR-0001", "supersedes: '[ADR-0001](ADR-0001-kafka-retention.md)'"),
])
def test_a_record_is_superseded_however_its_number_is_written(
        project: Path, named: str, supersedes: str) -> None:
    """Only ``ADR-`` and four digits named a record, exactly: ``supersedes: adr-0001`` or
    ``ADR-1`` (or a record whose ``id`` was written so) retired nothing, and the old
    decision was served as current beside the new one."""
    folder = decisions(project)
    (folder / "ADR-0001-kafka-retention.md").write_text(OLD.replace("id: ADR-0001", named))
    (folder / "ADR-0002-shorter.md").write_text(
        f"---\nid: ADR-0002\ntitle: Shorter\nstatus: Accepted\n{supersedes}\n---\n")
    assert [c.source for c in load_chunks(project)] == [
        "docs/engineering/decisions/ADR-0002-shorter.md"]


def test_a_record_whose_fences_have_spaces_after_them_is_a_record(project: Path) -> None:
    """``--- `` opening a decision record's frontmatter left it none: the record was served
    as ``Proposed`` with its frontmatter as text, and what it supersedes as current."""
    (decisions(project) / "ADR-0002-shorter.md").write_text(
        "--- \nid: ADR-0002\ntitle: Shorter\nstatus: Accepted\nsupersedes: ADR-0001\n---\t\n")
    assert [(c.source, c.status, c.text) for c in load_chunks(project)] == [
        ("docs/engineering/decisions/ADR-0002-shorter.md", "Accepted", "ADR-0002: Shorter")]


@pytest.mark.parametrize("retired", ["status: Superseded\nsuperseded_by: ADR-0003",
                                     "status: Deprecated", "status: Accepted\n"
                                     "superseded_by: ADR-0003"])
def test_what_a_superseded_record_replaced_stays_replaced(project: Path, retired: str) -> None:
    """ADR-0002 replaced ADR-0001, and ADR-0003 replaced ADR-0002: marked superseded,
    ADR-0002 no longer retired what it had replaced, and ADR-0001 was served as the
    current decision again beside ADR-0003. A rejected record, never decided, still
    retires nothing."""
    folder = decisions(project)
    (folder / "ADR-0002-b.md").write_text(
        f"---\nid: ADR-0002\ntitle: Ninety\n{retired}\nsupersedes: ADR-0001\n---\n")
    (folder / "ADR-0003-c.md").write_text(
        "---\nid: ADR-0003\ntitle: Seven\nstatus: Accepted\nsupersedes: ADR-0002\n---\n")
    assert [c.text for c in load_chunks(project)] == ["ADR-0003: Seven"]
    (folder / "ADR-0002-b.md").write_text(
        "---\nid: ADR-0002\ntitle: Ninety\nstatus: Rejected\nsupersedes: ADR-0001\n---\n")
    assert [c.text.split("\n")[0] for c in load_chunks(project)] == [
        "ADR-0001: Kafka retention", "ADR-0003: Seven"]


def test_records_numbered_by_year_retire_only_the_one_named(project: Path) -> None:
    """Records numbered by year and count (ADR-2024-01, ADR-2024-02, ...) were all one
    record to a supersedes once a record's number became its key (ADR-2024): ADR-2024-03
    superseding ADR-2024-02 took ADR-2024-01, another decision in force, out of every
    plan. A number several records share is told apart by the whole id."""
    folder = project / DECISIONS_DIR
    folder.mkdir(parents=True)

    def record(number: str, title: str, extra: str = "") -> None:
        (folder / f"ADR-2024-{number}-x.md").write_text(
            f"---\nid: ADR-2024-{number}\ntitle: {title}\nstatus: Accepted\n{extra}---\n")

    record("01", "Postgres is the main database")
    record("02", "Kafka events kept 7 days")
    record("03", "Kafka events kept 30 days", "supersedes: adr-2024-02\n")
    assert sorted(c.text for c in load_chunks(project)) == [
        "ADR-2024-01: Postgres is the main database",
        "ADR-2024-03: Kafka events kept 30 days"]


def test_team_status_names_a_record_without_an_id_as_plans_do(
        cli: Callable[..., dict], project: Path) -> None:
    """``team status`` showed ``id: None`` (and no id in its text) for a record whose
    frontmatter has no ``id``, while plans named it by its file's number."""
    folder = decisions(project)
    (folder / "adr-3-storage.md").write_text(
        "---\ntitle: Postgres for storage\nstatus: Accepted\ndecision: Storage is postgres\n"
        "---\n", encoding="utf-8")
    [chunk] = [c for c in load_chunks(project) if "storage" in c.source]
    assert chunk.text.startswith("ADR-0003: Postgres for storage")
    cli("trust", str(project))
    [row] = [d for d in cli("team", "status")["docs"] if d["path"].endswith("storage.md")]
    assert (row["id"], row["title"], row["status"]) == ("ADR-0003", "Postgres for storage",
                                                        "Accepted")


def loop_of_two(project: Path, second: str = "Accepted") -> Path:
    folder = decisions(project)
    (folder / "ADR-0001-kafka-retention.md").write_text(
        OLD.replace("---\n", "---\nsupersedes: ADR-0002\n", 1), encoding="utf-8")
    (folder / "ADR-0002-shorter.md").write_text(
        f"---\nid: ADR-0002\ntitle: Shorter kafka retention\nstatus: {second}\n"
        "decision: Keep kafka events seven days\nsupersedes: ADR-0001\n---\n",
        encoding="utf-8")
    return folder


def test_records_that_supersede_each_other_are_both_served_and_said_to_conflict(
        cli: Callable[..., dict], project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ADR-0001 superseding ADR-0002 and ADR-0002 ADR-0001, both Accepted: each retired
    the other, so neither decision was served, while ``team status`` listed both as
    Accepted. Neither is known to be in force: both are served, each saying it conflicts
    with the other, and ``team status`` names the loop."""
    loop_of_two(project)
    assert [c.text for c in load_chunks(project)] == [
        "ADR-0001: Kafka retention\nDecision: Keep kafka events thirty days\nConflict: "
        "ADR-0002 supersedes this record, which supersedes it in turn; which decision is "
        "in force is not settled",
        "ADR-0002: Shorter kafka retention\nDecision: Keep kafka events seven days\n"
        "Conflict: ADR-0001 supersedes this record, which supersedes it in turn; which "
        "decision is in force is not settled"]
    cli("trust", str(project))
    sent = json.dumps(cli("plan", "--prompt", "how long do we keep kafka events?")["messages"])
    assert "seven days" in sent and "thirty days" in sent
    rows = {d["id"]: d for d in cli("team", "status")["docs"]}
    assert [(rows[i]["current"], rows[i]["loop"]) for i in ("ADR-0001", "ADR-0002")] == [
        (True, ["ADR-0002"]), (True, ["ADR-0001"])]
    from waymarks.cli.main import main

    assert main(["team", "status"]) == 0
    out = capsys.readouterr().out
    assert ("ADR-0001-kafka-retention.md (ADR-0001, Accepted); superseded by ADR-0002, "
            "which it supersedes in turn: plans serve both") in " ".join(out.split())


def test_a_loop_one_side_of_which_is_marked_superseded_is_settled(
        cli: Callable[..., dict], project: Path) -> None:
    """ADR-0002 took ADR-0001's place back (ADR-0001 had superseded it, and is marked
    Superseded now): ADR-0002 is the decision in force, with no conflict said, and
    ``team status`` says ADR-0001 is not served. A record outside a loop still retires
    the one it names."""
    folder = loop_of_two(project)
    (folder / "ADR-0001-kafka-retention.md").write_text(
        OLD.replace("status: Accepted", "status: Superseded").replace(
            "---\n", "---\nsupersedes: ADR-0002\n", 1), encoding="utf-8")
    assert [c.text for c in load_chunks(project)] == [
        "ADR-0002: Shorter kafka retention\nDecision: Keep kafka events seven days"]
    (folder / "ADR-0003-c.md").write_text(
        "---\nid: ADR-0003\ntitle: Seven\nstatus: Accepted\nsupersedes: ADR-0002\n---\n")
    assert [c.text for c in load_chunks(project)] == ["ADR-0003: Seven"]
    cli("trust", str(project))
    rows = {d["id"]: d for d in cli("team", "status")["docs"]}
    assert [(rows[i]["current"], rows[i]["supersededBy"], rows[i]["loop"])
            for i in ("ADR-0001", "ADR-0002", "ADR-0003")] == [
        (False, [], []), (False, ["ADR-0003"], []), (True, [], [])]
