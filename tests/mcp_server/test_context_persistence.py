"""context_persistence through the MCP SDK's real client: in-process (both protocol eras)
and over stdio, with a person answering elicitations."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import ElicitResult

from tests.lanes import lanes
from tests.opaque import content
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.tool.contract import ACTIONS, FIELDS, OMITTED, RESULT_CONTRACT

Elicitation = Callable[[Any, Any], Awaitable[ElicitResult]]


def person(action: str, confirm: bool = True, asked: list[str] | None = None) -> Elicitation:
    async def answer(context: Any, params: Any) -> ElicitResult:
        if asked is not None:
            asked.append(params.message)
        if action == "accept":
            return ElicitResult(action="accept", content={"confirm": confirm})
        return ElicitResult(action=action)  # type: ignore[arg-type]

    return answer


def calls(app: Waymarks, arguments: Sequence[dict[str, Any] | Callable[[list[Any]], Any]],
          elicitation: Elicitation | None = None, mode: str = "auto") -> list[dict[str, Any]]:
    """Run calls in order on one connection; a callable argument is built from the
    structured results so far (to pass IDs and revisions along)."""
    async def run() -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        async with Client(build_server(app), elicitation_callback=elicitation,
                          mode=mode) as client:  # type: ignore[arg-type]
            for item in arguments:
                args = item(results) if callable(item) else item
                result = await client.call_tool("context_persistence", args)
                assert result.structured_content is not None
                assert json.loads(result.content[0].text.split("\n", 1)[0]) == \
                    result.structured_content  # type: ignore[union-attr]
                # a refusal is an error result that keeps its categorized outcome
                assert result.is_error is (result.structured_content["outcome"] in {
                    "rejected", "cancelled", "unavailable", "indeterminate"})
                results.append(dict(result.structured_content))
        return results

    return anyio.run(run)


@pytest.fixture
def app(make_app: Callable[..., Waymarks], project: Path) -> Waymarks:
    app = make_app()
    app.trust(str(project))
    app.session_say("Let us set up the project conventions")
    return app


def item_of(results: list[Any], index: int, position: int = 0) -> dict[str, Any]:
    return dict(results[index]["items"][position])


def target(index: int, **extra: Any) -> Callable[[list[Any]], dict[str, Any]]:
    def build(results: list[Any]) -> dict[str, Any]:
        item = item_of(results, index)
        return {"id": item["id"], "targetRevision": item["revision"], **extra}

    return build


def with_action(action: str, index: int, **extra: Any) -> Callable[[list[Any]], dict[str, Any]]:
    return lambda results: {"action": action, **target(index, **extra)(results)}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_every_pin_and_memory_action_end_to_end(app: Waymarks, mode: str) -> None:
    asked: list[str] = []
    results = calls(app, [
        {"action": "pin_add", "content": "Run ruff before committing", "scope": "project"},
        {"action": "pins_list"},
        {"action": "pins_find", "query": "ruff committing"},
        with_action("pin_supersede", 1, content="Run ruff and mypy before committing"),
        {"action": "pins_list"},
        with_action("pin_unpin", 4, reason="CI does it now"),
        {"action": "memory_add", "content": "Staging DB port is 5433", "key": "staging-port"},
        {"action": "memory_list"},
        {"action": "memory_find", "query": "staging port"},
        with_action("memory_supersede", 7, content="Staging DB port is 6543"),
        {"action": "memory_list"},
        with_action("memory_invalidate", 10, reason="moved to k8s"),
        {"action": "memory_add", "content": "Nightly builds run at 02:00 UTC"},
        {"action": "memory_list"},
        with_action("memory_expire", 13),
        {"action": "memory_list", "activeOnly": False},
    ], person("accept", asked=asked), mode)
    outcomes = [r["outcome"] for r in results]
    assert outcomes == ["committed", "ok", "ok", "committed", "ok", "committed", "committed",
                        "ok", "ok", "committed", "ok", "committed", "committed", "ok",
                        "committed", "ok"]
    assert len(asked) == 8 and all("Waymarks context persistence" in m for m in asked)
    assert results[2]["items"][0]["id"] == results[1]["items"][0]["id"]
    assert [i["status"] for i in results[15]["items"]] == [
        "expired", "invalid", "superseded"]
    assert [v.status for v in app.items("pin")] == ["superseded", "deleted"]
    # a revision ends in random base64 ("…_k8sjJu…" failed a CI run): opaque tokens are
    # not content, so the check reads the results with them masked
    texts = content(results)
    assert "r1." not in texts
    for text in ("ruff", "5433", "6543", "Nightly", "k8s", "staging-port"):
        assert text not in texts


def test_source_actions_end_to_end(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    yesterday, today = two_sessions()
    claim = yesterday.remember("Releases are tagged vX.Y.Z", scope="project")
    assert isinstance(claim, Committed)

    def sibling(results: list[Any]) -> dict[str, Any]:
        return next(i for i in results[-1]["items"] if not i["active"])

    results = calls(today, [
        {"action": "memory_sources"},
        lambda r: {"action": "memory_source_exclude", "id": sibling(r)["id"],
                   "targetRevision": sibling(r)["revision"], "reason": "noise"},
        {"action": "memory_list"},
        {"action": "memory_sources"},
        lambda r: {"action": "memory_source_include", "id": sibling(r)["id"],
                   "targetRevision": sibling(r)["revision"]},
        {"action": "memory_list"},
    ], person("accept"))
    assert [r["outcome"] for r in results] == ["ok", "committed", "ok", "ok", "committed", "ok"]
    assert results[1]["persistenceClass"] == "derived-local-policy"
    assert results[2]["items"] == [] and [i["id"] for i in results[5]["items"]] == [claim.id]
    assert yesterday.current_session().session_id not in json.dumps(  # type: ignore[union-attr]
        results)


@pytest.mark.parametrize(("answer", "confirm", "code"), [
    ("decline", True, "declined"), ("cancel", True, "cancelled"),
    ("accept", False, "declined")])
def test_refusal_closure_or_a_no_writes_nothing(app: Waymarks, answer: str, confirm: bool,
                                                code: str) -> None:
    before = app.current_session().read_all()  # type: ignore[union-attr]
    [result] = calls(app, [{"action": "pin_add", "content": "Use tabs"}],
                     person(answer, confirm))
    assert (result["outcome"], result["errorCode"]) == ("cancelled", code)
    assert app.current_session().read_all() == before  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_client_without_elicitation_cannot_write_but_can_read(app: Waymarks,
                                                               mode: str) -> None:
    app.pin("Existing pin")
    before = app.current_session().read_all()  # type: ignore[union-attr]
    results = calls(app, [{"action": "pin_add", "content": "Use tabs"},
                          {"action": "pins_list"},
                          with_action("pin_unpin", 1)], None, mode)
    assert [(r["outcome"], r.get("errorCode")) for r in results] == [
        ("unavailable", "confirmation-required"), ("ok", None),
        ("unavailable", "confirmation-required")]
    assert app.current_session().read_all() == before  # type: ignore[union-attr]


@pytest.mark.parametrize(("arguments", "category"), [
    ({"action": "pins_list", "mystery": 1}, "invalid-parameters"),
    ({"action": "pins_list", "maxResults": "ten"}, "invalid-parameters"),
    ({"action": "pins_list", "content": "x"}, "unsupported-parameter"),
    ({"action": "pin_supersede", "content": "x"}, "missing-required-parameter"),
    ({"action": "pin_add", "content": f"again {OMITTED}"}, "egress-placeholder"),
    ({"action": "pins_list", "reason": OMITTED}, "egress-placeholder"),
])
def test_error_categories_over_mcp(app: Waymarks, arguments: dict[str, Any],
                                   category: str) -> None:
    asked: list[str] = []
    [result] = calls(app, [arguments], person("accept", asked=asked))
    assert (result["outcome"], result["errorCode"]) == ("rejected", category)
    assert asked == [] and "mystery" not in json.dumps(result)


def test_stale_forged_and_cross_context_revisions(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    first, second = two_sessions()
    pin = first.pin("Project pin", scope="project")
    assert isinstance(pin, Committed)
    [listed_elsewhere] = calls(second, [{"action": "pins_list"}])
    foreign = listed_elsewhere["items"][0]
    forged = "r1.zzzzzzzz.0badcafe." + "A" * 22
    results = calls(first, [
        {"action": "pin_unpin", "id": pin.id, "targetRevision": foreign["revision"]},
        {"action": "pin_unpin", "id": pin.id, "targetRevision": forged},
        {"action": "pins_list"},
        with_action("pin_supersede", 2, content="Project pin, revised"),
        lambda r: {"action": "pin_unpin", "id": pin.id,
                   "targetRevision": r[2]["items"][0]["revision"]},
    ], person("accept"))
    assert [r.get("errorCode") for r in results] == [
        "revision-mismatch", "revision-mismatch", None, None, "revision-mismatch"]
    assert [v.status for v in first.items("pin")] == ["superseded", "active"]


def test_concurrent_calls_are_all_answered_and_none_lost(app: Waymarks) -> None:
    async def run() -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        async with Client(build_server(app), elicitation_callback=person("accept")) as client:
            async def one(n: int) -> None:
                result = await client.call_tool("context_persistence", {
                    "action": "memory_add", "content": f"Worker {n} owns queue {n}"})
                out.append(dict(result.structured_content or {}))

            async with anyio.create_task_group() as group:
                for n in range(6):
                    group.start_soon(one, n)
                for _ in range(4):
                    group.start_soon(client.call_tool, "context_persistence",
                                     {"action": "memory_list"})
        return out

    results = anyio.run(run)
    assert sorted(r["outcome"] for r in results) == ["committed"] * 6
    assert len(app.items("memory")) == 6


@pytest.mark.slow
def test_over_stdio_with_elicitation(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.session_say("Remember where deploys go")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "waymarks.cli.main", "--home", str(home), "mcp"],
        cwd=str(project), env={**os.environ, "WAYMARKS_HOME": str(home)})
    asked: list[str] = []

    async def run() -> list[dict[str, Any]]:
        async with stdio_client(params) as (read, write), ClientSession(
                read, write, elicitation_callback=person("accept", asked=asked)) as session:
            await session.initialize()
            out = []
            for args in ({"action": "memory_add", "content": "Deploys go to staging first"},
                         {"action": "memory_list"}):
                result = await session.call_tool("context_persistence", args)
                out.append(dict(result.structured_content or {}))
            return out

    added, listed = anyio.run(run)
    assert added["outcome"] == "committed" and listed["items"][0]["id"] == added["id"]
    assert "Deploys go to staging first" in asked[0]
    with Waymarks(home, cwd=str(project)) as app:
        assert [v.text for v in app.items("memory")] == ["Deploys go to staging first"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=80) | st.sampled_from([OMITTED, "session", "project", "normal"]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)
argument_objects = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=6),
    st.builds(lambda action, rest: {"action": action, **rest}, st.sampled_from(list(ACTIONS)),
              st.dictionaries(st.sampled_from(FIELDS[1:]), json_values, max_size=4)),
)
CATEGORIES = {"invalid-parameters", "unsupported-parameter", "missing-required-parameter",
              "egress-placeholder", "confirmation-required", "runtime-unavailable",
              "not-found", "untrusted", "provider-disallowed", "local-only-refused",
              "invalid-text", "too-long", "revision-mismatch", "unknown-reference",
              "revision-expired", "context-changed", "not-active", "active-source",
              "conflict", "off-branch"}


#: words the tool itself uses: seeing them in a result is not an echo
VOCABULARY = {*ACTIONS, *FIELDS, "session", "branch", "project", "normal", "internal",
              "sensitive", "local-only", "memory", "source", "active", "applies"}


TEMPLATE_WORDS = " ".join([*VOCABULARY, *CATEGORIES, RESULT_CONTRACT, "rejected", "cancelled",
                           "unavailable", "committed", "persistenceClass", "errorCode",
                           "outcome", "contract", "truncated", "createdAt", "revision",
                           "classification", "superseded", "supersededBy", "excluded",
                           "contributed", "heldBack", "available", "missing", "read"])


def _echoes(value: object, text: str) -> bool:
    if isinstance(value, dict):
        return any(_echoes(k, text) or _echoes(v, text) for k, v in value.items())
    if isinstance(value, list):
        return any(_echoes(v, text) for v in value)
    meaningful = isinstance(value, str) and value.strip() not in TEMPLATE_WORDS and len(
        value.strip()) >= 6 and not set(
        value.lower()) <= set("0123456789abcdef-.r_ ")
    return meaningful and value in text  # type: ignore[operator]


@lanes(quick=4, long=800)
def test_random_argument_objects_get_categories_never_writes_or_echoes(
        app: Waymarks, examples: int) -> None:
    @settings(max_examples=examples, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(batch=st.lists(argument_objects, min_size=1, max_size=4))
    def check(batch: list[dict[str, Any]]) -> None:
        app.pin("An existing pin")
        before = app.current_session().read_all()  # type: ignore[union-attr]
        for arguments, result in zip(batch, calls(app, batch, person("decline")), strict=True):
            assert result["outcome"] in {"ok", "rejected", "cancelled", "unavailable"}, result
            if result["outcome"] in {"rejected", "unavailable"}:
                assert result["errorCode"] in CATEGORIES, result
            assert not _echoes(arguments, json.dumps(result)), (arguments, result)
        assert app.current_session().read_all() == before  # type: ignore[union-attr]
    check()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("content", [{}, {"confirm": "yes"}, {"confirm": 1},
                                     {"confirm": "true"}, {"other": True}, None])
def test_an_answer_that_is_not_a_yes_or_no_is_a_documented_cancellation(
        app: Waymarks, content: dict[str, Any] | None, mode: str) -> None:
    before = app.current_session().read_all()  # type: ignore[union-attr]

    async def sloppy(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content=content)

    [result] = calls(app, [{"action": "pin_add", "content": "Use tabs"}], sloppy, mode)
    assert result == {"contract": RESULT_CONTRACT, "action": "pin_add",
                      "outcome": "cancelled", "errorCode": "confirmation-invalid"}
    assert app.items("pin") == []
    assert app.current_session().read_all() == before  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_confirmation_schema_is_a_required_boolean(app: Waymarks, mode: str) -> None:
    schemas: list[dict[str, Any]] = []

    async def strict(context: Any, params: Any) -> ElicitResult:
        schemas.append(params.requested_schema)
        return ElicitResult(action="accept", content={"confirm": True})

    [result] = calls(app, [{"action": "pin_add", "content": "Use tabs"}], strict, mode)
    assert result["outcome"] == "committed"
    assert schemas[0]["properties"]["confirm"]["type"] == "boolean"
    assert schemas[0]["required"] == ["confirm"]


def test_without_ui_even_an_invalid_write_is_confirmation_required(app: Waymarks) -> None:
    [result] = calls(app, [{"action": "memory_add", "content": "x" * 2001}], None)
    assert (result["outcome"], result["errorCode"]) == ("unavailable", "confirmation-required")


@pytest.mark.slow
def test_mcp_session_option_binds_the_named_session(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as first:
        first.session_new()
        mine = first.remember("Only the first session knows this")
        first_id = first.current_session().session_id  # type: ignore[union-attr]
    with Waymarks(home, cwd=str(project)) as second:
        second.session_new()  # now the newest session of the project
    assert isinstance(mine, Committed)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "waymarks.cli.main", "--home", str(home), "--session", first_id[:8], "mcp"],
        cwd=str(project), env={**os.environ, "WAYMARKS_HOME": str(home)})

    async def run() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("context_persistence", {"action": "memory_list"})
            return dict(result.structured_content or {})

    listed = anyio.run(run)
    assert [i["id"] for i in listed["items"]] == [mine.id]
