"""Engineering docs as an editor writes them (a byte-order mark, CR line ends), and the
cost of chunking a large doc."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.personal.docs import DECISIONS_DIR, load_chunks

OLD = ("---\nid: ADR-0001\ntitle: Kafka retention\nstatus: Accepted\n"
       "decision: Keep kafka events thirty days\nwhy: audits\n---\n# Decision\n"
       "Keep kafka events for thirty days.\n")
NEW = ("---\nid: ADR-0002\ntitle: Shorter kafka retention\nstatus: Accepted\n"
       "decision: Keep kafka events seven days\nwhy: cost\nsupersedes: ADR-0001\n---\n"
       "# Decision\nKeep kafka events for seven days.\n")


@pytest.mark.parametrize("encode", [
    lambda text: "\ufeff" + text,
    lambda text: "\ufeff" + text.replace("\n", "\r\n"),
    lambda text: text.replace("\n", "\r"),
], ids=["bom", "bom-crlf", "lone-cr"])
def test_a_decision_record_as_an_editor_saves_it_supersedes_what_it_names(
        project: Path, encode: Callable[[str], str]) -> None:
    """With a byte-order mark the frontmatter was not found: the record was ``Proposed``,
    its raw frontmatter served as a chunk, and the decision it supersedes as current."""
    decisions = project / DECISIONS_DIR
    decisions.mkdir(parents=True)
    (decisions / "ADR-0001-kafka-retention.md").write_text(OLD, encoding="utf-8")
    (decisions / "ADR-0002-shorter-kafka-retention.md").write_bytes(
        encode(NEW).encode("utf-8"))
    chunks = load_chunks(project)
    assert not [c for c in chunks if "ADR-0001" in c.source]  # superseded: not current
    assert {c.status for c in chunks} == {"Accepted"}
    assert chunks[0].text == ("ADR-0002: Shorter kafka retention\nDecision: Keep kafka "
                              "events seven days\nWhy: cost")
    shown = json.dumps([c.text for c in chunks])
    assert "supersedes:" not in shown and "---" not in shown and "\\r" not in shown
    assert "\\ufeff" not in shown and "thirty" not in shown


def test_a_plan_serves_the_decision_in_force_not_the_one_it_supersedes(
        cli: Callable[..., dict], project: Path) -> None:
    decisions = project / DECISIONS_DIR
    decisions.mkdir(parents=True)
    (decisions / "ADR-0001-kafka-retention.md").write_text(OLD, encoding="utf-8")
    (decisions / "ADR-0002-shorter-kafka-retention.md").write_text("\ufeff" + NEW,
                                                                   encoding="utf-8")
    cli("trust", str(project))
    plan = cli("plan", "--prompt", "how long do we keep kafka events?")
    sent = json.dumps(plan["messages"])
    assert "seven days" in sent and "Status: Accepted" in sent
    assert "thirty" not in sent and "supersedes:" not in sent and "Proposed" not in sent
    assert not [e for e in plan["manifest"]["entries"] if "ADR-0001" in e["id"]]


def test_a_doc_is_classified_once_not_once_per_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each chunk classified the whole file again: a 990 KB API reference of 3,271
    sections cost 3 s of every plan and Claude Code hook in a trusted project. The file's
    spans are read once (every chunk's levels come from them, nothing is parsed per
    chunk); each chunk's level is what it was: its own markers over ``level``, at least
    the file's."""
    from waymarks.core.marker_spans import SpanLevels
    from waymarks.core.privacy import classify, highest
    from waymarks.personal import docs

    sections = [f"## GET /v1/items/{n}\nReturns item {n}. Errors: 404: not found.\n"
                for n in range(200)]
    sections[50] = "## Keys\nRotated by [ds4:internal]the ops rota[/ds4:internal].\n"
    text = "# API\n" + "".join(sections)
    seen: list[str] = []

    def counted(value: str, base: str | None = None) -> SpanLevels:
        seen.append(value)
        return SpanLevels(value, base)

    monkeypatch.setattr(docs, "SpanLevels", counted)
    for level in ("normal", "sensitive"):
        seen.clear()
        chunks = docs.chunk_markdown("docs/engineering/api.md", text, level=level)
        assert len(chunks) == 200
        assert seen == [text]
        assert [c.level for c in chunks] == [
            highest(classify(c.text, level), classify(text)) for c in chunks]
        assert {c.level for c in chunks} == {highest("internal", level)}
    plain = docs.chunk_markdown("docs/engineering/plain.md", "# A\nx\n# B\n[ds4:sensitive]y"
                                "[/ds4:sensitive]\n", level="normal")
    assert [c.level for c in plain] == ["sensitive", "sensitive"]  # a span raises the file


def test_a_comment_in_a_fenced_code_block_is_no_heading() -> None:
    """A shell or Python comment inside a fenced code block (``# apply migrations``) was
    read as a heading: the block was cut in three, each part served under the comment as
    its section's name, the first ending in an open fence."""
    from waymarks.personal.docs import chunk_markdown

    text = ("# Dev workflow\n\nRun the migrations before the tests:\n\n```sh\n"
            "# apply migrations\nmake migrate\n## not a heading either\n```\n\n"
            "~~~~python\n# a comment\n~~~\nstill code\n~~~~\n\n## Releases\n\nTag from main.\n")
    chunks = chunk_markdown("docs/engineering/dev.md", text)
    assert [c.source for c in chunks] == ["docs/engineering/dev.md#Dev workflow",
                                          "docs/engineering/dev.md#Releases"]
    assert chunks[0].text == text.split("\n\n", 1)[1].split("\n\n## Releases")[0]
    unclosed = chunk_markdown("x.md", "# A\n```\n# inside\n")  # open to the end, as CommonMark
    assert [c.source for c in unclosed] == ["x.md#A"]


