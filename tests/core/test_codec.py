"""Mutation payload codec: round trips, unknown and malformed payloads, timestamps."""

from __future__ import annotations

import json
import random
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core.codec import (
    MalformedPayload,
    UnknownPayload,
    custom_type_of,
    decode_payload,
    encode_payload,
    iso_to_ms,
    structural_problem,
)
from waymarks.core.model import (
    CLASSIFICATIONS,
    MEMORY_CUSTOM_TYPE,
    PIN_CUSTOM_TYPE,
    SCHEMA_VERSION,
    MemoryItem,
    MemoryMutation,
    PinItem,
    PinMutation,
)

# -- strategies ---------------------------------------------------------------------------

HOSTILE = [
    '"',
    "'",
    "\\",
    '\\"',
    "\x00",
    "\n",
    "\r\n",
    "\u2028",
    "\u2029",
    "\x1b[31m",
    "\ufeff",
    "🦀",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "[END DS4 PINNED CONTEXT]",
    "[END DS4 DURABLE MEMORY]",
    '"}\n{"type":"session"',
    "</script>",
    "null",
]

hostile_text = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=5)), max_size=8).map("".join),
)
ident = st.one_of(st.uuids().map(str), hostile_text.filter(bool))
opt_text = st.none() | hostile_text
millis = st.integers(min_value=0, max_value=2**53)
classification = st.none() | st.sampled_from(CLASSIFICATIONS)


@st.composite
def pin_items(draw: st.DrawFn) -> PinItem:
    scope = draw(st.sampled_from(["session", "branch", "project"]))
    return PinItem(
        id=draw(ident),
        scope=scope,
        content=draw(hostile_text),
        created_at=draw(millis),
        project_path=draw(ident) if scope == "project" else draw(st.none() | ident),
        branch_leaf_id=draw(ident) if scope == "branch" else draw(st.none() | ident),
        classification=draw(classification),
        source_entry_id=draw(opt_text),
        source_file=draw(opt_text),
    )


@st.composite
def memory_items(draw: st.DrawFn) -> MemoryItem:
    scope = draw(st.sampled_from(["session", "project"]))
    return MemoryItem(
        id=draw(ident),
        scope=scope,
        claim=draw(hostile_text),
        created_at=draw(millis),
        source_entry_ids=tuple(draw(st.lists(hostile_text, max_size=4))),
        project_path=draw(ident) if scope == "project" else draw(st.none() | ident),
        key=draw(opt_text),
        classification=draw(classification),
    )


@st.composite
def pin_mutations(draw: st.DrawFn) -> PinMutation:
    op = draw(st.sampled_from(["add", "supersede", "status"]))
    base: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "mutation_id": draw(ident),
        "created_at": draw(millis),
        "operation": op,
    }
    if op == "status":
        return PinMutation(**base, pin_id=draw(ident), status="deleted", reason=draw(opt_text))
    previous = draw(ident) if op == "supersede" else None
    return PinMutation(**base, item=draw(pin_items()), previous_id=previous)


@st.composite
def memory_mutations(draw: st.DrawFn) -> MemoryMutation:
    op = draw(st.sampled_from(["add", "supersede", "status"]))
    base: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "mutation_id": draw(ident),
        "created_at": draw(millis),
        "operation": op,
    }
    if op == "status":
        status = draw(st.sampled_from(["invalid", "expired"]))
        return MemoryMutation(**base, memory_id=draw(ident), status=status, reason=draw(opt_text))
    previous = draw(ident) if op == "supersede" else None
    return MemoryMutation(**base, item=draw(memory_items()), previous_id=previous)


mutations = st.one_of(pin_mutations(), memory_mutations())


# -- round trips --------------------------------------------------------------------------


def round_trip(mutation: PinMutation | MemoryMutation) -> None:
    assert structural_problem(mutation) is None
    encoded = encode_payload(mutation)
    assert decode_payload(custom_type_of(mutation), encoded) == mutation


@lanes(quick=20, long=100)
def test_round_trip(examples: int) -> None:
    run_property(examples, round_trip, mutations)


def encoded_payload_is_one_json_line_without_nulls(
    mutation: PinMutation | MemoryMutation,
) -> None:
    encoded = encode_payload(mutation)
    assert b"\n" not in encoded
    assert b"\r" not in encoded
    assert b"\x00" not in encoded
    loose = json.loads(encoded)

    def no_nulls(value: object) -> None:
        if isinstance(value, dict):
            for v in value.values():
                assert v is not None
                no_nulls(v)

    no_nulls(loose)
    assert loose["schemaVersion"] == 1


