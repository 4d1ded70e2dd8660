"""The ``context_persistence`` tool: list, find and propose changes to pins and memory.

Every write is confirmed by the person through elicitation. Every check that can refuse
runs before the question (the resolver plans the call, a dry run of the write included),
and again after the answer; a client without elicitation gets ``unavailable``/
``confirmation-required`` and nothing is written.
"""

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server import MCPServer
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import WithJsonSchema

from waymarks.mcp.common import (
    NO_QUESTION,
    NOT_ASKED,
    Confirm,
    Serial,
    advertise,
    answer_of,
    ask,
    can_elicit,
    raw_arguments,
    tool_result,
)
from waymarks.tool.contract import (
    RESULT_CONTRACT,
    TOOL_CONTRACT,
    Request,
    input_schema,
    parse_request,
)
from waymarks.tool.results import result

if TYPE_CHECKING:
    from waymarks.tool.persistence import ContextPersistence

NAME = "context_persistence"
DESCRIPTION = (
    "Inspect and propose changes to pins (confirmed instructions) and memory (durable "
    "facts). Reads: pins_list, pins_find, memory_list, memory_find, memory_sources. Writes "
    "(each confirmed by the person): pin_add, pin_supersede, pin_unpin, memory_add, "
    "memory_supersede, memory_invalidate, memory_expire, memory_source_exclude, "
    "memory_source_include. A targeted write needs the exact id and the targetRevision "
    "from a recent list or find. Results carry metadata only."
)
#: each parameter is typed ``Any`` (the contract checks it, with errors that never echo the
#: value) and advertises its JSON schema
_SCHEMA: dict[str, Any] = input_schema()["properties"]
#: the seed's contract identifiers, advertised with the tool (every result carries the
#: result contract in its structured content as ``contract``)
CONTRACTS: dict[str, Any] = {"contract": TOOL_CONTRACT, "resultContract": RESULT_CONTRACT}


class _Made:
    """The tool's :class:`~waymarks.tool.persistence.ContextPersistence`, made at its
    first call: its module is the write path's (listing the tools, or answering a
    ``memory_recall``, imports none of it). Made once, under a lock (calls and their
    resolvers run on worker threads): one holds the revisions every write is checked
    against."""

    def __init__(self, make: "Callable[[], ContextPersistence]") -> None:
        self._make = make
        self._made: ContextPersistence | None = None
        self._lock = threading.Lock()

    def __call__(self) -> "ContextPersistence":
        with self._lock:
            if self._made is None:
                self._made = self._make()
            return self._made


def register(server: MCPServer, make: "Callable[[], ContextPersistence]", serial: Serial
             ) -> None:
    """``make``: the tool's service object, called at the first call."""
    tool = _Made(make)

    def ask_persistence(ctx: Context) -> Elicit[Confirm] | str:
        """Runs before the tool body: plan the call (every check that can refuse, a dry
        run of the write included), and ask the person only about a write that can
        succeed and that the client can show. Anything else is left to the body."""
        if not can_elicit(ctx):
            return NO_QUESTION
        arguments = raw_arguments(ctx)
        request = parse_request(arguments)
        if not isinstance(request, Request) or request.action.klass == "read":
            return NO_QUESTION
        from waymarks.tool.persistence import WritePlan

        persistence = tool()
        with serial.turn():  # the same session the tool body will act on
            plan = persistence.prepare(arguments)
        if not isinstance(plan, WritePlan):
            return NO_QUESTION
        return ask(plan.question, persistence.shown)

    @server.tool(
        name=NAME, description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=False, open_world_hint=False),
        meta=CONTRACTS,
    )
    def persistence_tool(
        ctx: Context,
        answer: Annotated[ElicitationResult[Confirm], Resolve(ask_persistence)],
        action: Annotated[Any, WithJsonSchema(_SCHEMA["action"])] = None,
        content: Annotated[Any, WithJsonSchema(_SCHEMA["content"])] = None,
        scope: Annotated[Any, WithJsonSchema(_SCHEMA["scope"])] = None,
        key: Annotated[Any, WithJsonSchema(_SCHEMA["key"])] = None,
        classification: Annotated[Any, WithJsonSchema(_SCHEMA["classification"])] = None,
        id: Annotated[Any, WithJsonSchema(_SCHEMA["id"])] = None,
        targetRevision: Annotated[Any, WithJsonSchema(_SCHEMA["targetRevision"])] = None,
        reason: Annotated[Any, WithJsonSchema(_SCHEMA["reason"])] = None,
        query: Annotated[Any, WithJsonSchema(_SCHEMA["query"])] = None,
        activeOnly: Annotated[Any, WithJsonSchema(_SCHEMA["activeOnly"])] = None,
        maxResults: Annotated[Any, WithJsonSchema(_SCHEMA["maxResults"])] = None,
    ) -> CallToolResult:
        from waymarks.tool.persistence import WritePlan

        persistence = tool()
        arguments = raw_arguments(ctx)  # the raw object: unknown fields are refused too
        request = parse_request(arguments)
        if isinstance(request, Request) and request.action.klass != "read" and not (
                can_elicit(ctx)):  # no UI: every write is unavailable, whatever it holds
            return tool_result(persistence.commit(arguments, "unavailable"))
        with serial.turn():
            plan = persistence.prepare(arguments)
            if not isinstance(plan, WritePlan):
                return tool_result(plan)  # refusals first, whatever was asked
            decision = answer_of(answer)
            if decision == NOT_ASKED:  # (see NOT_ASKED) nobody saw this write: not written
                return tool_result(result(plan.request.action.name, "unavailable",
                                          error="runtime-unavailable"))
            return tool_result(persistence.commit(arguments, decision))

    advertise(server, NAME, tuple(input_schema()["required"]))