def test_a_docs_frontmatter_is_not_served_as_a_passage(project: Path) -> None:
    """A doc with a site generator's frontmatter (title, sidebar position, tags) had it
    served as a passage of its own, raw, and first: its title shares the doc's words, so
    it took one of the four places before the text that answers."""
    doc = project / "docs" / "engineering" / "kafka.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("---\ntitle: Kafka retention and events\nsidebar_position: 3\n---\n\n"
                   "# Kafka\n\nKafka events are kept [ds4:internal]7 days[/ds4:internal].\n")
    [chunk] = load_chunks(project)
    assert (chunk.source, chunk.text, chunk.level) == (
        "docs/engineering/kafka.md#Kafka",
        "Kafka events are kept [ds4:internal]7 days[/ds4:internal].", "internal")



def test_a_docs_frontmatter_title_still_finds_its_text(project: Path) -> None:
    """A site generator's doc has its title in its frontmatter and often no heading of
    its own: its text was matched with that title (the first chunk held it), and since
    the frontmatter was no passage, a question in the title's words found nothing (a plan
    for "who is on-call for payments?" served no snippet). The title is matched with the
    text before the doc's first heading, as a heading is with its section; not served."""
    from waymarks.personal.docs import EngineeringDocs

    doc = project / "docs" / "engineering" / "payments.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("---\ntitle: Payments on-call\nsidebar_position: 3\n---\n\n"
                   "Page Alice first, then Bob after ten minutes.\n\n# Refunds\n\n"
                   "Refunds over 500 EUR need a second approver.\n")
    found = EngineeringDocs().matching(str(project), "who is on-call for payments?")
    assert [(c.source, c.text) for c, _ in found] == [
        ("docs/engineering/payments.md", "Page Alice first, then Bob after ten minutes.")]
    assert "title" not in "".join(c.text for c in load_chunks(project))

def test_a_doc_opening_with_a_rule_keeps_the_prose_after_it(project: Path) -> None:
    """Only frontmatter is skipped: a doc that opens with a horizontal rule (``---``) and
    prose up to the next rule lost that prose, taken for frontmatter."""
    doc = project / "docs" / "engineering" / "deploy.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("---\nDeploys go out on Tuesdays after the freeze.\nNote: never on a "
                   "Friday.\n---\n\n# Steps\n\nRun make release.\n")
    chunks = load_chunks(project)
    assert "Deploys go out on Tuesdays after the freeze." in "\n".join(c.text for c in chunks)


def test_a_long_section_is_never_cut_inside_a_code_block() -> None:
    """A section past the part bound (1,500 characters) was cut at any blank line, one
    inside a fenced code block too: a part ended in an open fence, and the next began
    with the rest of the code as prose, its fence and language gone. Parts are cut at
    blank lines outside code blocks only; each block stays whole in one part."""
    from waymarks.personal.docs import MAX_CHUNK_CHARS, chunk_markdown

    prose = "Deploys go through the pipeline described below, step by step. " * 12
    code = "```python\n" + "\n\n".join(f"def step_{n}():\n    run('stage {n}')"
                                       for n in range(60)) + "\n```"
    text = f"# Deploying\n\n{prose}\n\n{code}\n\n{prose}\n"
    assert len(code) > MAX_CHUNK_CHARS  # (a block longer than a part: whole in its own)
    parts = [c.text for c in chunk_markdown("docs/engineering/deploy.md", text)]
    assert len(parts) == 3, [p[:40] for p in parts]
    for part in parts:
        assert part.count("```") % 2 == 0, part[:80]
    assert parts[1] == code


def test_a_code_block_longer_than_a_part_is_served_whole_in_fenced_parts() -> None:
    """A code block past the hard bound of a part (3,000 characters), kept whole in one
    part since blocks were no longer cut, lost all of it past that bound: a function at
    its end was in no part, and no plan or recall found it (before, the block was cut at
    its blank lines and every line was served). It is cut at its own blank lines again,
    each part closing the block and the next opening it with the same fence and language."""
    from waymarks.personal.docs import MAX_CHUNK_CHARS, chunk_markdown

    code = "~~~~python\n" + "\n\n".join(
        f"def step_{n}(queue, ledger):\n    item = queue.pop()  # step {n} of the worker\n"
        f"    ledger.append(item, attempt={n})" for n in range(40)) \
        + "\n\ndef frobnicate_backoff(queue):\n    return queue.wait(seconds=30)\n~~~~"
    assert len(code) > 2 * MAX_CHUNK_CHARS
    text = f"# Ingest\n\nThe worker runs the loop below.\n\n{code}\n\nRetries stop at five.\n"
    parts = [c.text for c in chunk_markdown("docs/engineering/ingest.md", text)]
    served = "\n".join(parts)
    for n in range(40):
        assert f"attempt={n})" in served, n
    assert "def frobnicate_backoff(queue):" in served and "Retries stop at five." in served
    for part in parts:
        assert part.count("~~~~") % 2 == 0, part[:80]
        assert len(part) <= 2 * MAX_CHUNK_CHARS
    in_code = [p for p in parts if "def step_" in p or "frobnicate" in p]
    assert len(in_code) > 1 and all("~~~~python\n" in p for p in in_code)
