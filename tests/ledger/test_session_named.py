"""A session file's name is read with string methods (:func:`session_named`): the
expression it stands for (:data:`SESSION_NAME_PATTERN`) was compiled by every recall to
list the session folder (issue 15). Both must agree on every name."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from waymarks.ledger.discovery import SESSION_NAME_PATTERN, session_file_name, session_named

#: the pieces a name is made of, near misses included (other digits, other letters)
PIECES = st.sampled_from(["2026", "01", "-", "T", "Z", "_", "Z_", ".jsonl", ".json", "/",
                          "12", "٣", "x", "abc-def", "0", "\n", "t", "z_", ".", ""])


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.lists(PIECES, max_size=12).map("".join),
                 st.tuples(st.text(max_size=3), st.text(max_size=30)).map(
                     lambda parts: f"2026-01-0{parts[0]}T00-00-00-000Z_{parts[1]}.jsonl")))
@example("2026-01-01T00-00-00-000Z_bench.jsonl")
@example("٢٠٢٦-٠١-٠١T٠-Z_id.jsonl")  # other decimal digits: the expression's \\d takes them
@example("2026-01-01T-Z_/.jsonl")
@example("2026-01-01TZ_id.jsonl")
@example("2026-01-01T0Z_.jsonl")
def test_the_string_reading_agrees_with_the_expression(name: str) -> None:
    assert session_named(name) == (re.fullmatch(SESSION_NAME_PATTERN, name) is not None)


def test_the_names_it_makes_are_session_names() -> None:
    assert session_named(session_file_name("2026-01-01T00:00:00.000Z", "a1b2"))
    assert not session_named("notes.jsonl")
    assert not session_named("2026-01-01T00-00-00-000Z_id.jsonl.bak")