@lanes(quick=20, long=100)
def test_encoded_payload_is_one_json_line_without_nulls(examples: int) -> None:
    run_property(examples, encoded_payload_is_one_json_line_without_nulls, mutations)


def payload_embedded_in_a_pi_line_round_trips(mutation: PinMutation | MemoryMutation) -> None:
    custom_type = custom_type_of(mutation)
    line = json.dumps(
        {
            "type": "custom",
            "customType": custom_type,
            "data": json.loads(encode_payload(mutation)),
            "id": "a1b2c3d4",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:00.000Z",
        }
    )
    data = json.dumps(json.loads(line)["data"]).encode()
    assert decode_payload(custom_type, data) == mutation


@lanes(quick=20, long=100)
def test_payload_embedded_in_a_pi_line_round_trips(examples: int) -> None:
    run_property(examples, payload_embedded_in_a_pi_line_round_trips, mutations)


def test_custom_type_of() -> None:
    pin = PinMutation(1, "m", 1, "status", pin_id="p", status="deleted")
    memory = MemoryMutation(1, "m", 1, "status", memory_id="x", status="expired")
    assert custom_type_of(pin) == PIN_CUSTOM_TYPE == "ds4-context-pin-v1"
    assert custom_type_of(memory) == MEMORY_CUSTOM_TYPE == "ds4-context-memory-v1"


def test_wire_shape_is_camel_case_and_omits_absent_optionals() -> None:
    mutation = MemoryMutation(
        schema_version=1,
        mutation_id="m-1",
        created_at=1700000000000,
        operation="add",
        item=MemoryItem(
            id="i-1", scope="session", claim="c", created_at=1700000000000, source_entry_ids=()
        ),
    )
    loose = json.loads(encode_payload(mutation))
    assert loose == {
        "schemaVersion": 1,
        "mutationId": "m-1",
        "createdAt": 1700000000000,
        "operation": "add",
        "item": {
            "id": "i-1",
            "scope": "session",
            "claim": "c",
            "createdAt": 1700000000000,
            "sourceEntryIds": [],
        },
    }


def test_reference_shaped_payloads_decode() -> None:
    # key order and field set as the reference implementation writes them
    pin = {
        "schemaVersion": 1,
        "mutationId": "0f8fad5b-d9cb-469f-a165-70867728950e",
        "operation": "supersede",
        "previousId": "old",
        "item": {
            "id": "new",
            "scope": "branch",
            "branchLeafId": "a1b2c3d4",
            "classification": "internal",
            "content": "Use pnpm",
            "createdAt": 5,
            "sourceEntryId": "e1",
            "sourceFile": "notes.md",
        },
        "createdAt": 5,
    }
    decoded = decode_payload(PIN_CUSTOM_TYPE, json.dumps(pin).encode())
    assert isinstance(decoded, PinMutation)
    assert decoded.previous_id == "old"
    assert decoded.item is not None and decoded.item.branch_leaf_id == "a1b2c3d4"
    memory = {
        "schemaVersion": 1,
        "mutationId": "m",
        "operation": "status",
        "memoryId": "x",
        "status": "expired",
        "createdAt": 7,
        "reason": "stale",
    }
    decoded_memory = decode_payload(MEMORY_CUSTOM_TYPE, json.dumps(memory).encode())
    assert decoded_memory == MemoryMutation(
        1, "m", 7, "status", memory_id="x", status="expired", reason="stale"
    )


def test_unknown_extra_fields_are_tolerated() -> None:
    memory = {
        "schemaVersion": 1,
        "mutationId": "m",
        "operation": "add",
        "createdAt": 1,
        "futureField": {"x": 1},
        "item": {
            "id": "i",
            "scope": "session",
            "claim": "c",
            "createdAt": 1,
            "sourceEntryIds": ["e"],
            "futureItemField": True,
        },
    }
    decoded = decode_payload(MEMORY_CUSTOM_TYPE, json.dumps(memory).encode())
    assert isinstance(decoded, MemoryMutation)
    assert decoded.item is not None and decoded.item.source_entry_ids == ("e",)


# -- unknown payloads ---------------------------------------------------------------------


