"""The context_persistence parameter matrix and its error categories (pure)."""

from __future__ import annotations

import json

import pytest

from waymarks.tool.contract import (
    ACTIONS,
    FIELDS,
    OMITTED,
    Refusal,
    Request,
    input_schema,
    parse_request,
)

ITEM = "01234567-89ab-4cde-8f01-23456789abcd"
REV = "r1.mx38afki.6f618d6e.CVGpQypSZVfMlYtm-8jTIg"  # any 8 hex in the middle
REF = "src_Kj59fRSoXsDjAV8F"
VALID = {"content": "text", "scope": "session", "key": "db-port", "classification": "internal",
         "targetRevision": REV, "reason": "outdated", "query": "port", "activeOnly": True,
         "maxResults": 5}


def args_for(action: str, names: frozenset[str]) -> dict[str, object]:
    out: dict[str, object] = {"action": action}
    for name in names:
        out[name] = (REF if ACTIONS[action].kind == "source" else ITEM) if name == "id" \
            else VALID[name]
    return out


@pytest.mark.parametrize("name", list(ACTIONS))
def test_every_action_accepts_its_full_parameter_set(name: str) -> None:
    action = ACTIONS[name]
    parsed = parse_request(args_for(name, action.required | action.optional))
    assert isinstance(parsed, Request) and parsed.action is action


@pytest.mark.parametrize("name", list(ACTIONS))
def test_every_missing_required_field_is_categorized(name: str) -> None:
    action = ACTIONS[name]
    for missing in action.required:
        given = args_for(name, action.required - {missing})
        assert parse_request(given) == Refusal("missing-required-parameter")


@pytest.mark.parametrize("name", list(ACTIONS))
def test_every_inapplicable_field_is_unsupported(name: str) -> None:
    action = ACTIONS[name]
    for extra in set(FIELDS) - {"action"} - action.required - action.optional:
        given = args_for(name, action.required)
        given[extra] = ITEM if extra == "id" else VALID[extra]
        assert parse_request(given) == Refusal("unsupported-parameter"), extra


@pytest.mark.parametrize("arguments", [
    None, [], "pins_list", {}, {"action": "drop_table"}, {"action": 3},
    {"action": "pins_list", "surprise": 1},
    {"action": "pins_list", "maxResults": 0}, {"action": "pins_list", "maxResults": 51},
    {"action": "pins_list", "maxResults": True}, {"action": "pins_list", "maxResults": 2.0},
    {"action": "pins_list", "activeOnly": "yes"},
    {"action": "pins_find", "query": ""}, {"action": "pins_find", "query": "x" * 513},
    {"action": "pin_add", "content": "   "}, {"action": "pin_add", "content": 7},
    {"action": "memory_add", "content": "x", "scope": "branch"},
    {"action": "pin_add", "content": "x", "classification": "secret"},
    {"action": "pin_unpin", "id": "not-a-uuid", "targetRevision": REV},
    {"action": "pin_unpin", "id": ITEM, "targetRevision": "r1.bogus"},
    {"action": "memory_source_include", "id": ITEM, "targetRevision": REV},
    {"action": "memory_add", "content": "x", "key": "k" * (64 * 1024 + 1)},  # the service
    # refuses a key over its own limit (160 characters) as too-long
])
def test_malformed_input_is_invalid_parameters(arguments: object) -> None:
    assert parse_request(arguments) == Refusal("invalid-parameters")


def test_null_fields_count_as_absent() -> None:
    parsed = parse_request({"action": "pins_list", "content": None, "maxResults": None})
    assert isinstance(parsed, Request) and parsed.args == {}


@pytest.mark.parametrize("arguments", [
    {"action": "pin_add", "content": f"please {OMITTED}"},
    {"action": "pins_list", "content": OMITTED},  # inapplicable field: still the sentinel
    {"action": "unknown", "reason": OMITTED},
    {"action": "pins_list", f"x{OMITTED}": 1},  # in a field name
    {"action": "pins_list", "extra": [{"deep": OMITTED}]},
])
def test_the_sentinel_wins_over_every_other_category(arguments: object) -> None:
    assert parse_request(arguments) == Refusal("egress-placeholder")


def test_refusals_carry_no_field_names_or_values() -> None:
    refusal = parse_request({"action": "pins_list", "content": "SECRET-VALUE-42"})
    assert refusal == Refusal("unsupported-parameter")
    assert "SECRET" not in repr(refusal) and "content" not in repr(refusal)


def test_schema_is_flat_and_has_no_confirmed_field() -> None:
    schema = input_schema()
    assert set(schema["properties"]) == set(FIELDS)
    assert all(p.get("type") != "object" for p in schema["properties"].values())
    assert "confirmed" not in json.dumps(schema)
    assert schema["properties"]["action"]["enum"] == list(ACTIONS)
