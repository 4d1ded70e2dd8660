"""Personal memory frontmatter is YAML: what Waymarks writes, any YAML reader reads back
exactly (issue 16, defect 4), and files of earlier versions are still read."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from waymarks.personal.entry import (
    ENTRY_TYPES,
    MAX_DESCRIPTION,
    MAX_NAME,
    Entry,
    one_line,
    parse_entry,
    render_entry,
)
from waymarks.personal.store import PersonalStore

LEVELS = st.sampled_from([None, "normal", "internal", "sensitive", "local-only"])
# every character YAML may carry (no surrogates), with the ones that broke the old writer
# (": ", " #", "- ", quotes, "---") much more likely than chance would make them
TRICKY = st.sampled_from([": ", " # ", "- ", "---", "'", '"', "!", "&a", "*a", "%", "@",
                          "`", "{", "[", ">", "|", "? ", "yes", "no", "null", "~", "1e3",
                          "2026-01-01", "\\", "\t", "\u2028", "\x85", "\ufeff", "é", "🙂"])
TEXT = st.lists(st.one_of(TRICKY, st.text(st.characters(exclude_categories=("Cs",)),
                                          max_size=12)), max_size=8).map("".join)


def _frontmatter(text: str) -> dict[str, object]:
    head = text[4:text.index("\n---\n", 3)]
    loaded = yaml.safe_load(head)
    assert isinstance(loaded, dict)
    return loaded


@settings(max_examples=400, deadline=None)
@given(name=TEXT.filter(lambda t: 0 < len(one_line(t)) <= MAX_NAME), description=TEXT, body=TEXT,
       kind=st.sampled_from(ENTRY_TYPES), level=LEVELS)
@pytest.mark.slow
def test_what_is_written_is_yaml_and_reads_back_exactly(name: str, description: str,
                                                        body: str, kind: str,
                                                        level: str | None) -> None:
    entry = Entry("s", one_line(name), one_line(description), kind, body.strip(), level)
    text = render_entry(entry)
    parsed = parse_entry("s", text)
    assert parsed == entry
    head = _frontmatter(text)  # a YAML reader other than ours agrees
    assert str(head["name"]) == entry.name and head["metadata"] == {"type": kind}
    assert str(head["description"] or "") == entry.description


@pytest.mark.parametrize("description", [
    "Ports: 5432 for Postgres", "Use tabs # not spaces", "- starts like a list item",
    "'quoted' and \"double\"", "yes", "--- three dashes", "key: value # comment: more"])
def test_values_that_broke_the_hand_written_frontmatter(tmp_path: Path,
                                                        description: str) -> None:
    store = PersonalStore(tmp_path / "memory")
    saved = store.save("Body text", name="Name", description=description, type="feedback")
    head = _frontmatter(saved.path.read_text(encoding="utf-8"))
    assert head["description"] == description and head["metadata"] == {"type": "feedback"}
    [entry] = store.entries()
    assert entry.description == description


def test_a_file_an_earlier_version_wrote_unquoted_is_still_read(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir()
    (store.directory / "old.md").write_text(
        "---\nname: Ports\ndescription: Postgres: 5432 # the default\nmetadata:\n"
        "  type: reference\n---\nPostgres listens on 5432.\n", encoding="utf-8")
    [entry] = store.entries()
    assert (entry.name, entry.description, entry.type) == (
        "Ports", "Postgres: 5432 # the default", "reference")
    store.save("Postgres listens on 5433.", slug="old", name="Ports",
               description=entry.description)
    rewritten = _frontmatter((store.directory / "old.md").read_text(encoding="utf-8"))
    assert rewritten["description"] == "Postgres: 5432 # the default"
    assert rewritten["metadata"] == {"type": "reference"}  # the replacement kept the type


def test_replacing_keeps_type_and_classification_unless_given(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    first = store.save("Keep PRs small", type="feedback", classification="internal")
    store.save("Keep PRs under 200 lines", slug=first.slug)
    entry = store.get(first.slug)
    assert entry is not None and (entry.type, entry.classification) == ("feedback", "internal")
    store.save("Keep PRs tiny", slug=first.slug, type="user", classification="sensitive")
    entry = store.get(first.slug)
    assert entry is not None and (entry.type, entry.classification) == ("user", "sensitive")


def test_the_index_never_repeats_the_text(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.save("Keep pull requests under 300 lines.")
    long = "Deploys go to staging first. " + "Then production, after a green run. " * 10
    store.save(long, name="Deploy order")
    index = store.index_path.read_text(encoding="utf-8")
    assert index.count("Keep pull requests under 300 lines.") == 1
    [line] = [ln for ln in index.splitlines() if "Deploy order" in ln]
    assert line.endswith("…") and len(line) < 240
    short = store.get("keep-pull-requests-under-300-lines")
    assert short is not None and short.description == "" and short.own_description is None


@pytest.mark.parametrize(("lines", "level"), [
    ("classification: [local-only]\n", "local-only"),
    ("classification:\n  level: internal\n", "local-only"),
    ("classification: \n", "local-only"),
    ("classification: secret\n", "local-only"),
    ("classification: Internal\n", "internal"),
    ("", None),
])
def test_a_classification_that_is_there_but_no_known_level_is_local_only(
        tmp_path: Path, lines: str, level: str | None) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir()
    (store.directory / "salary.md").write_text(
        f"---\nname: Salary\ndescription: my salary\n{lines}metadata:\n  type: user\n---\nb\n",
        encoding="utf-8")
    [entry] = store.entries()
    assert entry.classification == level


@pytest.mark.parametrize(("top", "nested", "level"), [
    (None, "local-only", "local-only"),
    ("internal", "sensitive", "sensitive"),
    ("sensitive", "normal", "sensitive"),
    (None, "[a]", "local-only"),
])
def test_a_classification_under_metadata_counts_and_the_stricter_wins(
        tmp_path: Path, top: str | None, nested: str, level: str) -> None:
    head = f"classification: {top}\n" if top else ""
    text = (f"---\nname: Home\ndescription: my address\n{head}metadata:\n  type: user\n"
            f"  classification: {nested}\n---\nb\n")
    entry = parse_entry("home", text)
    assert entry is not None and entry.classification == level
    legacy = parse_entry("home", text.replace("my address", "street: 1 Main St"))  # not YAML
    assert legacy is not None and legacy.classification == level


def test_a_hand_edited_name_or_description_is_bounded_on_read(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir()
    (store.directory / "big.md").write_text(
        f"---\nname: Big {'word ' * 6000}\ndescription: {'d' * 30000}\nmetadata:\n"
        "  type: user\n---\nbody\n", encoding="utf-8")
    [entry] = store.entries()
    assert len(entry.name) <= MAX_NAME and entry.name.startswith("Big word")
    assert entry.name.endswith("…") and len(entry.description) == MAX_DESCRIPTION
    assert len(store.index_text()) < 500


@pytest.mark.parametrize(("lines", "level"), [
    ("Classification: local-only\n", "local-only"),
    ("CLASSIFICATION: internal\n", "internal"),
    ("clasification: normal\n", "local-only"),
    ("classificaton: internal\n", "local-only"),
    ("Clasificaton: normal\n", "local-only"),
    ("classification: normal\nClassification: normal\n", "local-only"),  # given twice
    ("classified: normal\n", None),  # three edits away: another key
    ("metadata_note: x\n", None),
])
def test_a_level_key_in_another_case_or_a_letter_off_still_counts(
        tmp_path: Path, lines: str, level: str | None) -> None:
    """``Classification: local-only`` (capital C) was read as no level: listed ``-``, its
    index line planned for remote models, its body sent by ``personal_memory_entry``,
    and ``personal save --slug`` rewrote the file without it. The key is read in any
    case; a near miss (``clasification``) is a level that is there but no known one."""
    under = "".join(f"  {row}\n" for row in lines.splitlines())  # under metadata:
    for description in ("my salary", "pay: 250k"):  # YAML, and an earlier unquoted file
        for top, nested in ((lines, ""), ("", under)):
            entry = parse_entry("salary", f"---\nname: Salary\ndescription: {description}\n"
                                f"{top}metadata:\n  type: user\n{nested}---\nb\n")
            assert entry is not None and entry.classification == level, (description, top)


def test_a_level_under_a_capitalised_key_survives_a_replacement(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir()
    (store.directory / "salary.md").write_text(
        "---\nname: Salary\ndescription: my salary\nClassification: local-only\nmetadata:\n"
        "  type: user\n---\nI earn 250k.\n", encoding="utf-8")
    [entry] = store.entries()
    assert entry.classification == "local-only"
    store.save("I earn 260k.", slug="salary")
    rewritten = _frontmatter((store.directory / "salary.md").read_text(encoding="utf-8"))
    assert rewritten["classification"] == "local-only"
    assert store.get("salary") == Entry("salary", "I earn 260k.", "", "user", "I earn 260k.",
                                        "local-only")


@pytest.mark.parametrize("head", [
    "base: &b {classification: local-only}\n<<: *b\nmetadata:\n  type: user\n",
    "metadata:\n  type: user\n  <<: {classification: local-only}\n",
    "<<: [{note: x}]\nmetadata:\n  type: user\n",  # whatever it merges: it may bring one
])
def test_a_yaml_merge_key_is_a_level_that_is_there_but_no_known_one(
        cli: Callable[..., dict], home: Path, head: str) -> None:
    """A level brought in by a merge key (``<<: *b``) was ignored: ``safe_load`` (and Pi)
    read ``local-only``, Waymarks' loader keeps ``<<`` as a plain key, so the entry was
    listed without a level and planned for remote models."""
    text = f"---\nname: Salary\ndescription: pay\n{head}---\nMy salary is 250000.\n"
    (home / "memory").mkdir(parents=True)
    (home / "memory" / "salary.md").write_text(text, encoding="utf-8")
    [entry] = cli("personal", "list")["entries"]
    assert entry["classification"] == "local-only"
    plan = cli("plan", "--provider", "openai", "--prompt", "what is my salary")
    assert "Salary" not in json.dumps(plan["messages"])
    [named] = [e for e in plan["manifest"]["entries"] if e["kind"] == "personal"]
    assert named["decision"] == "excluded" and named["classification"] == "local-only"


@pytest.mark.parametrize("line_break", ["\r", "\x85", "\u2028", "\u2029"])
def test_a_level_after_a_lone_line_break_counts_in_an_older_frontmatter_too(
        tmp_path: Path, line_break: str) -> None:
    """YAML (and an editor) ends a line at a lone CR, NEL or line separator: the entry is
    local-only while its frontmatter is YAML. One an older version wrote without quoting
    (not YAML) was read line by line at LF alone: the level was part of the name, and the
    entry went to remote models."""
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir()
    for description in ("where", "where: Chase"):  # YAML, then not YAML
        (store.directory / "bank.md").write_text(
            f"---\nname: Bank{line_break}classification: local-only\ndescription: "
            f"{description}\nmetadata:\n  type: user\n---\nMy bank is Chase\n",
            encoding="utf-8")
        [entry] = store.entries()
        assert (entry.name, entry.classification) == ("Bank", "local-only")


@pytest.mark.parametrize("fences", [("--- ", "---"), ("---", "---\t"), ("---  ", "---   "),
                                    ("--- \r", "--- \r")], ids=["open", "close", "both",
                                                                "crlf"])
def test_a_fence_with_spaces_after_it_is_still_a_fence(
        home: Path, cli: Callable[..., dict], fences: tuple[str, str]) -> None:
    """A fence line an editor left with a space or a tab after ``---`` (YAML, and every
    front-matter reader of static sites, reads past them) made the entry no entry: out of
    the index and every plan, `personal list` saying its frontmatter did not conform
    where it shows none. The body keeps its own lines as they are."""
    opening, closing = fences
    end = "\r\n" if opening.endswith("\r") else "\n"
    lines = [opening.rstrip("\r"), "name: Editor", "description: modal editing",
             "metadata:", "  type: feedback", closing.rstrip("\r"), "I use vim.  ", "--- "]
    store = PersonalStore(home / "memory")
    store.directory.mkdir(parents=True)
    (store.directory / "editor.md").write_bytes(end.join(lines).encode() + end.encode())
    [entry] = store.entries()
    assert (entry.name, entry.description, entry.type, entry.body) == (
        "Editor", "modal editing", "feedback", "I use vim.  \n---")
    listed = cli("personal", "list")
    assert (listed["unread"], [e["slug"] for e in listed["entries"]]) == ([], ["editor"])
