"""Text rules of seed 000: normalisation, key derivation, claim polarity."""

from __future__ import annotations

import random
import sys
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.lanes import lanes
from waymarks.core.text import derive_key, escaped, normalize, normalize_key, polarity

# -- key derivation ---------------------------------------------------------------------


def test_seed_example_defaults_to_key() -> None:
    assert derive_key("Package export mode defaults to PerEndpoint.") == "package-export-mode"


def test_seed_supersede_example_shares_the_key() -> None:
    first = derive_key("Package export mode defaults to PerEndpoint.")
    second = derive_key("Package export mode defaults to SingleFile.")
    assert first == second == "package-export-mode"


@pytest.mark.parametrize(
    ("claim", "key"),
    [
        ("Package export mode default to PerEndpoint", "package-export-mode"),
        ("PACKAGE EXPORT MODE DEFAULTS TO x", "package-export-mode"),
        ("Build tool is pnpm", "build-tool"),
        ("Test runners are pytest and hypothesis", "test-runners"),
        ("Max retries = 3", "max-retries"),
        ("Max retries=3", "max-retries"),
        ("  Max   retries    =   3  ", "max-retries"),
        ("Feature is enabled", "feature"),
        ("Feature is not enabled", "feature"),
        ("api.timeout_ms = 30", "api.timeout_ms"),
        ("src/config path is settings.toml", "src/config-path"),
    ],
)
def test_keyed_claim_shapes(claim: str, key: str) -> None:
    assert derive_key(claim) == key


def test_subject_is_the_shortest_prefix() -> None:
    # the subject ends at the first verb, as the reference's lazy match does
    assert derive_key("Mode is x is y") == "mode"


@pytest.mark.parametrize(
    "claim",
    [
        "It is broken",
        "This = that",
        "That is fine",
        "There are three workers",
        "What is the build tool",
        "Something is off",
        "No cache is used",
        "Never is a long time",
        "a = b",  # one-character subject
        "1 = 2",  # no letter in the subject
        "= value",
        "Mode is",  # no value
        "Use pnpm for installs",  # no keyed shape at all
        "",
        "   ",
        "one two three four five six seven is too long a subject",
    ],
)
def test_vague_or_unshaped_claims_have_no_key(claim: str) -> None:
    assert derive_key(claim) is None


def test_derived_key_ignores_case_whitespace_and_trailing_period() -> None:
    variants = [
        "Package export mode defaults to PerEndpoint.",
        "package export mode defaults to perendpoint",
        "  Package   export\tmode\ndefaults to PerEndpoint  ",
    ]
    assert {derive_key(v) for v in variants} == {"package-export-mode"}


def test_derived_key_is_a_valid_normalized_key() -> None:
    key = derive_key("Package export mode defaults to PerEndpoint.")
    assert key is not None
    assert normalize_key(key) == key


@given(st.text(max_size=200))
def test_derived_keys_are_stable_slugs(claim: str) -> None:
    key = derive_key(claim)
    if key is not None:
        assert 2 <= len(key) <= 160
        assert key == key.casefold()
        assert not any(c.isspace() for c in key)
        assert any(c.isalpha() for c in key)
        assert derive_key(claim) == key


# -- normalize ----------------------------------------------------------------------------


def test_normalize_collapses_case_whitespace_and_trailing_period() -> None:
    variants = [
        "Use pnpm for installs.",
        "use pnpm for installs",
        "  USE   pnpm\tfor\n installs .  ",
        "Use pnpm for installs!",
    ]
    assert {normalize(v) for v in variants} == {"use pnpm for installs"}


def test_normalize_keeps_inner_punctuation_and_distinct_texts_apart() -> None:
    assert normalize("Use pnpm, not npm.") == "use pnpm, not npm"
    assert normalize("Use pnpm") != normalize("Use npm")


def test_normalize_unicode_compatibility_and_casefold() -> None:
    assert normalize("ＦＵＬＬ width") == normalize("full WIDTH")
    assert normalize("Straße") == normalize("STRASSE")
    assert normalize("ﬁle") == "file"


