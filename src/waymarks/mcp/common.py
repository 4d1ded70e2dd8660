"""What the MCP tools share: the confirmation schema, reading the raw arguments, the
person's answer, results, and one-at-a-time access to the service.

No ``from __future__ import annotations`` in the tool modules: the SDK reads their
annotations at runtime.
"""

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from mcp.server import MCPServer
from mcp.server.elicitation import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
)
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, WithJsonSchema

from waymarks.core.egress import escaped, json_document
from waymarks.tool.results import FAILED, ToolResult
from waymarks.tool.unavailable import ENVIRONMENT_ERRORS, causes

if TYPE_CHECKING:
    from waymarks.tool.persistence import Answer

_BOOLEAN = {"type": "boolean", "title": "Confirm", "description": "Write this change"}
#: what a resolver returns when it asks nobody (the tool body answers)
NO_QUESTION = "no-confirmation-asked"
#: the answer when the client can ask but nobody was asked: the plan before the question
#: failed (the environment: a database locked past its wait, a configuration being
#: rewritten) or refused, and the body's plan after it did not (the state changed in
#: between). The body answers ``unavailable``/``runtime-unavailable``, nothing written:
#: ``confirmation-required`` told the model its client cannot confirm
NOT_ASKED: Final = "not-asked"
NotAsked = Literal["not-asked"]


# The advertised schema is a required boolean; validation accepts anything, so that a
# client answering {}, {"confirm": "yes"} or {"confirm": 1} gets a documented outcome
# (confirmation-invalid) instead of an uncategorized SDK error. Its docstring is shown.
class Confirm(BaseModel):
    """Confirm this change: true writes it, false does not."""

    model_config = ConfigDict(json_schema_extra={"required": ["confirm"]})
    confirm: Annotated[Any, WithJsonSchema(_BOOLEAN)] = None


class NotFollowed(Exception):
    """``follow`` failed on the environment (a session or a database the home holds that
    cannot be read): the call did nothing. Its ``__cause__`` is the error; the server
    answers the tool's ``unavailable`` result (``server._Server.call_tool``)."""


class Serial:
    """One tool call at a time on the service (calls may arrive on worker threads), each
    after ``follow`` (a host that moves between sessions) has run. An environment's error
    there is :class:`NotFollowed`: before, it went out of every tool's error handling, and
    the call answered "Error executing tool" with a traceback."""

    def __init__(self, follow: Callable[[], None] | None = None) -> None:
        self.lock = threading.Lock()
        self.follow = follow

    @contextmanager
    def turn(self) -> Iterator[None]:
        with self.lock:
            if self.follow is not None:
                try:
                    self.follow()
                except ENVIRONMENT_ERRORS as exc:
                    raise NotFollowed from exc
            yield


def not_followed(exc: BaseException) -> NotFollowed | None:
    """The :class:`NotFollowed` that ``exc`` was raised from (the SDK wraps what a tool
    or its resolver raised), else ``None``."""
    return next((seen for seen in causes(exc) if isinstance(seen, NotFollowed)), None)


def raw_arguments(ctx: Context) -> object:
    params = ctx.request_context.params
    if isinstance(params, dict):
        return params.get("arguments")
    return getattr(params, "arguments", None)


def argument(ctx: Context, name: str) -> object:
    """One argument as the client sent it. The tools read these, not the SDK's parsed
    parameters: it turns a string that reads as JSON (``"42"``, ``"[1]"``) into another
    value, so a question would be planned from one text and the answer applied to another."""
    arguments = raw_arguments(ctx)
    return arguments.get(name) if isinstance(arguments, dict) else None


def unknown_field(ctx: Context, known: tuple[str, ...]) -> bool:
    """Whether the call's arguments name a field the tool does not take: such a call is
    refused (:data:`UNKNOWN_FIELD`), as ``context_persistence`` refuses one, never run
    as if the field were not there."""
    arguments = raw_arguments(ctx)
    return isinstance(arguments, dict) and any(name not in known for name in arguments)


def advertise(server: MCPServer, name: str, required: tuple[str, ...]) -> None:
    """Advertise tool ``name``'s input schema as the tool enforces it: the fields it takes
    (each typed ``Any`` for the SDK, so that the tool refuses a bad value itself, in its
    own shape; advertised with its JSON schema, without the ``"default": null`` that
    contradicts it), the ``required`` ones (a call without one is refused), and no other
    (``additionalProperties`` false: a call naming another is refused,
    :func:`unknown_field`). The SDK advertised neither."""
    tool = server._tool_manager.get_tool(name)
    if tool is None:
        raise KeyError(name)
    properties = {field: {key: value for key, value in schema.items()
                          if key not in ("default", "title")}
                  for field, schema in tool.parameters.get("properties", {}).items()}
    tool.parameters = {"type": "object", "properties": properties,
                       "required": list(required), "additionalProperties": False}


#: the result of a call naming a field the tool does not take
UNKNOWN_FIELD: dict[str, Any] = {"outcome": "rejected", "category": "invalid-parameters"}


def ask(question: str, shown: Callable[[str], None]) -> Elicit[Confirm]:
    """The question a confirming tool's resolver puts to the person, recorded as shown
    (``shown``) by its text alone, the text the body spends after the yes. On protocol
    2026-07-28 the resolver runs again on the round that carries the answer, and the SDK
    applies that answer to any question of the same text: each tool's question names
    everything its yes stands for (:mod:`waymarks.service.shown`)."""
    shown(question)
    return Elicit(question, Confirm)


def can_elicit(ctx: Context) -> bool:
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def answer_of(answer: object) -> "Answer | NotAsked":
    """The person's answer, for a client that can ask (one that cannot is
    ``unavailable`` before this). :data:`NOT_ASKED`: the resolver returned no question."""
    if isinstance(answer, AcceptedElicitation):
        if not isinstance(answer.data, Confirm):
            return NOT_ASKED
        confirm = answer.data.confirm
        return "accepted" if confirm is True else "declined" if confirm is False \
            else "invalid"
    if isinstance(answer, DeclinedElicitation):
        return "declined"
    return "cancelled" if isinstance(answer, CancelledElicitation) else "invalid"


def tool_result(outcome: ToolResult) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=outcome.text)],
                          structured_content=structured(outcome.details),
                          is_error=outcome.is_error)


def json_result(data: dict[str, Any]) -> CallToolResult:
    """A dictionary outcome as the SDK would return it (indented JSON text and structured
    content), with ``isError`` when it is a refusal. The text is what a model reads: it
    escapes what the egress quoting escapes (:func:`json_document`); so does the
    structured content (:func:`structured`)."""
    return CallToolResult(content=[TextContent(type="text", text=json_document(
        data, indent=2))], structured_content=structured(data),
        is_error=str(data.get("outcome")) in FAILED)


def structured(data: dict[str, Any]) -> dict[str, Any]:
    """A result's structured content: a client may hand it to a model as it is, so its
    strings carry the escapes of the text block (``\\u2028``, not the character)."""
    shown = escaped(data)
    assert isinstance(shown, dict)
    return shown
