"""The /context argument language: tokenizing and option parsing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from waymarks.core.arguments import ArgumentError, ParsedArgs, parse_options, tokenize

PIN_OPTIONS = frozenset({"scope", "source", "file", "supersedes", "classification"})
MEMORY_ADD_OPTIONS = frozenset({"scope", "key", "source", "classification"})


def quote(token: str) -> str:
    """Double-quote a token so that :func:`tokenize` gives it back unchanged."""
    return '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- tokenize -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", []),
        ("   ", []),
        ("a b  c", ["a", "b", "c"]),
        ("  a\tb\nc  ", ["a", "b", "c"]),
        ('"a b" c', ["a b", "c"]),
        ("'a b' c", ["a b", "c"]),
        ('ab"c d"e', ["abc de"]),
        ("ab'c d'e", ["abc de"]),
        ('"it\'s"', ["it's"]),
        ("'say \"hi\"'", ['say "hi"']),
        ('""', [""]),  # an empty quote is an empty token, as in a shell
        ("''", [""]),
        ('a "" b', ["a", "", "b"]),
        ('"" a', ["", "a"]),
        ("a ''", ["a", ""]),
        ('--key "" The text', ["--key", "", "The", "text"]),
        ('x""y', ["xy"]),
        ('"  spaced  "', ["  spaced  "]),
        ('"line\nbreak"', ["line\nbreak"]),
    ],
)
def test_tokenize_quotes(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        (r"a\ b", ["a b"]),
        (r"\"a", ['"a']),
        (r"\'a\'", ["'a'"]),
        (r"a\\b", ["a\\b"]),
        (r"\n", ["n"]),
        (r'"a\"b"', ['a"b']),
        (r"'a\'b'", ["a'b"]),  # backslash escapes inside single quotes too
        (r'"a\\"', ["a\\"]),
        (r'"a\ b"', ["a b"]),
        (r"\-\-scope", ["--scope"]),
        ("a\\", ["a\\"]),  # trailing lone backslash is kept
        ("\\", ["\\"]),
        ("a \\", ["a", "\\"]),
        ("a\\ ", ["a\\"]),  # the text is stripped before scanning
    ],
)
def test_tokenize_backslash_escapes(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize("text", ['"abc', "'abc", 'a "b c', "ab'c", '"a\\"', "'a\\'", "\"a' b"])
def test_unterminated_quote_raises(text: str) -> None:
    with pytest.raises(ArgumentError, match="Unterminated quote"):
        tokenize(text)


def test_argument_error_is_a_value_error() -> None:
    assert issubclass(ArgumentError, ValueError)


@given(st.text())
def test_tokenize_only_raises_argument_error(text: str) -> None:
    try:
        tokens = tokenize(text)
    except ArgumentError:
        return
    assert all(isinstance(t, str) for t in tokens)
    assert all(t for t in tokens) or any(q in text for q in "\"'")  # empty: quoted only


@given(st.lists(st.text()))
def test_quoted_tokens_round_trip(tokens: list[str]) -> None:
    text = " ".join(quote(t) for t in tokens)
    assert tokenize(text) == tokens  # empty ones too


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Zs", "Cc")), min_size=1)))
def test_quoted_tokens_round_trip_with_any_separator(tokens: list[str]) -> None:
    text = "\t \n".join(quote(t) for t in tokens)
    assert tokenize(text) == tokens


@given(st.lists(st.text(alphabet="ab '\"\\", min_size=1), min_size=1))
def test_hostile_quote_alphabet_round_trips(tokens: list[str]) -> None:
    assert tokenize(" ".join(quote(t) for t in tokens)) == tokens


# -- parse_options ------------------------------------------------------------------------


def parse(text: str, allowed: frozenset[str] = PIN_OPTIONS, **kw: frozenset[str]) -> ParsedArgs:
    return parse_options(tokenize(text), allowed, **kw)


def test_positionals_only() -> None:
    args = parse("Use pnpm for installs")
    assert args.options == {}
    assert args.positionals == ("Use", "pnpm", "for", "installs")
    assert args.text() == "Use pnpm for installs"


def test_option_with_separate_value() -> None:
    args = parse("--scope project Use pnpm")
    assert args.options == {"scope": "project"}
    assert args.positionals == ("Use", "pnpm")


def test_option_with_equals_value() -> None:
    args = parse("--scope=project Use pnpm")
    assert args.options == {"scope": "project"}
    assert args.text() == "Use pnpm"


def test_equals_value_keeps_further_equals_and_may_be_empty() -> None:
    assert parse("--file=a=b").options == {"file": "a=b"}
    assert parse("--file=").options == {"file": ""}


def test_quoted_option_value() -> None:
    args = parse("--file 'my notes.md' --classification=\"local-only\" body")
    assert args.options == {"file": "my notes.md", "classification": "local-only"}
    assert args.positionals == ("body",)


def test_double_dash_ends_options() -> None:
    args = parse("--scope session -- --scope project --bogus")
    assert args.options == {"scope": "session"}
    assert args.positionals == ("--scope", "project", "--bogus")
    assert args.text() == "--scope project --bogus"


def test_double_dash_at_start_and_end() -> None:
    assert parse("-- a b").positionals == ("a", "b")
    args = parse("a --")
    assert args.positionals == ("a",)
    assert args.options == {}


def test_only_the_first_double_dash_is_special() -> None:
    assert parse("a -- b -- c").positionals == ("a", "b", "--", "c")


def test_flag_followed_by_another_option_is_true() -> None:
    args = parse("--scope --classification internal x")
    assert args.options == {"scope": "true", "classification": "internal"}
    assert args.positionals == ("x",)


def test_flag_at_end_is_true() -> None:
    args = parse("some text --supersedes")
    assert args.options == {"supersedes": "true"}
    assert args.positionals == ("some", "text")


def test_option_before_double_dash_is_true() -> None:
    args = parse("--scope -- text")
    assert args.options == {"scope": "true"}
    assert args.positionals == ("text",)


def test_single_dash_values_are_values() -> None:
    args = parse("--source -x -y")
    assert args.options == {"source": "-x"}
    assert args.positionals == ("-y",)


def test_declared_flags_never_take_a_value() -> None:
    args = parse("--force body text", allowed=frozenset(), flags=frozenset({"force"}))
    assert args.options == {"force": "true"}
    assert args.positionals == ("body", "text")


def test_unknown_options_are_all_named() -> None:
    with pytest.raises(ArgumentError) as info:
        parse("--bogus 1 --scope session --Other=2 --third text", MEMORY_ADD_OPTIONS)
    message = str(info.value)
    assert message.startswith("Unknown option(s): ")
    for name in ("--bogus", "--other", "--third"):
        assert name in message
    assert "--scope" not in message


def test_option_not_allowed_for_this_command() -> None:
    with pytest.raises(ArgumentError, match="--supersedes"):
        parse("--supersedes abc text", MEMORY_ADD_OPTIONS)
    with pytest.raises(ArgumentError, match="--key"):
        parse("--key k text", PIN_OPTIONS)
    with pytest.raises(ArgumentError, match="--scope"):
        parse("--scope session reason", frozenset())


def test_last_occurrence_wins() -> None:
    args = parse("--scope session --scope=branch --scope project text")
    assert args.options == {"scope": "project"}
    assert args.positionals == ("text",)


def test_option_names_are_case_insensitive() -> None:
    args = parse("--SCOPE project --Classification=Internal text")
    assert args.options == {"scope": "project", "classification": "Internal"}


def test_case_variants_are_one_option() -> None:
    assert parse("--scope session --SCOPE project").options == {"scope": "project"}


def test_quoting_does_not_protect_an_option() -> None:
    # tokenizing comes first, as in the reference implementation
    assert parse("'--scope' project x").options == {"scope": "project"}


def test_positionals_keep_their_order_around_options() -> None:
    args = parse("one --scope session two --file f three")
    assert args.positionals == ("one", "two", "three")
    assert args.options == {"scope": "session", "file": "f"}


def test_memory_source_list_value() -> None:
    args = parse("--source a1,b2, c3 claim", MEMORY_ADD_OPTIONS)
    assert args.options == {"source": "a1,b2,"}
    assert args.positionals == ("c3", "claim")


@given(st.lists(st.text(min_size=1).filter(lambda t: not t.startswith("--"))))
def test_quoted_positionals_survive_parsing(words: list[str]) -> None:
    tokens = tokenize(" ".join(quote(w) for w in words))
    args = parse_options(tokens, PIN_OPTIONS)
    assert args.positionals == tuple(words)
    assert args.options == {}


@given(st.lists(st.text(), max_size=8))
def test_parse_options_only_raises_argument_error(tokens: list[str]) -> None:
    try:
        args = parse_options(tokens, PIN_OPTIONS)
    except ArgumentError as exc:
        assert str(exc).startswith("Unknown option(s): ")
        return
    assert set(args.options) <= PIN_OPTIONS