@given(st.text(max_size=200))
def test_normalize_is_idempotent(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once
    assert once == once.strip()
    assert "  " not in once


# -- normalize_key ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("package-export-mode", "package-export-mode"),
        ("Package Export Mode", "package-export-mode"),
        ("  Package   Export\tMode  ", "package-export-mode"),
        ("--package--export--", "package--export"),
        ("a.b/c_d-e", "a.b/c_d-e"),
        ("key: value!", "key-value"),
        ("v2", "v2"),
        ("Größe Modus", "grösse-modus"),
        ("日本語 キー", "日本語-キー"),
        ("ключ Кэша", "ключ-кэша"),
        ("ＡＢＣ", "abc"),
    ],
)
def test_normalize_key(raw: str, key: str) -> None:
    assert normalize_key(raw) == key


@pytest.mark.parametrize("raw", ["", "   ", "---", "...", "__", "!!! ???", "./-_"])
def test_key_without_letters_or_digits_is_empty(raw: str) -> None:
    assert normalize_key(raw) == ""


def test_normalize_key_caps_length() -> None:
    assert len(normalize_key("k" * 500)) == 160


@given(st.text(max_size=300))
def test_normalize_key_is_idempotent_and_bounded(raw: str) -> None:
    key = normalize_key(raw)
    assert len(key) <= 160
    assert normalize_key(key) == key or normalize_key(key) == key.strip("-")
    assert not any(c.isspace() for c in key)
    if key:
        assert any(c.isalnum() for c in key)


# -- polarity -----------------------------------------------------------------------------


def test_seed_polarity_examples_share_a_base() -> None:
    enabled = polarity("Feature is enabled")
    disabled = polarity("Feature is disabled")
    not_enabled = polarity("Feature is not enabled")
    assert enabled is not None and disabled is not None and not_enabled is not None
    assert enabled[0] == disabled[0] == not_enabled[0]
    assert enabled[1] == 1
    assert disabled[1] == -1
    assert not_enabled[1] == -1


def test_double_negation_flips_back() -> None:
    assert polarity("Feature is not disabled") == polarity("Feature is enabled")


@pytest.mark.parametrize(
    ("positive", "negative"),
    [
        ("Telemetry enabled", "Telemetry disabled"),
        ("Strict mode is on", "Strict mode is off"),
        ("Caching is allowed", "Caching is forbidden"),
        ("Signing is required", "Signing is optional"),
        ("IPv6 is supported", "IPv6 is unsupported"),
        ("Flag X is true", "Flag X is false"),
        ("Feature is enabled.", "feature IS NOT   enabled"),
    ],
)
def test_opposite_polarities(positive: str, negative: str) -> None:
    pos, neg = polarity(positive), polarity(negative)
    assert pos is not None and neg is not None
    assert pos[0] == neg[0]
    assert (pos[1], neg[1]) == (1, -1)


def test_contraction_negates() -> None:
    result = polarity("Feature isn't enabled")
    assert result is not None
    assert result[1] == -1


@pytest.mark.parametrize(
    ("positive", "negative"),
    [("It is enabled", "It isn't enabled"), ("Flags are enabled", "Flags aren't enabled")],
)
def test_contraction_shares_base_with_positive(positive: str, negative: str) -> None:
    pos, neg = polarity(positive), polarity(negative)
    assert pos is not None and neg is not None
    assert pos[0] == neg[0]


@pytest.mark.parametrize(
    "claim",
    [
        "Use pnpm for installs",
        "Package export mode defaults to PerEndpoint.",
        "Feature is enabled and telemetry is disabled",  # two polarity words: ambiguous
        "",
    ],
)
def test_no_polarity(claim: str) -> None:
    assert polarity(claim) is None


def test_different_subjects_have_different_bases() -> None:
    a, b = polarity("Feature A is enabled"), polarity("Feature B is disabled")
    assert a is not None and b is not None
    assert a[0] != b[0]


@given(st.text(max_size=200))
def test_polarity_sign_is_unit(claim: str) -> None:
    result = polarity(claim)
    if result is not None:
        assert result[1] in (1, -1)
        assert polarity(claim) == result


