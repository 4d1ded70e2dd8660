"""The frontmatter read without PyYAML (``personal/plain_frontmatter.py``) is what PyYAML
reads, or no answer: on frontmatters Waymarks writes, and on generated ones built of the
pieces that change a YAML reading (indicators, quotes, comments, near keys, indents)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from tests.personal.test_frontmatter import LEVELS, TEXT
from waymarks.personal import entry as entry_module
from waymarks.personal.entry import ENTRY_TYPES, Entry, render_entry
from waymarks.personal.plain_frontmatter import plain_fields

KEYS = st.sampled_from(["name", "description", "classification", "metadata", "type",
                        "Classification", "clasification", "tags", "<<", "name ", " name"])
SEPARATORS = st.sampled_from([": ", ":", ":  ", " : ", ":\t"])
INDENTS = st.sampled_from(["", "  ", " ", "    ", "\t", "   "])
PIECES = st.sampled_from(["user", "a: b", "a #b", "a#b", "#x", "x #", "-x", "- x", "'q'", "'it''s'",
                          "'open", '"d"', "x:", "~", "yes", "[a]", "{a: b}", "&a x", "*a",
                          "!!str x", "? x", "%x", "@x", "`x", "|", ">", "x ", " x", "",
                          "\u00a0x", "x\u00a0", "\u2028", "\x85", "\ufeff", "é", "🙂",
                          "\x1b", "\r"])
VALUES = st.one_of(PIECES, TEXT, st.builds(lambda a, b: a + b, PIECES, TEXT),
                   st.builds(lambda t: "'" + t.replace("'", "''") + "'", TEXT))
LINES = st.builds(lambda indent, key, sep, value: f"{indent}{key}{sep}{value}".rstrip("\n"),
                  INDENTS, KEYS, SEPARATORS, VALUES)


#: values of few characters, among them the ones that make YAML read a line otherwise
NEAR = st.text(st.sampled_from("ab ':#-\"!&*?|>%@`[]{},~\u00a0é"), min_size=1, max_size=6)


WORDS = st.from_regex(r"[a-z][a-z 0-9.,é-]{0,6}[a-z]", fullmatch=True)


@st.composite
def shaped(draw: st.DrawFn) -> str:
    """A frontmatter of the shape Waymarks writes, one of its values one that may make
    YAML read the line otherwise, a line of it changed or added at times."""
    word = st.one_of(st.just(""), WORDS)
    inner = st.builds(lambda a, b, c: a + b + c, word, st.one_of(PIECES, NEAR), word)
    odd = st.one_of(inner, VALUES, inner.map(lambda t: "'" + t.replace("'", "''") + "'"))
    keys = ["name", "description", *(["classification"] * draw(st.integers(0, 1))),
            "metadata", "  type", *(["  classification"] * draw(st.integers(0, 1)))]
    values = [draw(WORDS) for _ in keys]
    values[draw(st.integers(0, len(keys) - 1))] = draw(odd)
    lines = [key + ":" if key == "metadata" else f"{key}: {value}"
             for key, value in zip(keys, values, strict=True)]
    lines = draw(st.permutations(lines)) if draw(st.integers(0, 5)) == 0 else lines
    if draw(st.integers(0, 3)) == 0:
        at = draw(st.integers(0, len(lines)))
        changed = draw(st.one_of(LINES, st.sampled_from(["metadata:", "  type: user", "",
                                                         "# note", "..."])))
        lines[at:at + draw(st.integers(0, 1))] = [changed]
    return "\n".join(lines)


def _head(text: str) -> str:
    return text[4:text.index("\n---\n", 3)]


def check_read_without_yaml(head: str) -> None:
    plain = plain_fields(head)
    if plain is not None:
        assert plain == entry_module._yaml_read(head), head


@lanes(quick=50, long=500)
def test_a_frontmatter_read_without_yaml_is_what_yaml_reads(examples: int) -> None:
    run_property(examples, check_read_without_yaml, shaped(), base=settings(deadline=None))


def check_written_read_without_yaml(name: str, description: str, kind: str,
                                    level: str | None) -> None:
    check_read_without_yaml(_head(render_entry(Entry("x", name, description, kind, "body",
                                                     level))))


@lanes(quick=30, long=300)
def test_what_waymarks_writes_is_read_the_same_without_yaml(examples: int) -> None:
    run_property(examples, check_written_read_without_yaml, TEXT, TEXT,
                 st.sampled_from(ENTRY_TYPES), LEVELS, base=settings(deadline=None))


def test_the_usual_entries_are_read_without_yaml() -> None:
    """What a save writes of ordinary words (the answer above may not be ``None`` only)."""
    for name, description, level in (
            ("Prefers small pull requests", "Keep PRs under ~300 lines", None),
            ("Deploy checklist: make smoke", "", "internal"),
            ("yes", "It's #1 - no doubt", "local-only"),
            ("数据库端口", "端口是 5432", None)):
        head = _head(render_entry(Entry("x", name, description, "user", "b", level)))
        assert plain_fields(head) == entry_module._yaml_read(head) is not None, head
        assert plain_fields(head) is not None


def test_a_prompt_hook_reads_personal_entries_without_importing_yaml(
        tmp_path: Path) -> None:
    """PyYAML's import cost a hook without its helper ~12-15 ms of CPU on a home with
    personal entries (measured with python -X importtime); the context is the same."""
    from waymarks.personal.setup import configured_store
    from waymarks.service.app import Waymarks

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        store = configured_store(app)
        store.save("Their shell is zsh.", name="Uses zsh",
                   description="Shell: zsh with oh-my-zsh", type="user")
    code = ("import sys, json; from pathlib import Path; "
            "from waymarks.service.app import Waymarks; "
            "from waymarks.personal.setup import plan_with_memory; "
            "app = Waymarks(Path(sys.argv[1]), cwd=sys.argv[2]); "
            "plan = plan_with_memory(app, 'which shell do I use?'); app.close(); "
            "print(json.dumps(['yaml' in sys.modules, "
            "any('Uses zsh' in m.content for m in plan.messages)]))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code, str(home), str(project)],
                         capture_output=True, check=True, env=env, text=True).stdout
    assert json.loads(out) == [False, True]


def test_the_characters_it_is_sure_of_are_those_yaml_reads_as_printable() -> None:
    """Every code point: the check says sure exactly of a line feed and what YAML's reader
    takes as printable and as no line break (its tab, CR, NEL, LS, PS and byte-order mark
    are left to YAML)."""
    import yaml.reader

    from waymarks.personal.plain_frontmatter import _sure

    printable = yaml.reader.Reader.NON_PRINTABLE
    for code in range(0x110000):
        c = chr(code)
        expected = c == "\n" or (not printable.search(c) and c not in "\t\r\x85\u2028\u2029"
                                 and c != "\ufeff")
        assert _sure(f"a{c}b") is expected, hex(code)


def test_a_head_of_other_scripts_is_checked_without_a_step_per_character(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A head in Chinese (or Cyrillic, Greek…) was checked character by character in Python
    (five ranges compared for each): ~0.6-2 µs a character, 9-11 ms for 50 entries of a
    name and a description in Chinese, 107 ms for one of 64 KB, against 11 ms for PyYAML's C
    reader; every plan reads every entry. It is one search of the characters YAML does not
    take, in C."""
    from waymarks.personal import plain_frontmatter

    steps = 0
    real = ord

    def counted(c: str) -> int:
        nonlocal steps
        steps += 1
        return real(c)

    monkeypatch.setattr(plain_frontmatter, "ord", counted, raising=False)
    head = f"name: 数据库\ndescription: {'部署分支是主分支。' * 200}\nmetadata:\n  type: user"
    assert plain_fields(head) is not None
    assert steps < 10, steps
