"""Privacy lattice, inline markers and the provider policy (waymarks.core.privacy)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core.marked_filter import filter_text
from waymarks.core.privacy import (
    DEFAULT_POLICY,
    LEVELS,
    WITHHELD,
    PrivacyConfigError,
    ProviderPolicy,
    classify,
    has_markers,
    highest,
    level_rank,
    levels_up_to,
    parse_marked,
    strip_markers,
)

# -- lattice ----------------------------------------------------------------------------


def test_levels_are_ordered() -> None:
    assert LEVELS == ("normal", "internal", "sensitive", "local-only")
    assert [level_rank(level) for level in LEVELS] == [0, 1, 2, 3]
    assert highest("internal", "normal", "sensitive") == "sensitive"
    assert levels_up_to("internal") == {"normal", "internal"}


def test_unknown_level_has_no_rank() -> None:
    with pytest.raises(ValueError, match="unknown classification 'secret'"):
        level_rank("secret")


# -- classify ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "explicit", "level"),
    [
        ("plain text", None, "normal"),
        ("plain text", "sensitive", "sensitive"),
        ("a [ds4:internal]b[/ds4:internal] c", None, "internal"),
        ("a [ds4:local-only]b[/ds4:local-only]", "internal", "local-only"),
        # a marker never lowers an explicit classification
        ("[ds4:normal]b[/ds4:normal]", "sensitive", "sensitive"),
        # case-insensitive markers
        ("[DS4:Sensitive]b[/DS4:SENSITIVE]", None, "sensitive"),
        # escaped: literal text, not a marker
        ("\\[ds4:local-only]b\\[/ds4:local-only]", None, "normal"),
        # stray or unbalanced markers still count
        ("b[/ds4:sensitive]", None, "sensitive"),
        ("x [ds4:internal] y", None, "internal"),
        # removing the inner tag would join a working one: it counts too
        ("[ds4:[ds4:normal]local-only]x", None, "local-only"),
        # an unknown explicit classification fails closed
        ("plain", "secret", "local-only"),
        # markers are ASCII: look-alike letters make plain text, never an error
        ("[ds4:\u017fensitive]x[/ds4:\u017fensitive]", None, "normal"),
        ("[ds4:\u0131nternal]x", None, "normal"),
    ],
)
def test_classify(text: str, explicit: str | None, level: str) -> None:
    assert classify(text, explicit) == level


# -- strip_markers ----------------------------------------------------------------------


def test_strip_removes_tags_and_keeps_escaped_ones_literal() -> None:
    text = "a [ds4:internal]b[/ds4:internal] c \\[ds4:sensitive]d"
    assert strip_markers(text) == "a b c \\[ds4:sensitive]d"
    assert strip_markers(text, unescape=True) == "a b c [ds4:sensitive]d"


def test_strip_leaves_no_working_tag_behind() -> None:
    assert strip_markers("[ds4:[ds4:normal]internal]x") == "x"
    assert not has_markers(strip_markers("[ds4:[ds4:[ds4:normal]normal]internal]x"))


def test_has_markers_ignores_escaped_tags() -> None:
    assert has_markers("x [/ds4:normal]")
    assert not has_markers("x \\[ds4:normal] and ds4: 14:30")


# -- parse_marked and filter_text -------------------------------------------------------


def test_closed_spans_are_segments_with_their_levels() -> None:
    marked = parse_marked("a [ds4:internal]b [ds4:local-only]c[/ds4:local-only] d"
                          "[/ds4:internal] e")
    assert marked.balanced and marked.level == "local-only" and marked.markers == 4
    assert [(s.text, s.level) for s in marked.segments] == [
        ("a ", "normal"), ("b ", "internal"), ("c", "local-only"), (" d", "internal"),
        (" e", "normal")]
    assert marked.text == "a b c d e"


def test_explicit_classification_is_the_floor_of_every_span() -> None:
    marked = parse_marked("a [ds4:normal]b[/ds4:normal]", "sensitive")
    assert {s.level for s in marked.segments} == {"sensitive"}


def test_a_leading_open_marker_classifies_the_rest() -> None:
    marked = parse_marked("  [ds4:sensitive] rest of it [ds4:local-only]x[/ds4:local-only]")
    assert marked.balanced and marked.open_tail
    assert [(s.text, s.level) for s in marked.segments] == [
        ("  ", "normal"), (" rest of it ", "sensitive"), ("x", "local-only")]
    assert filter_text("  [ds4:sensitive] rest", {"normal"}).text is None
    assert filter_text("  [ds4:sensitive] rest", {"normal", "sensitive"}).text == "   rest"


@pytest.mark.parametrize("text", [
    "a [ds4:internal]b",                              # opened, not leading, never closed
    "a b[/ds4:internal] c",                           # stray closing tag
    "[ds4:internal]a[/ds4:sensitive] b",              # mismatched
    "[ds4:internal]a [ds4:sensitive]b[/ds4:internal][/ds4:sensitive]",  # crossed
    "[ds4:internal]a[ds4:sensitive]b",                # two left open
])
def test_unbalanced_markers_classify_the_whole_text(text: str) -> None:
    marked = parse_marked(text)
    assert not marked.balanced
    assert len(marked.segments) == 1 and marked.segments[0].level == marked.level
    assert marked.level == classify(text)
    assert not has_markers(marked.text)


def test_filter_withholds_prohibited_spans_only() -> None:
    out = filter_text("keep [ds4:local-only]secret[/ds4:local-only] and "
                      "[ds4:internal]team[/ds4:internal]", {"normal", "internal"})
    assert out.text == f"keep {WITHHELD} and team"
    assert (out.level, out.dropped, out.markers) == ("local-only", 1, 4)


def test_adjacent_prohibited_spans_become_one_placeholder() -> None:
    out = filter_text("a [ds4:sensitive]x[/ds4:sensitive][ds4:local-only]y[/ds4:local-only]",
                      {"normal"})
    assert out.text == f"a {WITHHELD}" and out.dropped == 1


def test_nothing_allowed_left_withholds_the_whole_text() -> None:
    assert filter_text("[ds4:local-only]x[/ds4:local-only]  ", {"normal"}).text is None
    assert filter_text("all of it", {"normal"}, base="sensitive").text is None
    assert filter_text("x [ds4:local-only]y", {"normal", "internal"}).text is None


def test_allowed_text_loses_only_its_tags() -> None:
    out = filter_text("[ds4:local-only]x[/ds4:local-only] \\[ds4:internal]", set(LEVELS))
    assert out.text == "x \\[ds4:internal]" and out.dropped == 0 and out.markers == 2


# -- properties -------------------------------------------------------------------------

FRAGMENTS = [
    *(f"[ds4:{level}]" for level in LEVELS), *(f"[/ds4:{level}]" for level in LEVELS),
    "[DS4:Local-Only]", "[/Ds4:INTERNAL]", "\\", "[ds4:", "[/ds4:", "local-only]",
    "[ds4:\u017fensitive]", "\u0131",
    "normal]", "]", "[", " ", "a", "xy", "14:30", "\n",
]
marker_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=16).map(
    "".join)
levels = st.sampled_from(LEVELS)


@given(marker_text, st.none() | levels)
def test_classify_never_downgrades_an_explicit_classification(text: str, explicit: Any) -> None:
    level = classify(text, explicit)
    assert level_rank(level) >= level_rank(explicit or "normal")
    for segment in parse_marked(text, explicit).segments:
        assert level_rank(level) >= level_rank(segment.level)


@given(marker_text, marker_text, levels, st.none() | levels)
@pytest.mark.slow
def test_a_marked_span_always_counts(before: str, after: str, span: Any, explicit: Any) -> None:
    text = f"{before}[ds4:{span}]x[/ds4:{span}]{after}"
    assert level_rank(classify(text, explicit)) >= level_rank(span)


@given(marker_text)
@pytest.mark.slow
def test_strip_markers_is_idempotent_and_complete(text: str) -> None:
    once = strip_markers(text)
    assert strip_markers(once) == once
    assert not has_markers(once)
    assert classify(once) == "normal"


@given(marker_text, st.none() | levels)
@pytest.mark.slow
def test_parsed_text_is_the_stripped_text(text: str, explicit: Any) -> None:
    assert parse_marked(text, explicit).text == strip_markers(text)


def a_prohibited_span_never_survives_filtering(before: str, after: str,
                                               allowed_up_to: Any) -> None:
    text = f"{before}[ds4:local-only]SENTINEL[/ds4:local-only]{after}"
    out = filter_text(text, levels_up_to(allowed_up_to))
    assert out.text is None or "SENTINEL" not in out.text
    if out.text is not None:
        assert not has_markers(out.text)


@lanes(quick=30, long=300)
def test_a_prohibited_span_never_survives_filtering(examples: int) -> None:
    run_property(examples, a_prohibited_span_never_survives_filtering,
                 marker_text, marker_text, st.sampled_from(LEVELS[:3]))


# -- provider policy --------------------------------------------------------------------


def test_default_policy_treats_every_provider_as_remote_normal_only() -> None:
    for provider in ("openai", "anthropic", "ollama", "local", ""):
        assert DEFAULT_POLICY.destination(provider) == "remote"
        assert DEFAULT_POLICY.allowed(provider) == {"normal"}
    assert DEFAULT_POLICY.allows("openai", "normal")
    assert not DEFAULT_POLICY.allows("openai", "internal")


def test_local_providers_match_exactly_ignoring_case_and_space() -> None:
    policy = ProviderPolicy.from_config({"localProviders": [" Ollama "]})
    assert policy.local_providers == {"ollama"}
    assert policy.is_local("OLLAMA") and "local-only" in policy.allowed("ollama ")
    assert policy.allows("ollama", "local-only")
    assert not policy.is_local("ollama-remote") and not policy.is_local("llama")


def test_remote_allowances_from_config() -> None:
    policy = ProviderPolicy.from_config({
        "defaultProvider": "openai",  # read by the service, ignored here
        "localProviders": ["lmstudio"],
        "remoteDefaultAllowed": "internal",
        "remoteProviders": {"OpenRouter": "normal",
                            "gateway": ["internal", "normal", "sensitive"]},
    })
    assert policy.remote_default() == {"normal", "internal"}  # a level: every level up to it
    assert dict(policy.remote_providers) == {"openrouter": {"normal"},
                                             "gateway": {"normal", "internal", "sensitive"}}
    assert policy.allowed("Gateway") == {"normal", "internal", "sensitive"}
    assert policy.allowed("someone-else") == {"normal", "internal"}
    assert not policy.allows("gateway", "local-only")
    assert not policy.allows("gateway", "bogus")


def test_allow_lists_are_exact_as_in_ds4() -> None:
    """``["normal", "sensitive"]`` allows those two and not ``internal`` (DS4 privacy)."""
    policy = ProviderPolicy.from_config({"remoteProviders": {"gateway": ["normal",
                                                                        "sensitive"]}})
    assert policy.allowed("gateway") == {"normal", "sensitive"}
    assert policy.allows("gateway", "sensitive") and not policy.allows("gateway", "internal")
    assert ProviderPolicy.from_config({"remoteDefaultAllowed": ["internal"]}).allowed(
        "x") == {"internal"}


def test_default_classification_and_redaction_switch() -> None:
    from waymarks.core.egress import Egress

    policy = ProviderPolicy.from_config({"defaultClassification": "internal",
                                         "redactSecrets": False})
    egress = Egress.to(policy, "openai")
    assert egress.level("unclassified claim") == "internal"
    assert not egress.admits(egress.level("unclassified claim"))
    assert egress.level("explicit", "normal") == "normal"  # an explicit level stays
    assert egress.text("token ghp_" + "a1B2c3D4e5" * 4, "normal") == (
        "token ghp_" + "a1B2c3D4e5" * 4)  # the person turned redaction off
    assert Egress.to(ProviderPolicy(), "openai").text("token ghp_" + "a1B2c3D4e5" * 4) == (
        "token [REDACTED:github-token]")


def test_a_project_policy_meets_the_home_policy() -> None:
    home = ProviderPolicy.from_config({"localProviders": ["ollama"],
                                       "remoteProviders": {"gw": ["normal", "sensitive"]}})
    project = ProviderPolicy.from_config({"localProviders": ["ollama", "openai"],
                                          "remoteDefaultAllowed": "sensitive",
                                          "remoteProviders": {"gw": ["normal", "internal"]},
                                          "defaultClassification": "internal",
                                          "redactSecrets": False})
    met = home.tightened_by(project)
    assert met.local_providers == {"ollama"} and met.allowed("openai") == {"normal"}
    assert met.allowed("gw") == {"normal"} and met.allowed("other") == {"normal"}
    assert met.default_classification == "internal" and met.redact_secrets


def test_policy_is_frozen_and_hashable() -> None:
    policy = ProviderPolicy.from_config({"remoteProviders": {"a": "internal"}})
    with pytest.raises(AttributeError):
        policy.remote_default_allowed = "sensitive"  # type: ignore[misc]
    with pytest.raises(TypeError):
        policy.remote_providers["b"] = "internal"  # type: ignore[index]
    assert hash(policy) == hash(ProviderPolicy.from_config({"remoteProviders": {"a": "internal"}}))
    assert policy == ProviderPolicy(remote_providers={"A": "internal"})


@pytest.mark.parametrize(("config", "message"), [
    ({"remoteDefaultAllowed": "local-only"}, "remoteDefaultAllowed: 'local-only' can never"),
    ({"remoteDefaultAllowed": ["normal", "local-only"]}, "'local-only' can never"),
    ({"remoteProviders": {"openai": "local-only"}}, "remoteProviders.openai: 'local-only'"),
    ({"remoteProviders": {"openai": ["normal", "internal", "sensitive", "local-only"]}},
     "remoteProviders.openai: 'local-only' can never"),
    ({"remoteDefaultAllowed": "secret"}, "unknown classification 'secret'"),
    ({"remoteProviders": {"x": ["normal", "top"]}}, "unknown classification 'top'"),
    ({"remoteProviders": {"x": []}}, "empty allow list"),
    ({"remoteProviders": {"x": 3}}, "expected a list of classifications"),
    ({"defaultClassification": "secret"}, "defaultClassification: unknown classification"),
    ({"redactSecrets": "yes"}, "redactSecrets must be true or false"),
    ({"remoteProviders": ["x"]}, "remoteProviders must be a table"),
    ({"localProviders": "ollama"}, "localProviders must be a list"),
    ({"localProviders": [""]}, "non-empty strings"),
    ({"localProviders": ["ollama"], "remoteProviders": {"OLLAMA": "normal"}},
     "is also in localProviders"),
    ({"remoteProviders": {"a": "normal", "A": "internal"}}, "listed twice"),
    # the team ledger, which every clone reads: listed as local it was accepted in silence,
    # `waymarks privacy` said "Local providers (may see everything): team", and sharing
    # still took normal and internal only
    ({"localProviders": ["ollama", " Team "]}, "localProviders: 'team' is the team ledger"),
    ({"remoteProvider": {"a": "normal"}}, "unknown privacy setting 'remoteProvider'"),
    ({"enabled": False}, "unknown privacy setting 'enabled'"),
])
def test_invalid_configuration_is_rejected_with_the_setting_named(
        config: dict[str, Any], message: str) -> None:
    with pytest.raises(PrivacyConfigError, match=message.replace("(", r"\(")):
        ProviderPolicy.from_config(config)


def test_configuration_must_be_a_table() -> None:
    with pytest.raises(PrivacyConfigError, match="must be a table"):
        ProviderPolicy.from_config(["normal"])  # type: ignore[arg-type]


def test_direct_construction_is_validated_too() -> None:
    with pytest.raises(PrivacyConfigError, match="'local-only' can never"):
        ProviderPolicy(remote_default_allowed="local-only")
    with pytest.raises(PrivacyConfigError, match="'local-only' can never"):
        ProviderPolicy(remote_providers={"openai": "local-only"})
    with pytest.raises(PrivacyConfigError, match="localProviders must be a list"):
        ProviderPolicy(local_providers="ollama")  # type: ignore[arg-type]


def test_an_unknown_setting_is_named_unless_it_is_a_credential() -> None:
    """The refusal of an unknown [privacy] (or [evolution]) setting counted a name in
    snake case (``local_providers``, as other tools spell it: the person could not tell
    which line was wrong) as "not a setting name", and named an AWS access key ID pasted
    there, all letters and digits, in full (read by an agent as well)."""
    from waymarks.core.privacy import setting_names

    said = setting_names(["AKIAIOSFODNN7EXAMPL3", "local_providers", "max-tokens"],
                         quoted=True)
    assert "'local_providers'" in said and "'max-tokens'" in said
    assert "AKIA" not in said and "1 not shown" in said
    with pytest.raises(PrivacyConfigError) as refused:
        ProviderPolicy.from_config({"AKIAIOSFODNN7EXAMPL3": 1, "local_providers": ["x"]})
    assert "AKIA" not in str(refused.value) and "'local_providers'" in str(refused.value)