#: pieces of claims around the keyed shapes' verbs: their cases, words that hold them
#: ("this", "area", "tois"), '=' and '==', articles, other whitespace and non-ASCII letters
#: (whose claims take the expression itself)
_KEYED_PIECES: Final = (
    "is", "are", "Is", "ARE", "default", "defaults", "Default", "DEFAULTS", "to", "To", "=",
    "==", "a", "the", "x", "_", "-", "it", "not", "this", "area", "tois", "s", "sto",
    "defaultsto", ".", "1", " ", "  ", "\t", "\n", "é", "ı", "İ", "ſ", "\u212a", "\u00a0",
)


@lanes(quick=10_000, long=400_000)
def test_keyed_subject_is_what_the_expression_matches(examples: int) -> None:
    """The verb search of printable ASCII claims finds the subject the keyed-claim
    expression matches, and nothing where its value would be blank or it does not match:
    texts of up to eight pieces, each followed by no, one or two spaces (a seeded draw:
    the differences are rare among all texts, so many cheap cases, not a few shrunk)."""
    from waymarks.core.text import _KEYED_CLAIM, _keyed_subject

    draw = random.Random(15)
    for _ in range(examples):
        text = "".join(draw.choice(_KEYED_PIECES) + draw.choice(("", "", " ", "  "))
                       for _ in range(draw.randint(0, 8)))
        match = _KEYED_CLAIM.match(text)
        expected = None if match is None or not match.group("value").strip() else (
            match.group("subject"))
        assert _keyed_subject(text) == expected, text


# -- escaping for a terminal --------------------------------------------------------------

#: what must reach a terminal escaped, alone and among printable text and kept characters
HOSTILE: Final = ["\x00", "\x1b[31mred\x1b[0m", "\x07", "\x7f", "\x85", "\x9b2J", "\u0085",
                  "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u00ad", "\u2028",
                  "\u2029", "\ud800", "\udfff", "\ue000", "\U000f0000", "\U0010ffff",
                  "\u0378", "\r", "\t", "\n", "\x0b", "\x0c", "\xa0", "\u3000", " ",
                  "数据库", "e\u0301", "\U0001f600"]


def escaped_char_by_char(text: str, keep: str = "") -> str:
    """The rule as it was written: every character looked at, one by one."""
    return "".join(ch if ch.isprintable() or ch in keep
                   else {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, f"\\u{ord(ch):04x}")
                   for ch in text)


@pytest.mark.parametrize("keep", ["", "\n\t", "\n", "\t", "\r\n", "\u2028", "-]\\^"])
def test_escaping_line_by_line_changes_no_character_of_the_output(keep: str) -> None:
    rng = random.Random(7)
    texts = [*HOSTILE, "".join(HOSTILE), "\n".join(HOSTILE), "\n\n", "\t\n\t", "a\nb\tc"]
    for _ in range(300):
        texts.append("".join(rng.choice([*HOSTILE, "plain words", "\n", "\t", "x"])
                             for _ in range(rng.randrange(1, 12))))
    for text in texts:
        assert escaped(text, keep) == escaped_char_by_char(text, keep), (text, keep)


@given(st.text(), st.sampled_from(["", "\n\t", "\n", "\u2028\r"]))
def test_escaping_agrees_with_the_character_rule_on_any_text(text: str, keep: str) -> None:
    assert escaped(text, keep) == escaped_char_by_char(text, keep)


def test_a_long_output_with_one_hostile_line_is_not_escaped_a_character_at_a_time() -> None:
    """Every line break made the whole text not printable, and all of it went through a
    Python loop a character at a time (an export of 54 MB: 6.7 of its 9.4 s, 826 MB)."""
    lines = [f"{n:08d}  active  session  Always run the linter before merging (rule {n})"
             for n in range(5000)]
    lines[2500] = "hostile \x1b[2J line\u202e"
    text = "\n".join(lines) + "\n"
    calls = 0

    def count(_frame: object, event: str, _arg: object) -> None:
        nonlocal calls
        calls += event == "call"  # Python calls, a generator's every step among them

    sys.setprofile(count)
    try:
        out = escaped(text, "\n\t")
    finally:
        sys.setprofile(None)
    assert out == escaped_char_by_char(text, "\n\t")
    assert "hostile \\u001b[2J line\\u202e\n" in out
    assert calls < 200, calls  # (a step per character: 400,000)
