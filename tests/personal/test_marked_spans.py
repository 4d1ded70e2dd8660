"""Marked spans of personal memory stay marked: a derived name or description is never cut
inside a marker's tag, an index line is never less private than its entry's text, and a
legacy ``memory.md`` whose markers span several facts converts each fact at its level."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.core.egress import Egress
from waymarks.core.privacy import ProviderPolicy, classify
from waymarks.personal.entry import MAX_NAME, MAX_SUMMARY, summary_of, title_of

SECRET = "my salary is 250k and my home address is 12 Elm Street"
# the name is cut at 80 characters: inside the opening tag, as the review found it
LONG = ("Preferences for my home setup and the way I like to work on weekday evenings "
        f"[ds4:local-only]{SECRET}, and more words after it so that the description is "
        "cut before the span closes, again and again and again[/ds4:local-only] end.")


def test_a_derived_name_and_description_never_cut_a_tag() -> None:
    assert LONG.index("[ds4:") < MAX_NAME < LONG.index("]my salary")  # the tag spans the cut
    name = title_of(LONG)
    summary = summary_of(LONG, name)
    assert name == "Preferences for my home setup and the way I like to work on weekday evenings"
    assert summary.startswith("[ds4:local-only]my salary") and len(summary) <= MAX_SUMMARY
    # each alone, and the two as an index line joins them, keep the span marked
    assert classify(summary) == classify(f"{name} — {summary}") == "local-only"
    assert Egress.to(ProviderPolicy.from_config({}), "openai").text(
        f"{name} — {summary}") is None


@pytest.mark.parametrize("end", [60, 70, 71, 78, 86, 87, 95, 102, 103, 104])
def test_a_cut_falls_before_a_tag_it_would_split(end: int) -> None:
    from waymarks.core.marker_spans import cut_before_marker

    text = "x" * 70 + "\\[ds4:sensitive]" + "[/ds4:local-only]" + "y" * 30
    cut = cut_before_marker(text, end)
    assert cut <= end
    assert cut == end or text[cut:].startswith(("\\[ds4:", "[/ds4:"))
    kept = text[:cut]
    assert not kept.endswith(("[", "[ds", "\\")) and "ds4" not in kept[-10:].replace(
        "\\[ds4:sensitive]", "")


def test_a_long_marked_entry_reaches_no_remote_model_in_part(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    """``personal save`` of a text whose name was cut inside ``[ds4:local-only]``: the
    plan for a remote provider and ``recall_memory`` sent ``…evenings [ds — 4:local-only]my
    salary is 250k…``."""
    from waymarks.personal.bridge_tools import recall_memory
    from waymarks.service.app import Waymarks

    cli("personal", "save", "--", LONG)
    entry = next(p for p in (home / "memory").glob("*.md") if p.name != "MEMORY.md")
    assert "[ds4:local-only]my salary" in entry.read_text(encoding="utf-8")
    # the index, which other readers inject as it is, has no line for a local-only entry
    index = (home / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert "salary" not in index and "[ds" not in index
    plan = cli("plan", "--provider", "openai", "--prompt", "what do I prefer at home")
    assert "salary" not in json.dumps(plan)
    [line] = [e for e in plan["manifest"]["entries"] if e["kind"] == "personal"]
    assert line["decision"] == "excluded" and line["classification"] == "local-only"
    with Waymarks(home, cwd=str(project)) as app:
        answer = recall_memory(app, "what do I prefer at home",
                               Egress.to(ProviderPolicy.from_config({}), "openai"))
    assert "salary" not in json.dumps(answer) and answer["withheld"] == 1


def test_an_index_line_is_at_least_as_private_as_its_entrys_text(
        cli: Callable[..., dict], home: Path) -> None:
    """A hand-given name and description beside a text holding a sensitive span: the line
    is the text's level, raised from the policy's default (an entry without a level)."""
    cli("personal", "save", "--name", "Health", "--description", "what I take", "--",
        "I take [ds4:sensitive]sertraline[/ds4:sensitive] every morning")
    cli("personal", "save", "--name", "Editor", "--description", "vim", "--", "I use vim.")
    plan = cli("plan", "--provider", "openai", "--prompt", "what do I take")
    lines = {e["id"]: e for e in plan["manifest"]["entries"] if e["kind"] == "personal"}
    assert {e["classification"] for e in lines.values()} == {"sensitive", "normal"}
    assert [e["decision"] for e in lines.values() if e["classification"] == "sensitive"] \
        == ["excluded"]
    assert "Health" not in json.dumps(plan["messages"]) and "Editor" in json.dumps(plan)


LEGACY = """# Memory
- 2024-05-01 — I prefer small pull requests
[ds4:local-only]
- 2024-05-02 — My salary is 250k and I am interviewing at Initech
- 2024-05-03 — I take sertraline every morning
[/ds4:local-only]
- 2024-05-04 — I take [ds4:sensitive]my dog[/ds4:sensitive] to work on Fridays
"""


def test_a_legacy_span_over_several_facts_classifies_each_of_them(
        cli: Callable[..., dict], home: Path) -> None:
    """Converted on the first command (here a plan): each fact became its own unmarked
    entry, the tag lines entries ``entry`` and ``entry-2``, and the plan for a remote
    provider sent the salary and the medication."""
    home.mkdir(parents=True)
    (home / "memory.md").write_text(LEGACY, encoding="utf-8")
    plan = cli("plan", "--provider", "openai", "--prompt", "hello there")
    sent = json.dumps(plan["messages"])
    assert "small pull requests" in sent  # the first command converted the file
    assert "salary" not in sent and "sertraline" not in sent and "dog" not in sent
    assert (home / "memory.md.bak").read_text(encoding="utf-8") == LEGACY
    entries = {e["slug"]: e for e in cli("personal", "list")["entries"]}
    levels = sorted((e["name"][:12], e["classification"]) for e in entries.values())
    assert levels == [("I prefer sma", None), ("I take [ds4:", None),
                      ("I take sertr", "local-only"), ("My salary is", "local-only")]
    assert not [s for s in entries if s.startswith("entry")]  # a tag line is no fact
    [line] = [e for e in plan["manifest"]["entries"] if e["kind"] == "personal"
              and e["decision"] == "included"]
    assert line["classification"] == "normal"


@pytest.mark.parametrize(("text", "levels"), [
    # a span opened in a fact runs on into the next: both are in it
    ("- My pay [ds4:sensitive]is high\n- and my bonus[/ds4:sensitive] too\n- I use vim\n",
     ["sensitive", "sensitive", None]),
    # a span within one line classifies that part of its fact alone, in its text
    ("- I use [ds4:internal]vim[/ds4:internal]\n- I like tea\n", [None, None]),
    # tags that do not pair up: the whole file at its highest level
    ("- I use vim\n[/ds4:sensitive]\n- I like tea\n", ["sensitive", "sensitive"]),
    # nested spans: the inner one's level where it is
    ("[ds4:internal]\n- a\n[ds4:local-only]\n- b\n[/ds4:local-only]\n- c\n"
     "[/ds4:internal]\n- d\n", ["internal", "local-only", "internal", None]),
], ids=["across items", "inline", "unbalanced", "nested"])
def test_each_legacy_fact_has_the_level_of_the_spans_it_is_in(
        text: str, levels: list[str | None]) -> None:
    from waymarks.personal.legacy import leveled_facts

    assert [fact.level for fact in leveled_facts(text.splitlines())] == levels