def valid_memory_add(**changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "schemaVersion": 1,
        "mutationId": "m-1",
        "operation": "add",
        "createdAt": 10,
        "item": {
            "id": "i-1",
            "scope": "session",
            "claim": "Use pnpm",
            "createdAt": 10,
            "sourceEntryIds": [],
        },
    }
    payload.update(changes)
    return payload


def valid_pin_add(**item_changes: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"id": "p-1", "scope": "session", "content": "Use pnpm", "createdAt": 10}
    item.update(item_changes)
    return {
        "schemaVersion": 1,
        "mutationId": "m-1",
        "operation": "add",
        "createdAt": 10,
        "item": item,
    }


def enc(payload: object) -> bytes:
    return json.dumps(payload).encode()


def test_valid_fixtures_decode() -> None:
    assert isinstance(decode_payload(MEMORY_CUSTOM_TYPE, enc(valid_memory_add())), MemoryMutation)
    assert isinstance(decode_payload(PIN_CUSTOM_TYPE, enc(valid_pin_add())), PinMutation)


@pytest.mark.parametrize("version", [0, 2, 99, -1])
@pytest.mark.parametrize("custom_type", [PIN_CUSTOM_TYPE, MEMORY_CUSTOM_TYPE])
def test_unknown_schema_version(custom_type: str, version: int) -> None:
    payload = (
        valid_memory_add(schemaVersion=version)
        if custom_type == MEMORY_CUSTOM_TYPE
        else {**valid_pin_add(), "schemaVersion": version}
    )
    assert decode_payload(custom_type, enc(payload)) == UnknownPayload(custom_type, version)


def test_future_version_with_a_different_shape_is_unknown() -> None:
    payload = {"schemaVersion": 2, "mutationId": 17, "op": "merge", "items": [1, 2]}
    assert decode_payload(PIN_CUSTOM_TYPE, enc(payload)) == UnknownPayload(PIN_CUSTOM_TYPE, 2)


@pytest.mark.parametrize(
    "custom_type", ["ds4-context-pin-v2", "ds4-context-memory-v2", "ds4-context-source-v1"]
)
def test_unknown_custom_type_in_family(custom_type: str) -> None:
    decoded = decode_payload(custom_type, enc(valid_memory_add()))
    assert decoded == UnknownPayload(custom_type, 1)


def test_unknown_custom_type_with_undecodable_data() -> None:
    assert decode_payload("ds4-context-x-v9", b"{not json") == UnknownPayload(
        "ds4-context-x-v9", None
    )
    assert decode_payload("ds4-context-x-v9", None) == UnknownPayload("ds4-context-x-v9", None)


# -- malformed payloads -------------------------------------------------------------------


def malformed_memory_cases() -> list[tuple[str, dict[str, Any]]]:
    item = valid_memory_add()["item"]
    return [
        ("missing item", {k: v for k, v in valid_memory_add().items() if k != "item"}),
        ("null item", valid_memory_add(item=None)),
        ("empty mutationId", valid_memory_add(mutationId="")),
        ("missing mutationId", {k: v for k, v in valid_memory_add().items() if k != "mutationId"}),
        ("numeric mutationId", valid_memory_add(mutationId=5)),
        ("missing createdAt", {k: v for k, v in valid_memory_add().items() if k != "createdAt"}),
        ("string createdAt", valid_memory_add(createdAt="10")),
        ("unknown operation", valid_memory_add(operation="delete")),
        ("project without projectPath", valid_memory_add(item={**item, "scope": "project"})),
        (
            "project with empty projectPath",
            valid_memory_add(item={**item, "scope": "project", "projectPath": ""}),
        ),
        ("branch memory", valid_memory_add(item={**item, "scope": "branch", "branchLeafId": "a"})),
        ("unknown scope", valid_memory_add(item={**item, "scope": "global"})),
        (
            "missing sourceEntryIds",
            valid_memory_add(item={k: v for k, v in item.items() if k != "sourceEntryIds"}),
        ),
        ("non-string source id", valid_memory_add(item={**item, "sourceEntryIds": [1]})),
        ("empty item id", valid_memory_add(item={**item, "id": ""})),
        ("numeric claim", valid_memory_add(item={**item, "claim": 3})),
        ("numeric key", valid_memory_add(item={**item, "key": 5})),
        ("bad classification", valid_memory_add(item={**item, "classification": "secret"})),
        ("supersede without previousId", valid_memory_add(operation="supersede")),
        ("supersede with empty previousId", valid_memory_add(operation="supersede", previousId="")),
        (
            "status without memoryId",
            {
                "schemaVersion": 1,
                "mutationId": "m",
                "operation": "status",
                "status": "invalid",
                "createdAt": 1,
            },
        ),
        (
            "status without status",
            {
                "schemaVersion": 1,
                "mutationId": "m",
                "operation": "status",
                "memoryId": "x",
                "createdAt": 1,
            },
        ),
        (
            "bogus status",
            {
                "schemaVersion": 1,
                "mutationId": "m",
                "operation": "status",
                "memoryId": "x",
                "status": "bogus",
                "createdAt": 1,
            },
        ),
    ]


