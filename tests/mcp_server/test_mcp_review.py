"""Defects a review of the MCP tools and personal memory reproduced, through the SDK's
real client: a confirmation answered with a JSON-RPC error, an accept with no content to
``learned_memory_edit``, a prompt given arguments it does not take, the correction shown
raw in a question, and a personal entry whose level was given twice. Each test failed
before its fix."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, ErrorData

from tests.mcp_server.test_learned_memory_tool import _claim
from tests.mcp_server.test_remember_tool import Person
from waymarks.mcp.server import build_server
from waymarks.personal.entry import parse_entry
from waymarks.service.app import Waymarks

TOKEN = "ghp_" + "a1B2" * 9


async def _aborting(context: Any, params: Any) -> ErrorData:
    """A client whose dialog failed: it answers the elicitation with a JSON-RPC error."""
    return ErrorData(code=-32603, message="dialog aborted by user")


def _call(app: Waymarks, name: str, arguments: dict[str, Any], answer: Any) -> CallToolResult:
    """The call over the initialize-handshake protocol, where the server sends the
    confirmation as a request and the client's error comes back as its answer (the
    newer flow fails the call in the client itself)."""
    async def run() -> CallToolResult:
        async with Client(build_server(app), elicitation_callback=answer,
                          mode="legacy") as client:
            return await client.call_tool(name, arguments)

    return anyio.run(run)


@pytest.mark.parametrize(("name", "arguments", "category"), [
    ("remember", {"text": "Prefers vim", "slug": "editor"}, "category"),
    ("context_persistence", {"action": "memory_add", "content": "Staging uses port 5433"},
     "errorCode"),
])
def test_a_confirmation_answered_with_an_error_is_cancelled(
        app: Waymarks, name: str, arguments: dict[str, Any], category: str) -> None:
    """The client's error went back to it as the tool call's own JSON-RPC error: no
    result, no category, its message echoed. It is the documented ``cancelled``."""
    result = _call(app, name, arguments, _aborting)
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["outcome"] == "cancelled"
    assert result.structured_content[category] == "confirmation-invalid"
    assert "aborted" not in json.dumps(result.structured_content)
    assert app.items("memory") == [] and not (app.home / "memory" / "editor.md").exists()


@pytest.mark.slow
def test_learned_memory_edit_ends_cancelled_when_the_answer_is_no_answer(
        app: Waymarks, tmp_path: Path) -> None:
    """An accept with no content gave the SDK's raw error text (an internal function's
    path, no structured content); an error answer, the client's error."""
    claim = _claim(app, tmp_path)
    for answer in (Person("accept", content={}), _aborting,
                   Person("accept", content={"confirm": "true"})):
        result = _call(app, "learned_memory_edit", {"action": "forget", "id": claim}, answer)
        assert result.is_error and result.structured_content is not None
        assert (result.structured_content["outcome"], result.structured_content["code"]) == (
            "cancelled", "confirmation-invalid")


@pytest.mark.slow
def test_a_correction_is_shown_escaped_in_the_question(app: Waymarks,
                                                        tmp_path: Path) -> None:
    """The claim's current text was escaped and filtered; the correction beside it went
    to the dialog raw: a bidi override (text that reads otherwise) and a terminal
    escape."""
    claim = _claim(app, tmp_path)
    no = Person("decline")
    _call(app, "learned_memory_edit", {"action": "correct", "id": claim,
                                       "text": "Deploys use \u202eortsiparC\u202c and "
                                                  "\x1b[2J Kamal"}, no)
    [question] = no.asked
    assert "\u202e" not in question and "\x1b" not in question
    assert "\\u202e" in question and "Kamal" in question


def test_a_prompt_refuses_arguments_it_does_not_take_without_a_traceback(
        app: Waymarks, caplog: pytest.LogCaptureFixture) -> None:
    """``prompts/get`` with an unknown argument answered code 0 and logged a traceback
    quoting the argument (the person's text) to standard error."""
    caplog.set_level(logging.DEBUG)

    async def run() -> list[MCPError]:
        errors = []
        async with Client(build_server(app)) as client:
            for name, arguments in (("remember", {"txt": f"my token {TOKEN}"}),
                                    ("promote_notes", {"x": "y"})):
                with pytest.raises(MCPError) as caught:
                    await client.get_prompt(name, arguments)
                errors.append(caught.value)
        return errors

    for error in anyio.run(run):
        assert error.error.code == INVALID_PARAMS
        assert TOKEN not in error.error.message
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert TOKEN[:12] not in logged and "Traceback" not in logged


