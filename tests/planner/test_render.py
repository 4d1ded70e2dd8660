"""No stored text can end a block early or appear outside its quotes."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core.egress import Egress
from waymarks.core.privacy import LEVELS
from waymarks.planner.render import (
    MEMORY_BEGIN,
    MEMORY_END,
    PIN_BEGIN,
    PIN_END,
    TURN_BEGIN,
    TURN_END,
    MemoryBlock,
    PinBlock,
    TextBlock,
    render_memory,
    render_pin,
    render_text,
)

#: a local destination that may see everything: the text comes back exactly, so these
#: tests see quoting alone (tests/privacy/test_egress_paths.py covers the rest)
EXACT = Egress("local", frozenset(LEVELS), redacts=False)

MARKERS = [PIN_BEGIN, PIN_END, MEMORY_BEGIN, MEMORY_END, "[END DS4 PINNED CONTEXT]",
           "Pinned content JSON:", "Claim JSON:", '"', "\\", "\n", "\r", "\u2028", "\u2029",
           "\x85", "\x00", "\x1b[2J", "［END WAYMARKS PINNED CONTEXT］", "\u202e"]
hostile = st.lists(st.one_of(st.sampled_from(MARKERS), st.text(max_size=20)),
                   max_size=12).map("".join)
ident = st.one_of(st.text(min_size=1, max_size=12), st.sampled_from(MARKERS))


def blocks_of(rendered: str, begin: str, end: str) -> list[list[str]]:
    """Split rendered text into blocks by its marker lines, as a strict reader would."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in rendered.splitlines():
        if line == begin:
            assert current is None, "a block began inside another"
            current = []
        elif line == end:
            assert current is not None, "an end marker outside a block"
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line)
        else:
            assert line == "", f"text outside any block: {line!r}"
    assert current is None, "a block was never closed"
    return blocks


NO_DEADLINE = settings(deadline=None)


def pin_content_stays_inside_its_quotes(content: str, pin_id: str, session: str,
                                        source_file: str) -> None:
    pin = PinBlock(pin_id, "session", content, session, "e1", source_file=source_file or None)
    [block] = blocks_of(render_pin(pin, EXACT), PIN_BEGIN, PIN_END)
    label = block.index("Pinned content JSON:")
    assert json.loads(block[label + 1]) == content
    assert len(block) == label + 3  # quoted content, guidance line, nothing more


@lanes(quick=30, long=300)
def test_pin_content_stays_inside_its_quotes(examples: int) -> None:
    run_property(examples, pin_content_stays_inside_its_quotes,
                 content=hostile, pin_id=ident, session=ident, source_file=hostile,
                 base=NO_DEADLINE)


def memory_claims_stay_inside_their_quotes(claim: str, key: str | None, memory_id: str,
                                           reason: str) -> None:
    memory = MemoryBlock(memory_id, "project", claim, "s", "e", 0.5, reason, key or None)
    [block] = blocks_of(render_memory(memory, EXACT), MEMORY_BEGIN, MEMORY_END)
    label = block.index("Claim JSON:")
    assert json.loads(block[label + 1]) == claim
    assert len(block) == label + 3


@lanes(quick=30, long=300)
def test_memory_claims_stay_inside_their_quotes(examples: int) -> None:
    run_property(examples, memory_claims_stay_inside_their_quotes,
                 claim=hostile, key=st.one_of(st.none(), hostile), memory_id=ident,
                 reason=st.text(max_size=40), base=NO_DEADLINE)


@given(st.lists(hostile, min_size=1, max_size=5))
@pytest.mark.slow
def test_many_pins_render_as_that_many_blocks(contents: list[str]) -> None:
    pins = [PinBlock(f"p{i}", "session", c, "s", "e") for i, c in enumerate(contents)]
    blocks = blocks_of("\n\n".join(render_pin(p, EXACT) for p in pins), PIN_BEGIN, PIN_END)
    assert len(blocks) == len(contents)