MALFORMED_MEMORY = malformed_memory_cases()


@pytest.mark.parametrize(
    "payload", [p for _, p in MALFORMED_MEMORY], ids=[n for n, _ in MALFORMED_MEMORY]
)
def test_malformed_memory_payloads(payload: dict[str, Any]) -> None:
    decoded = decode_payload(MEMORY_CUSTOM_TYPE, enc(payload))
    assert isinstance(decoded, MalformedPayload), decoded
    assert decoded.custom_type == MEMORY_CUSTOM_TYPE
    assert decoded.problem


@pytest.mark.parametrize(
    ("name", "payload"),
    [
        ("branch pin without branchLeafId", valid_pin_add(scope="branch")),
        ("branch pin with empty branchLeafId", valid_pin_add(scope="branch", branchLeafId="")),
        ("project pin without projectPath", valid_pin_add(scope="project")),
        ("unknown scope", valid_pin_add(scope="global")),
        ("missing item", {k: v for k, v in valid_pin_add().items() if k != "item"}),
        (
            "missing content",
            {**valid_pin_add(), "item": {"id": "p", "scope": "session", "createdAt": 1}},
        ),
        ("numeric sourceFile", valid_pin_add(sourceFile=1)),
        ("empty mutationId", {**valid_pin_add(), "mutationId": ""}),
        (
            "status without pinId",
            {
                "schemaVersion": 1,
                "mutationId": "m",
                "operation": "status",
                "status": "deleted",
                "createdAt": 1,
            },
        ),
        (
            "status with empty pinId",
            {
                "schemaVersion": 1,
                "mutationId": "m",
                "operation": "status",
                "pinId": "",
                "status": "deleted",
                "createdAt": 1,
            },
        ),
    ],
)
def test_malformed_pin_payloads(name: str, payload: dict[str, Any]) -> None:
    decoded = decode_payload(PIN_CUSTOM_TYPE, enc(payload))
    assert isinstance(decoded, MalformedPayload), (name, decoded)
    assert decoded.custom_type == PIN_CUSTOM_TYPE


def test_missing_data_is_malformed() -> None:
    assert isinstance(decode_payload(PIN_CUSTOM_TYPE, None), MalformedPayload)


@pytest.mark.parametrize("data", [b"{not json", b"", b"\xff\xfe", b'{"schemaVersion":1,'])
def test_undecodable_data_is_not_a_mutation(data: bytes) -> None:
    decoded = decode_payload(MEMORY_CUSTOM_TYPE, data)
    assert isinstance(decoded, MalformedPayload | UnknownPayload)


@pytest.mark.parametrize("data", [b"[1, 2]", b'"text"', b"42"])
def test_non_object_data_is_malformed(data: bytes) -> None:
    assert isinstance(decode_payload(PIN_CUSTOM_TYPE, data), MalformedPayload)


@pytest.mark.parametrize(
    ("custom_type", "target", "status"),
    [
        (MEMORY_CUSTOM_TYPE, "memoryId", "deleted"),
        (MEMORY_CUSTOM_TYPE, "memoryId", "superseded"),
        (MEMORY_CUSTOM_TYPE, "memoryId", "active"),
        (PIN_CUSTOM_TYPE, "pinId", "invalid"),
        (PIN_CUSTOM_TYPE, "pinId", "expired"),
    ],
)
def test_status_not_allowed_for_kind_is_malformed(
    custom_type: str, target: str, status: str
) -> None:
    payload = {
        "schemaVersion": 1,
        "mutationId": "m",
        "operation": "status",
        target: "x",
        "status": status,
        "createdAt": 1,
    }
    assert isinstance(decode_payload(custom_type, enc(payload)), MalformedPayload)


