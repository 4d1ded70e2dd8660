"""The ``context_persistence`` request contract: actions, the parameter matrix, grammars.

The transport schema is flat (every field optional) so that it works with every provider;
this module applies the per-action matrix before anything touches the runtime. Errors are
categories that never name or echo a field or a value:

- ``egress-placeholder``: some string argument holds the output-only omission sentinel
  (checked first, whatever field it is in, so a replayed redacted call never runs);
- ``invalid-parameters``: malformed transport input (not an object, unknown field, unknown
  action, wrong type, out of range, bad ID or revision grammar, a text to store holding a
  control character that is not text: NUL, ESC, … but tab and line breaks);
- ``unsupported-parameter``: a known action given a field it does not take;
- ``missing-required-parameter``: a known action missing a field it needs.

A JSON ``null`` counts as absent: flat schemas make some clients send every field.

Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import OMITTED as OMITTED  # re-exported
from waymarks.core.text import is_unicode, stray_control

#: The identifiers seed 001 fixes, so that tools and tests written for DS4 interoperate: the
#: tool contract names the tool, its actions, parameters and authorization behaviour; the
#: result contract names the result envelope (they may evolve independently).
TOOL_CONTRACT: Final = "ds4-context-persistence-tool-v1"
RESULT_CONTRACT: Final = "ds4-context-persistence-result-v1"
#: what earlier Waymarks releases wrote into tool results (and so into session files):
#: still recognised on input, never written again
LEGACY_TOOL_CONTRACT: Final = "waymarks-context-persistence-tool-v1"
LEGACY_RESULT_CONTRACT: Final = "waymarks-context-persistence-result-v1"
RESULT_CONTRACTS: Final = frozenset({RESULT_CONTRACT, LEGACY_RESULT_CONTRACT})
TOOL_CONTRACTS: Final = frozenset({TOOL_CONTRACT, LEGACY_TOOL_CONTRACT})


ActionClass = Literal["read", "canonical", "derived"]
Category = Literal["egress-placeholder", "invalid-parameters", "unsupported-parameter",
                   "missing-required-parameter"]


class Action(msgspec.Struct, frozen=True):
    name: str
    kind: Literal["pin", "memory", "source"]
    klass: ActionClass
    required: frozenset[str]
    optional: frozenset[str]


def _action(name: str, klass: ActionClass, required: str = "", optional: str = "") -> Action:
    kind: Literal["pin", "memory", "source"] = (
        "source" if "source" in name else "pin" if name.startswith("pin") else "memory")
    return Action(name, kind, klass, frozenset(required.split()), frozenset(optional.split()))


ACTIONS: Final[dict[str, Action]] = {a.name: a for a in (
    _action("pins_list", "read", "", "activeOnly maxResults"),
    _action("pins_find", "read", "query", "activeOnly maxResults"),
    _action("pin_add", "canonical", "content", "scope classification"),
    _action("pin_supersede", "canonical", "id targetRevision content", "classification"),
    _action("pin_unpin", "canonical", "id targetRevision", "reason"),
    _action("memory_list", "read", "", "activeOnly maxResults"),
    _action("memory_find", "read", "query", "activeOnly maxResults"),
    _action("memory_add", "canonical", "content", "scope key classification"),
    _action("memory_supersede", "canonical", "id targetRevision content", "classification"),
    _action("memory_invalidate", "canonical", "id targetRevision", "reason"),
    _action("memory_expire", "canonical", "id targetRevision", "reason"),
    _action("memory_sources", "read", "", "maxResults"),
    _action("memory_source_exclude", "derived", "id targetRevision", "reason"),
    _action("memory_source_include", "derived", "id targetRevision", ""),
)}

FIELDS: Final = ("action", "content", "scope", "key", "classification", "id",
                 "targetRevision", "reason", "query", "activeOnly", "maxResults")
DEFAULT_RESULTS: Final = 20
MAX_RESULTS: Final = 50
MAX_QUERY_CHARS: Final = 512
#: the transport's bound on a stored text (content, reason): far past the service's
#: exact limits, which refuse as ``too-long`` and say which. At the pin's own limit, a
#: pin one character over it was ``invalid-parameters`` while a claim over its limit was
#: ``too-long``; a reason over 500 characters the same, and a key (the transport's 200
#: characters stopped one, while 161 to 200 were ``too-long``)
MAX_TRANSPORT_TEXT: Final = 64 * 1024
#: generous transport bounds; the service applies the exact limits and says which
_TEXT_LIMITS: Final = {"content": MAX_TRANSPORT_TEXT, "reason": MAX_TRANSPORT_TEXT,
                       "query": MAX_QUERY_CHARS, "key": MAX_TRANSPORT_TEXT}
_SCOPES: Final = {"pin": ("session", "branch", "project"), "memory": ("session", "project")}
CLASSIFICATIONS: Final = ("normal", "internal", "sensitive", "local-only")

ITEM_ID: Final = lazy(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SOURCE_REF: Final = lazy(r"src_[A-Za-z0-9_-]{16}")
REVISION: Final = lazy(r"r1\.[0-9a-z]{1,12}\.[0-9a-f]{8}\.[A-Za-z0-9_-]{22}")


class Request(msgspec.Struct, frozen=True):
    """A call that passed the matrix: the action and its typed arguments."""

    action: Action
    args: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.args.get(name, default)


class Refusal(msgspec.Struct, frozen=True):
    category: Category


MAX_DEPTH: Final = 32


def holds_sentinel(value: object, depth: int = 0) -> bool:
    """Whether the omission sentinel appears in any string within ``value`` (searched to
    ``MAX_DEPTH`` levels; deeper input is refused as malformed anyway)."""
    if isinstance(value, str):
        return OMITTED in value
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return any(holds_sentinel(k, depth + 1) or holds_sentinel(v, depth + 1)
                   for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(holds_sentinel(v, depth + 1) for v in value)
    return False


def parse_request(arguments: object) -> Request | Refusal:
    """Apply the transport checks and the parameter matrix, in the documented order."""
    if not isinstance(arguments, dict):
        return Refusal("invalid-parameters")
    if holds_sentinel(arguments):
        return Refusal("egress-placeholder")
    given = {k: v for k, v in arguments.items() if v is not None}
    if any(not isinstance(k, str) or k not in FIELDS for k in given):
        return Refusal("invalid-parameters")
    action = ACTIONS.get(given.pop("action", None)) if isinstance(
        given.get("action"), str) else None
    if action is None:
        return Refusal("invalid-parameters")
    if any(name not in action.required and name not in action.optional for name in given):
        return Refusal("unsupported-parameter")
    if any(name not in given for name in action.required):
        return Refusal("missing-required-parameter")
    if not all(_valid(action, name, value) for name, value in given.items()):
        return Refusal("invalid-parameters")
    return Request(action, given)


def _valid(action: Action, name: str, value: Any) -> bool:
    if name == "activeOnly":
        return isinstance(value, bool)
    if name == "maxResults":
        return type(value) is int and 1 <= value <= MAX_RESULTS
    if not isinstance(value, str) or not is_unicode(value):
        return False  # lone surrogates can be neither stored nor shown
    if name == "id":
        return (SOURCE_REF if action.kind == "source" else ITEM_ID).fullmatch(value) is not None
    if name == "targetRevision":
        return REVISION.fullmatch(value) is not None
    if name == "scope":
        return value in _SCOPES[action.kind]
    if name == "classification":
        return value in CLASSIFICATIONS
    limit = _TEXT_LIMITS[name]
    if name != "query" and stray_control(value) is not None:
        return False  # a stored text holds no NUL or ESC (it was kept as `\u0000`)
    return bool(value.strip()) and len(value) <= limit if name in ("query", "content") \
        else len(value) <= limit


def input_schema() -> dict[str, Any]:
    """The flat JSON Schema the transport advertises (the matrix is applied server-side)."""
    text = {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "content": {**text, "description": "pin text or memory claim (add/supersede)"},
            "scope": {"type": "string", "enum": ["session", "branch", "project"]},
            "key": {**text, "description": "memory key (memory_add)"},
            "classification": {"type": "string", "enum": list(CLASSIFICATIONS)},
            "id": {**text, "description": "exact item ID, or a sourceRef for source actions"},
            "targetRevision": {**text, "description": "revision from a prior list/find"},
            "reason": text,
            "query": {**text, "description": f"search text, 1-{MAX_QUERY_CHARS} characters"},
            "activeOnly": {"type": "boolean"},
            "maxResults": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS},
        },
        "required": ["action"],
        "additionalProperties": False,
    }