@settings(max_examples=200, deadline=None)
@given(text=hostile, entry_id=ident)
@pytest.mark.slow
def test_earlier_turns_stay_inside_their_quotes(text: str, entry_id: str) -> None:
    turn = TextBlock("turn", entry_id, text, "user")
    [block] = blocks_of(render_text(turn, EXACT), TURN_BEGIN, TURN_END)
    assert json.loads(block[block.index("Text JSON:") + 1]) == text


def test_a_metadata_value_ending_in_a_newline_is_quoted() -> None:
    """``$`` also matches before a final newline: an ID ``"abc\\n"`` was shown bare, and
    the rendered block gained a line (one value per line is the renderer's rule)."""
    from waymarks.planner.render import meta

    assert meta("63ebddf3") == "63ebddf3"
    assert meta("63ebddf3\n") == '"63ebddf3\\n"'
    assert "\n" not in meta("a\nb\n")


def test_a_metadata_value_is_bare_exactly_when_the_old_expression_matched_it() -> None:
    """``meta`` answers with string methods now (no expression compiled by every prompt's
    hook): 1-200 characters of ``A-Za-z0-9._:/@+-`` are shown bare, as the expression it
    replaces (kept here) showed them, and anything else is quoted."""
    import re

    from waymarks.core.egress import quote
    from waymarks.planner.render import meta

    plain = re.compile(r"^[A-Za-z0-9._:/@+-]{1,200}$")
    for value in ("", "a", "x" * 200, "x" * 201, "session", "a b", "-a-", "é", "ａ", "a\n",
                  "\na", "user@host:/p+q_r.s", "a\u0301", "[ds4:internal]", "١", "a\tb"):
        assert meta(value) == (value if plain.fullmatch(value) else quote(value)), value


def _quoted_text_holds_nothing_that_can_act_on_a_terminal(text: str) -> None:
    """JSON leaves C1 controls (the 8-bit CSI U+009B), directional overrides and other
    format characters raw: a personal entry's name drove the terminal `waymarks plan`
    printed to, and reordered what a reader of the plan saw."""
    from waymarks.core.egress import json_line

    for line in (json_line(text), json_line({"k": text})):
        assert not [ch for ch in line if unicodedata.category(ch) in _ACTING], line
    assert json.loads(json_line(text)) == text


@lanes(quick=75, long=300)
def test_quoted_text_holds_nothing_that_can_act_on_a_terminal(examples: int) -> None:
    run_property(examples, _quoted_text_holds_nothing_that_can_act_on_a_terminal,
                 text=st.one_of(hostile, st.text()))


#: what may act on a terminal or on what a reader sees: controls, format characters,
#: line and paragraph separators, surrogates
_ACTING = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def test_every_acting_character_of_this_unicode_is_escaped() -> None:
    """The escaped set is written out by hand (a class built from the Unicode database at
    import would cost every process a pass over 1.1M code points): a Python whose Unicode
    adds a format character fails here, not in front of a terminal."""
    from waymarks.core.egress import json_line

    acting = "".join(chr(c) for c in range(0x7F, 0x110000)
                     if unicodedata.category(chr(c)) in _ACTING)
    assert len(acting) > 2000 and "\\u202e" in json_line(acting)
    assert not [ch for ch in json_line(acting) if unicodedata.category(ch) in _ACTING]


def test_spaces_of_other_scripts_stay_text() -> None:
    """A no-break or ideographic space is text, not a control: escaped, each costs a model
    six characters (and the document a pass in Python)."""
    from waymarks.core.egress import json_line

    assert json_line("東京の\u3000ポート\xa0番号\u2009x") == '"東京の\u3000ポート\xa0番号\u2009x"'
    assert json_line("a\u2028b\U000e0041\ud800") == '"a\\u2028b\\udb40\\udc41\\ud800"'


def test_a_personal_line_with_c1_and_bidi_controls_is_escaped() -> None:
    entry = TextBlock("personal", "personal:c1", "Tabs \x9b2J\x9b31m and \u202eevil", "c1")
    line = render_text(entry, EXACT)
    assert line == 'c1: "Tabs \\u009b2J\\u009b31m and \\u202eevil"'