def test_structural_problem_of_decoded_mutations() -> None:
    assert (
        structural_problem(MemoryMutation(1, "", 1, "status", memory_id="x", status="expired"))
        == "mutationId is empty"
    )
    problem = structural_problem(PinMutation(1, "m", 1, "add"))
    assert problem is not None and "no item" in problem


# -- timestamps ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T00:00:00.000Z", 0),
        ("1970-01-01T00:00:01.500Z", 1500),
        ("2024-12-03T14:00:00.000Z", 1733234400000),
        ("2024-12-03T16:00:00.000+02:00", 1733234400000),
        ("2024-12-03T09:00:00-05:00", 1733234400000),
        ("2024-12-03T14:00:00", 1733234400000),  # naive: read as UTC
        ("2024-12-03T14:00:00.123456Z", 1733234400123),  # truncated to the millisecond
        ("1969-12-31T23:59:59.999Z", -1),
    ],
)
def test_iso_to_ms(text: str, ms: int) -> None:
    assert iso_to_ms(text) == ms


@pytest.mark.parametrize(
    "text", ["", "garbage", "2024-13-01T00:00:00Z", "2024-12-03T25:00:00Z", "12/03/2024", "now",
             # digits to str.isdigit, not to int: they raised ValueError from every reader
             "2026-01-01T00:\u00b2\u00b2:00.000Z", "2026-01-01T00:00:00.00\u00b2Z",
             "2026-01-01T00:00:\u00b9\u00b9.000Z"]
)
def test_iso_to_ms_garbage(text: str) -> None:
    assert iso_to_ms(text) is None


def test_iso_to_ms_non_string() -> None:
    assert iso_to_ms(None) is None  # type: ignore[arg-type]


MOMENTS = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1),
                       timezones=st.timezones())


def iso_to_ms_matches_datetime(moment: datetime) -> None:
    got = iso_to_ms(moment.isoformat())
    assert got is not None
    assert abs(got - moment.timestamp() * 1000) < 1.5


@lanes(quick=20, long=100)
def test_iso_to_ms_matches_datetime(examples: int) -> None:
    run_property(examples, iso_to_ms_matches_datetime, MOMENTS)


@given(st.text(max_size=40))
def test_iso_to_ms_never_raises(text: str) -> None:
    result = iso_to_ms(text)
    assert result is None or isinstance(result, int)


def test_iso_to_ms_fast_path_agrees_with_iso_parsing() -> None:
    """The fast path for Pi's form (``2026-01-01T03:04:05.123Z``: one match, the hour
    cached) reads exactly what the general ISO-8601 reading does, the same moment or
    ``None`` for the same texts: Pi-form texts whose minutes, seconds and milliseconds are
    any digits (also those ``str.isdigit`` takes but ``int`` not) and now and then another
    separator (a seeded draw of many cheap cases)."""
    from waymarks.core.codec import _parse_ms

    draw = random.Random(15)
    digits = [*"0123456789", "\u00b2", "\u0660"]
    for _ in range(5000):
        text = (draw.choice(["2026-01-01T03", "1970-01-01T00", "2024-02-29T23", "2025-13-01T00"])
                + draw.choice(":::.") + draw.choice(digits) + draw.choice(digits)
                + draw.choice(":::-") + draw.choice(digits) + draw.choice(digits)
                + draw.choice("...:") + "".join(draw.choice(digits) for _ in range(3))
                + draw.choice("ZZZz+"))
        assert iso_to_ms(text) == _parse_ms(text), text


def test_moments_a_ledger_may_state_never_raise() -> None:
    """``createdAt`` -99999999999999 is an int64 a ledger may hold: shown as unknown, and
    compared as the earliest moment (the evolution decision raised on it, after the model
    call was paid for, on every retry)."""
    from waymarks.core.codec import utc_clamped, utc_text

    assert utc_text(-99_999_999_999_999) == utc_text(10**18) == utc_text(None) == "-"
    assert utc_text(1_767_225_600_000, "%Y-%m-%d") == "2026-01-01"
    early, late = utc_clamped(-99_999_999_999_999), utc_clamped(10**18)
    assert early.year == 1000 and late.year == 9999
    assert early < utc_clamped(-10**12) < utc_clamped(0) < utc_clamped(1_767_225_600_000) < late
