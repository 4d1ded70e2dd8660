"""A Gemini conversation's tool traffic, for the history guard and the misfit check of
:mod:`waymarks.tool.egress` (``contents`` of ``{role, parts}``, each call a
``functionCall`` part of a ``model`` content, each result a ``functionResponse`` part of
a ``user`` one, which names its tool itself: no call IDs to follow). The REST API's
spelling (``function_call``, ``function_response``, ``inline_data``) is read too, as the
sanitizer reads it: a call it sends and this module did not read went out unguarded.

- :func:`guarded`: earlier ``context_persistence`` calls' ``args`` guarded and results
  rendered again from their metadata, as ``egress.guard_history`` does for the other
  shapes; the turn in progress (from the person's last content on) is left alone. A
  ``user`` content of results (and the images Pi puts after them for an older Gemini,
  behind its caption) is not the person's turn;
- :func:`fitting`: a result of a tool whose results are rendered for one destination is
  replaced when it does not fit this one (``egress.withhold_misfits``), and a
  ``context_persistence`` call naming a classification this one may not receive has its
  ``args`` guarded, the turn in progress included.

What they do to a call or result is passed in (the guard's own functions), so this
module imports none of ``egress``. Pure: no I/O; an unchanged list is returned as the
same object.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Final

#: the caption Pi puts before a tool result's images in their own user content (a Gemini
#: older than 3 takes none inside a functionResponse)
TOOL_IMAGES: Final = "Tool result image:"


def guarded(contents: list[Any], tool: str, arguments: Callable[[object], dict[str, Any]],
            rendered: Callable[[Any], str]) -> list[Any]:
    """``contents`` with ``tool``'s calls before the person's last content given
    ``arguments(args)`` and its results ``rendered(output)``."""
    last = next((n for n in range(len(contents) - 1, -1, -1) if _persons(contents[n])), -1)

    def part(value: Any) -> Any:
        key, call = _body(value, _CALLS)
        if call is not None and call.get("name") == tool:
            return {**value, key: {**call, "args": arguments(call.get("args"))}}
        return _result(value, {tool}, lambda _, output: rendered(output))

    return _each_part(contents, part, last)


def fitting(contents: list[Any], tools: Collection[str],
            fitted: Callable[[str, Any], str | None], tool: str,
            arguments: Callable[[object], dict[str, Any] | None]) -> list[Any]:
    """``contents`` with each result of ``tools`` that ``fitted(tool, output)`` replaces
    (``None``: it fits as it is) replaced, and each call of ``tool`` whose ``args`` that
    ``arguments(args)`` guards (``None``: they fit) given them, the turn in progress
    included."""
    def part(value: Any) -> Any:
        key, call = _body(value, _CALLS)
        if call is not None and call.get("name") == tool:
            args = arguments(call.get("args"))
            return value if args is None else {**value, key: {**call, "args": args}}
        return _result(value, tools, fitted)

    return _each_part(contents, part, len(contents))


def _each_part(contents: list[Any], change: Callable[[Any], Any], before: int) -> list[Any]:
    out: list[Any] | None = None
    for n, content in enumerate(contents[:max(before, 0)]):
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            continue
        new = [change(part) for part in parts]
        if any(a is not b for a, b in zip(new, parts, strict=True)):
            out = out if out is not None else list(contents)
            out[n] = {**content, "parts": new}
    return contents if out is None else out


def _result(value: Any, tools: Collection[str],
            replaced: Callable[[str, Any], str | None]) -> Any:
    """A ``functionResponse`` part of ``tools`` with its output (:func:`_output`) as
    ``replaced`` says; any other part as it is."""
    part, done = _body(value, _RESULTS)
    if done is None or done.get("name") not in tools:
        return value
    key, output = _output(done)
    text = replaced(str(done["name"]), output)
    return value if text is None else {**value, part: {**done, "response": {key: text}}}


def _output(done: dict[str, Any]) -> tuple[str, Any]:
    """A ``functionResponse``'s output and its key (``error`` for a failed call; the
    response itself when it is not an object, which the sanitizer reads as tool output
    too)."""
    response = done.get("response")
    key = "error" if isinstance(response, dict) and "error" in response else "output"
    return key, response.get(key) if isinstance(response, dict) else response


def answered(contents: list[Any], tool: str, says: Callable[[Any], bool]) -> frozenset[str]:
    """The ordinals (``#0``, ``#1``, …) of ``tool``'s results in ``contents`` whose output
    ``says``: Gemini's results name no call, and answer a content's calls in their order,
    so the n-th result is the n-th call's (:func:`in_order` numbers the calls alike)."""
    found, n = set(), 0
    for content in contents:
        parts = content.get("parts") if isinstance(content, dict) else None
        for value in parts if isinstance(parts, list) else ():
            _, done = _body(value, _RESULTS)
            if done is not None and done.get("name") == tool:
                if says(_output(done)[1]):
                    found.add(f"#{n}")
                n += 1
    return frozenset(found)


def in_order(arguments: Callable[[object, str], Any]) -> Callable[[object], Any]:
    """``arguments(args, call)`` given each call, as :func:`fitting` meets them in order,
    its ordinal as its ID (:func:`answered`)."""
    counted = iter(range(1 << 62))
    return lambda args: arguments(args, f"#{next(counted)}")


#: a call's, a result's and an image's key in a part: the SDK's camelCase, the REST
#: API's snake_case
_CALLS: Final = ("functionCall", "function_call")
_RESULTS: Final = ("functionResponse", "function_response")
_IMAGES: Final = ("inlineData", "inline_data")


def _body(value: Any, keys: tuple[str, str]) -> tuple[str, dict[str, Any] | None]:
    """The key of ``value`` among ``keys`` and the object under it (``None``: none)."""
    if isinstance(value, dict):
        for key in keys:
            if isinstance(body := value.get(key), dict):
                return key, body
    return keys[0], None


def _persons(content: Any) -> bool:
    """Whether ``content`` is the person's turn: a ``user`` content that is not tool
    results (with their images beside them, if any) nor the images Pi adds after them
    behind its caption. Images alone are the person's: a screenshot sent without words
    (taken for results, the calls before it stayed the turn in progress, unguarded)."""
    if not isinstance(content, dict) or content.get("role") != "user":
        return False
    parts = content.get("parts")
    if not isinstance(parts, list) or not parts:
        return False
    first = parts[0]
    if isinstance(first, dict) and first.get("text") == TOOL_IMAGES:
        return False
    kinds = [_kind(part) for part in parts]
    return "result" not in kinds or "text" in kinds


def _kind(part: Any) -> str:
    """``result``, ``image`` or ``text`` (anything else a person may send)."""
    if isinstance(part, dict):
        if any(key in part for key in _RESULTS):
            return "result"
        if any(key in part for key in _IMAGES):
            return "image"
    return "text"
