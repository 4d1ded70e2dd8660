"""Where the turn in progress starts in a conversation of messages (Pi's, Chat
Completions, Anthropic, Bedrock Converse, Responses): at the person's last message, which
tool results and the images a host puts beside them are not. :mod:`waymarks.tool.egress`
guards what comes before it as history. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Final

from waymarks.core.lazy_re import lazy


def persons_last(messages: list[Any]) -> int:
    """The index of the person's last message (-1: none)."""
    return next((n for n in range(len(messages) - 1, -1, -1)
                 if isinstance(m := messages[n], dict) and m.get("role") == "user"
                 and not _is_tool_result_turn(m) and not _tool_images(messages, n)), -1)


def _is_tool_result_turn(message: dict[str, Any]) -> bool:
    """A user message of tool results (Anthropic's ``tool_result`` parts, Bedrock
    Converse's ``toolResult``) is not a person's turn: taken for one, the turn in progress
    was guarded as history, its calls and previews blanked mid-turn. Pi puts the images of
    an error result after the results, each run behind a caption (Anthropic, and Claude on
    Bedrock, take none in an error result): still the tool results' message."""
    content = message.get("content")
    return isinstance(content, list) and bool(content) and _tool_result(content[0]) and all(
        _tool_result(p) or _results_own_part(p) for p in content)


def _results_own_part(part: object) -> bool:
    """An image, a Bedrock cache point, or Pi's caption before an error result's images (Anthropic's
    ``{"type": "text"}``, Bedrock's ``{"text"}``). Other text after the results is the
    person's, sent during the tool run (Anthropic's way to add words to the results'
    message): that message is the person's turn, and what came before it history."""
    if not isinstance(part, dict):
        return False
    if part.get("type") == "image" or set(part) in ({"image"}, {"cachePoint"}):
        return True  # (Pi ends the last user message with a cache point for Claude on Bedrock)
    text = part.get("text") if part.get("type") == "text" or set(part) == {"text"} else None
    return isinstance(text, str) and ERROR_IMAGES_CAPTION.fullmatch(text) is not None


#: Pi's caption before the images of an error result it moves after the turn's results
#: (``splitErrorToolResultImages``: "Images from the error result of tool call ID (TOOL):")
ERROR_IMAGES_CAPTION: Final = lazy(r"Images from the error result of tool call \S* \([^\n]*\):")


def _tool_result(part: object) -> bool:
    return isinstance(part, dict) and (part.get("type") == "tool_result" or "toolResult" in part)


#: the text of the user message Pi's Chat Completions conversion adds after tool results
#: that hold images (a tool message takes text only), before the images themselves
TOOL_IMAGES: Final = "Attached image(s) from tool result:"


def _tool_images(messages: list[Any], n: int) -> bool:
    """Whether ``messages[n]`` is the images of the tool results before it, as Pi sends
    them in Chat Completions (after the assistant's line some providers require): not a
    person's turn either. Taken for one, a turn that read an image had its own
    ``context_persistence`` traffic guarded as history, the previews it asked for blanked."""
    content = messages[n].get("content")
    if not (isinstance(content, list) and len(content) > 1 and isinstance(content[0], dict)
            and content[0].get("type") == "text" and content[0].get("text") == TOOL_IMAGES
            and all(isinstance(p, dict) and p.get("type") == "image_url"
                    for p in content[1:])):
        return False
    before = [m.get("role") if isinstance(m, dict) else None for m in messages[max(0, n - 2):n]]
    return before[-1:] == ["tool"] or before == ["tool", "assistant"]