@pytest.mark.parametrize("head", [
    "classification: local-only\nmetadata:\n  type: user\nclassification: normal\n",
    "metadata:\n  type: user\n  classification: local-only\nmetadata:\n  type: user\n",
    "metadata:\n  type: user\n  classification: local-only\n  classification: normal\n",
])
def test_a_level_given_twice_is_local_only(head: str) -> None:
    """YAML keeps a repeated key's last value: ``classification: local-only`` added above
    an older ``classification: normal`` left the entry normal, and its private body went
    to remote models. A level (or ``metadata``) given twice is no known level."""
    entry = parse_entry("dup", f"---\nname: Dup\ndescription: kafka\n{head}---\nbody\n")
    assert entry is not None and entry.classification == "local-only"
    once = parse_entry("ok", "---\nname: Ok\ndescription: kafka\nclassification: internal\n"
                             "metadata:\n  type: user\n---\nbody\n")
    assert once is not None and once.classification == "internal"


def test_a_legacy_frontmatter_with_a_level_twice_is_local_only() -> None:
    legacy = parse_entry("dup", "---\nname: Deploys: blue/green\ndescription: a: b\n"
                                "classification: local-only\nclassification: normal\n"
                                "metadata:\n  type: user\n---\nbody\n")
    assert legacy is not None and legacy.classification == "local-only"


@pytest.mark.slow
def test_a_page_that_is_a_boolean_is_refused(app: Waymarks, tmp_path: Path) -> None:
    """``page: true`` was taken as page 1 (a bool is an int to Python) and echoed back."""
    from tests.mcp_server.test_learned_memory_tool import call

    _claim(app, tmp_path)
    for page in (True, False, 0):
        refused = call(app, "learned_memory", {"action": "list", "page": page})
        assert refused["outcome"] == "rejected" and refused["code"] == "bad_input"
    assert call(app, "learned_memory", {"action": "list", "page": 1})["outcome"] == "ok"


@pytest.mark.slow
@pytest.mark.parametrize(("text", "code"), [
    ("Deploys use [waymarks:omitted] now", "egress-placeholder"),
    ("Deploys use [ds4:local-only]the bank's Kamal host[/ds4:local-only]",
     "local-only-refused"),
])
def test_a_correction_the_person_could_not_read_is_refused_before_asking(
        app: Waymarks, tmp_path: Path, text: str, code: str) -> None:
    """A correction holding the omission sentinel, or local-only text, was put to the
    person (the local-only one shown only as withheld), who could approve it unseen;
    ``remember`` refuses both before asking, and so does a correction now."""
    from tests.mcp_server.test_learned_memory_tool import call
    from waymarks.service.evolution_inspect import show

    claim = _claim(app, tmp_path)
    yes = Person("accept")
    refused = call(app, "learned_memory_edit", {"action": "correct", "id": claim,
                                                "text": text}, yes)
    assert (refused["outcome"], refused["code"]) == ("rejected", code)
    assert yes.asked == [] and "Kamal host" not in json.dumps(refused)
    shown = show(app.home, claim)
    assert shown is not None and shown["state"] == "provisional"


def test_an_unknown_tool_or_resource_is_not_echoed_or_logged(
        app: Waymarks, caplog: pytest.LogCaptureFixture) -> None:
    """A tool name or resource URI naming nothing came back in the answer ("Unknown tool:
    ghp_…") and went to standard error in the SDK's log line: a credential a model put
    there reached the person's terminal and the model again."""
    caplog.set_level(logging.DEBUG)

    async def run() -> list[MCPError]:
        errors = []
        async with Client(build_server(app)) as client:
            with pytest.raises(MCPError) as tool:
                await client.call_tool(TOKEN, {})
            errors.append(tool.value)
            with pytest.raises(MCPError) as resource:
                await client.read_resource(f"file:///{TOKEN}")
            errors.append(resource.value)
        return errors

    for error in anyio.run(run):
        assert error.error.code == INVALID_PARAMS
        assert TOKEN[:12] not in json.dumps(error.error.model_dump(mode="json"))
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert TOKEN[:12] not in logged
