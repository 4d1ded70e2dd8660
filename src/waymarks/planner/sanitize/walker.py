"""The state of one sanitization and the parts of the walk every wire shape shares.

A ``Walker`` carries the provider's allowance, the counters of the outcome and the marker
state of the current *unit* (a message, a Responses item, the system prompt). Its methods
handle what the three shapes have in common: text-bearing strings, any other value
(``generic``), objects with per-key handlers (``fields``), content given as a string or a
list of parts, and tool-call arguments. What only one shape has lives in its own module
(``chat``, ``responses``, ``anthropic``) as handler functions ``(walker, value, base)``;
the package's ``__init__`` puts them together.

What must stay true here:

- the input is never modified; an unchanged value is returned as the *same* object, so
  callers test ``new is not old`` to know whether to copy (and unchanged sub-objects are
  shared with the input);
- structure is never broken: a withheld part is dropped, a part list left empty gets one
  ``WITHHELD`` text part, a withheld string becomes a replacement string;
- markers are counted per unit; ``unit`` re-runs a unit at the highest level of its
  markers when they do not pair up within one string and the unit has more than one slot;
- the marker parser and the credential check are passed in (``parse``, ``suspect``), not
  imported: ``sanitize`` looks them up in its own namespace at each call, where the tests
  replace them with broken ones to prove that the walk fails closed.

Pure: no I/O.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Final

from waymarks.core.marked_filter import filter_marked
from waymarks.core.privacy import LEVELS, WITHHELD, Classification, MarkedText, has_markers, highest
from waymarks.core.secrets import redact

HINT: Final = "4:"  # every marker holds "ds4:"; see waymarks.core.privacy
BASE: Final[Classification] = "normal"
EMPTY_ARGUMENTS: Final = "{}"

#: part type -> the key holding its text
_TEXT_PARTS: Final = {
    "text": "text", "input_text": "text", "output_text": "text", "summary_text": "text",
    "reasoning_text": "text", "refusal": "refusal",
}

#: keys whose string values are structural: IDs, signatures, roles, types and enum-like
#: settings that a provider matches exactly. They are only checked for markers, never
#: redacted (an altered signature or ID is rejected). Every other string a generic walk
#: keeps is redacted for a remote provider. Keep this list narrow: a credential under one
#: of these keys is sent as it is, in every shape's payload. A key one shape alone needs
#: kept is kept by that shape's handler, where it stands (Gemini's ``thoughtSignature``:
#: ``gemini``); a media type (``media_type``, ``mimeType``) needs nothing: redaction
#: leaves ``image/png`` as it is.
STRUCTURAL: Final = frozenset({
    "id", "type", "role", "model", "object", "status",
    "signature", "thought_signature", "encrypted_content",
    "call_id", "tool_call_id", "tool_use_id", "item_id", "previous_response_id",
    "detail", "reasoning_effort", "service_tier",
})
#: object ``type`` -> the key of an encoded blob in it (base64 media, encrypted
#: thinking): kept as it is, like a structural value
ENCODED: Final = {"base64": "data", "redacted_thinking": "data"}

#: ``parse_marked`` of ``waymarks.core.privacy``
Parse = Callable[[str, Classification], MarkedText]
#: ``might_contain_secret`` of ``waymarks.core.secrets``; None when nothing is redacted
Suspect = Callable[[str], bool]
#: the handler of one field (or one content block): the value as the provider may see it
Handler = Callable[["Walker", Any, Classification], Any]
Handlers = Mapping[str, Handler]


class Malformed(Exception):
    """The payload does not have the structure its shape requires."""


class Walker:
    """One sanitization: the provider's allowance, counters and the current unit's marker
    state (see ``unit``). ``blocks`` handles the part types beyond text parts (content
    blocks of Anthropic Messages); any other part is ``opaque``."""

    __slots__ = ("allowed", "anthropic", "blocks", "level", "markers", "memo", "parse",
                 "redacted", "removed", "slots", "split", "suspect")

    def __init__(self, allowed: frozenset[Classification], parse: Parse,
                 suspect: Suspect | None, blocks: Handlers) -> None:
        self.allowed = allowed
        self.parse = parse
        self.suspect = suspect
        self.blocks = blocks
        #: earlier runs' results by unit (``memo.Memo``), for ``fast.units``; None: none
        self.memo: Any = None
        self.removed = 0
        self.redacted = 0
        self.markers = 0
        #: set by a part only Anthropic Messages has; decides the reported shape
        self.anthropic = False
        # marker state of the current unit
        self.level: Classification = BASE
        self.split = False
        self.slots = 0

    # --- strings -----------------------------------------------------------------------

    def text(self, value: object, base: Classification) -> str | None:
        """A text-bearing string as the provider may see it; None when withheld whole."""
        if type(value) is not str:
            raise Malformed("a text field is not a string")
        self.slots += 1
        if HINT in value:
            marked = self.parse(value, base)
            if marked.markers:
                self.level = highest(self.level, marked.level)
                if not marked.balanced or marked.open_tail:
                    self.split = True
                filtered = filter_marked(marked, self.allowed)
                self.markers += filtered.markers
                self.removed += filtered.dropped
                if filtered.text is None:
                    return None
                return self._redact(filtered.text)
        if base not in self.allowed:
            self.removed += 1
            return None
        return self._redact(value)

    def _redact(self, value: str) -> str:
        suspect = self.suspect
        if suspect is not None and suspect(value):
            value, count = redact(value)
            self.redacted += count
        return value

    def redacted_keys(self, value: Mapping[Any, Any]) -> Mapping[Any, Any]:
        """``value`` with a credential in any of its keys redacted (a key of a tool's input
        or of an unknown object reaches the model as any string does); a marker in a key,
        or two keys that redact alike, is :class:`Malformed` (the payload is withheld)."""
        renamed: dict[str, str] | None = None
        for key in value:
            check_key(key)
            if type(key) is str and (shown := self._redact(key)) != key:
                renamed = renamed if renamed is not None else {}
                renamed[key] = shown
        if renamed is None:
            return value
        out = {renamed.get(k, k): v for k, v in value.items()}
        if len(out) != len(value):
            raise Malformed("two object keys are the same once credentials are redacted")
        return out

    def encoded_text(self, value: str, base: Classification) -> str | None:
        """A base64 text document (``value``) as the provider may see it: decoded, its
        text handled as any text's, encoded again (in its own encoding) when that changed
        it; None when withheld whole. Its encoding: UTF-8, UTF-16 or UTF-32 with a
        byte-order mark, else Latin-1 when it holds no NUL byte (a spreadsheet's CSV:
        every byte is a character, so nothing is left unread). A blob that is not base64
        (line breaks aside), or whose bytes hold NULs in none of those (UTF-16 without a
        mark), cannot be read: withheld, unless the provider may receive everything as it
        is (a local one)."""
        try:
            data = base64.b64decode("".join(value.split()), validate=True)
        except ValueError:  # binascii.Error
            return self._unreadable(value)
        codec = "utf-32" if data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff") else \
            "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"
        try:
            plain = data.decode(codec)
        except UnicodeDecodeError:
            plain = ""
        if not plain or plain.count("\x00") * 8 > len(plain):  # not text in that encoding
            if b"\x00" in data:  # (UTF-16 or UTF-32 without a mark: nothing reads it)
                return self._unreadable(value)
            codec, plain = "latin-1", data.decode("latin-1")  # (no NUL: each byte a letter)
        out = self.text(plain, base)
        if out is None or out is plain:
            return out if out is None else value
        return base64.b64encode(out.encode(codec)).decode()

    def _unreadable(self, value: str) -> str | None:
        """An encoded document nothing here can read: as it is for a provider that may
        receive everything (a local one), else withheld."""
        if self.suspect is None and self.allowed >= _EVERY_LEVEL:
            return value
        self.slots += 1
        self.removed += 1
        return None

    def text_or(self, value: object, base: Classification, replacement: str) -> str:
        out = self.text(value, base)
        return replacement if out is None else out

    def optional_text(self, value: Any, base: Classification) -> Any:
        return value if value is None else self.text_or(value, base, WITHHELD)

    # --- any value, objects ------------------------------------------------------------

    def generic(self, value: Any, base: Classification) -> Any:
        """Any other value: strings holding markers are handled as text (and so are their
        containers); other strings are redacted for a remote provider, except the
        values of ``STRUCTURAL`` keys (and ``ENCODED`` blobs), which are kept."""
        if type(value) is str:
            if text_data_uri(value) and (uri := _text_data_uri(value)):
                head, data = uri  # a text file as a data URI (a chat ``file`` part's)
                shown = self.encoded_text(data, base)
                return WITHHELD if shown is None else value if shown is data else head + shown
            if HINT in value and has_markers(value):
                return self.text_or(value, base, WITHHELD)
            return self._redact(value)
        if isinstance(value, Mapping):
            out: dict[Any, Any] | None = None
            blob = ENCODED.get(kind) if type(kind := value.get("type")) is str else None
            value = self.redacted_keys(value)
            for key, item in value.items():
                new = self.structural(item, base) if key in STRUCTURAL or key == blob \
                    else self.generic(item, base)
                if new is not item or out is not None or type(value) is not dict:
                    if out is None:
                        out = dict(value)
                    out[key] = new
            return value if out is None else out
        if isinstance(value, list | tuple):
            items: list[Any] | None = None
            for index, item in enumerate(value):
                new = self.generic(item, base)
                if new is not item:
                    if items is None:
                        items = list(value)
                    items[index] = new
            if items is None:
                return value
            return items if isinstance(value, list) else type(value)(items)
        return value

    def structural(self, value: Any, base: Classification) -> Any:
        """The value of a ``STRUCTURAL`` key: a string is kept unless it holds markers."""
        if type(value) is str:
            if HINT in value and has_markers(value):
                return self.text_or(value, base, WITHHELD)
            return value
        return self.generic(value, base)

    def fields(self, obj: Mapping[str, Any], base: Classification, handlers: Handlers) -> Any:
        """``obj`` with ``handlers`` applied to their keys and ``generic`` to the rest; a
        credential in a key of its own is redacted, as in any object's (a message's keys
        went out as they were)."""
        out: dict[str, Any] | None = None
        keyed = self.redacted_keys(obj)
        if keyed is not obj:
            out, obj = dict(keyed), keyed
        for key, value in obj.items():
            handler = handlers.get(key)
            if handler is not None:
                new = handler(self, value, base)
            elif key in STRUCTURAL:
                new = self.structural(value, base)
            else:
                new = self.generic(value, base)
            if new is not value:
                if out is None:
                    out = dict(obj)
                out[key] = new
        return obj if out is None else out

    # --- units -------------------------------------------------------------------------

    def rules(self, handle: Handler) -> tuple[Any, ...]:
        """What a unit's result depends on besides the unit (``memo.Memo``'s rules): the
        levels, the credential check and marker parser, the redaction looked up here,
        the part handlers and the unit's handler."""
        return (self.allowed, self.suspect, self.parse, redact, id(self.blocks), handle)

    def unit(self, handle: Handler, value: Any) -> Any:
        """Handle one message/item/system prompt; if its markers do not pair up within
        one string (or a leading marker is left open) and it has more than one part,
        handle it again with the highest of its markers as the level of everything."""
        saved = (self.removed, self.redacted, self.markers)
        self.level, self.split, self.slots = BASE, False, 0
        out = handle(self, value, BASE)
        if self.split and self.slots > 1 and self.level != BASE:
            level = self.level
            self.removed, self.redacted, self.markers = saved
            out = handle(self, value, level)
        return out

    def prompt(self, value: Any, base: Classification) -> Any:
        """A ``system``/``instructions``/``input`` value: a string or a list of parts."""
        if value is None:
            return value
        if type(value) is str:
            return self.text_or(value, base, WITHHELD)
        if isinstance(value, list):
            return self.parts(value, base, "text")
        raise Malformed("system/instructions/input must be a string, a list or null")

    # --- content and its parts ---------------------------------------------------------

    def content(self, value: Any, base: Classification, text_type: str) -> Any:
        """Message content: a string, a list of parts (``text_type`` names the text part
        a placeholder takes) or null."""
        if value is None:
            return value
        if type(value) is str:
            return self.text_or(value, base, WITHHELD)
        if isinstance(value, list):
            return self.parts(value, base, text_type)
        raise Malformed("content must be a string, a list of parts or null")

    def message_content(self, value: Any, base: Classification) -> Any:
        return self.content(value, base, "text")

    def parts(self, parts: list[Any], base: Classification, text_type: str) -> Any:
        kept: list[Any] = []
        changed = False
        for part in parts:
            new = self.part(part, base, text_type)
            if new is not part:
                changed = True
            if new is not None:
                kept.append(new)
        if not changed:
            return parts
        if parts and not kept:
            kept.append(_placeholder_part(parts[0], text_type))
        return kept

    def part(self, part: Any, base: Classification, text_type: str) -> Any:
        """One content part/block; None to drop it."""
        if type(part) is str:
            return self.text(part, base)
        if not isinstance(part, Mapping):
            raise Malformed("a content part is not an object")
        kind = part.get("type")
        if type(kind) is str:
            key = _TEXT_PARTS.get(kind)
            if key is not None:
                out = self.text(part.get(key), base)
                if out is None:
                    return None
                rest = self.fields(part, base, _KEEP_TEXT if key == "text" else _KEEP_REFUSAL)
                if out is part[key]:
                    return rest
                if rest is part:
                    rest = dict(part)
                rest[key] = out
                return rest
            block = self.blocks.get(kind)
            if block is not None:
                return block(self, part, base)
        return self.opaque(part, base)

    def opaque(self, part: Any, base: Classification) -> Any:
        """Images, files, audio and unknown parts: kept whole at their unit's level."""
        self.slots += 1
        if base not in self.allowed:
            self.removed += 1
            return None
        return self.generic(part, base)

    # --- tool calls (all three shapes) -------------------------------------------------

    def arguments(self, value: Any, base: Classification) -> Any:
        """Tool-call ``arguments``: a JSON string (withheld as ``"{}"``) or an object.

        The string is text, and then JSON: the strings it holds are read again decoded
        (:meth:`_decoded_strings`), since its escapes hide a credential from the rules (a
        quoted password flag ``-p\\"S3cret\\"``, a ``\\u200b`` inside a token)."""
        if type(value) is not str:
            return self.tool_input(value, base)
        out = self.text_or(value, base, EMPTY_ARGUMENTS)
        if self.suspect is None or "\\" not in out:  # unescaped: what the rules just read
            return out
        out = self._decoded_strings(out, _string_literals(out))
        if "\n" in out:  # (JSON holds no line break in a string: a line's quotes pair up
            # again on each line where a stray quote in text that is not JSON misled them)
            out = self._decoded_strings(out, _literals_by_line(out))
        return out

    def _decoded_strings(self, text: str, literals: Iterable[tuple[int, int]]) -> str:
        """``text`` (JSON) with each string literal holding an escape (``literals``: their
        spans) read decoded and, when a credential is found there, written again
        redacted; everything else (other strings, numbers, spacing, repeated keys, text
        that is not whole JSON, as a call cut at the model's token limit) stays."""
        parts: list[str] = []
        at = 0
        for start, end in literals:
            token = text[start:end]
            if "\\" not in token:
                continue  # read as it is by the pass over the whole text
            try:
                decoded = json.loads(token, strict=False)  # (a raw line break, as models write)
            except ValueError:
                continue
            shown = self._redact(decoded)
            if shown is not decoded:
                parts += (text[at:start], json.dumps(shown, ensure_ascii=False))
                at = end
        return text if not parts else "".join(parts) + text[at:]

    def tool_input(self, value: Any, base: Classification) -> Any:
        """Tool-call input given as an object: every string in it is text."""
        if type(value) is str:
            return self.text_or(value, base, WITHHELD)
        if isinstance(value, Mapping):
            out: dict[Any, Any] | None = None
            value = self.redacted_keys(value)
            for key, item in value.items():
                new = self.tool_input(item, base)
                if new is not item or (out is None and type(value) is not dict):
                    if out is None:
                        out = dict(value)
                    out[key] = new
            return value if out is None else out
        if isinstance(value, list | tuple):
            items = [self.tool_input(item, base) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return items
        return value


_EVERY_LEVEL: Final = frozenset(LEVELS)
#: media types of text given base64-encoded (besides ``text/*``), among them those Gemini
#: takes as a document of code (``application/x-python``, ``application/x-javascript``)
_TEXT_APPLICATIONS: Final = frozenset({
    "application/json", "application/x-yaml", "application/yaml", "application/xml",
    "application/toml", "application/x-sh", "application/javascript",
    "application/x-ndjson", "application/sql", "application/x-javascript",
    "application/x-python", "application/x-python-code", "application/x-typescript",
    "application/typescript", "application/rtf", "application/x-httpd-php",
})
#: a structured syntax suffix (RFC 6839) naming text: ``application/ld+json``,
#: ``application/vnd.api+json``, ``image/svg+xml``
_TEXT_SUFFIXES: Final = ("+json", "+xml", "+yaml")


def text_media(media_type: object) -> bool:
    """Whether a base64 blob of ``media_type`` is text (a document a model reads)."""
    if type(media_type) is not str:
        return False
    kind = media_type.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind in _TEXT_APPLICATIONS \
        or kind.endswith(_TEXT_SUFFIXES)


#: where a JSON string literal's scan stops: its closing quote, or an escape
_QUOTE_OR_ESCAPE: Final = re.compile(r'["\\]')


def _string_literals(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each JSON string literal of ``text``, in one pass (a literal
    left open at the end, as in a call cut at the model's token limit, ends the scan: an
    expression tried from every quote took time quadratic in its length, 22 s for 100 KB)."""
    start = text.find('"')
    while start != -1:
        at = start + 1
        while (stop := _QUOTE_OR_ESCAPE.search(text, at)) is not None \
                and stop.group() == "\\":
            at = stop.end() + 1  # the escaped character
        if stop is None:
            return
        yield start, stop.end()
        start = text.find('"', stop.end())


def _literals_by_line(text: str) -> Iterator[tuple[int, int]]:
    """:func:`_string_literals` of each line of ``text`` on its own, as spans of it."""
    offset = 0
    for line in text.split("\n"):
        for start, end in _string_literals(line):
            yield offset + start, offset + end
        offset += len(line) + 1


#: how a data URI that may hold text starts (in lower case: a URI's scheme and a media
#: type are read in any case)
_TEXT_DATA_URIS: Final = ("data:text/", "data:application/")


def text_data_uri(value: str) -> bool:
    """Whether ``value`` may be a data URI holding text (cheap: its start only)."""
    return value[:1] in "dD" and value[:17].lower().startswith(_TEXT_DATA_URIS)


def _text_data_uri(value: str) -> tuple[str, str] | None:
    """(``data:…;base64,``, the base64) of a base64 data URI of a text media type."""
    head, comma, data = value.partition(",")
    folded = head.lower()
    if not comma or not folded.endswith(";base64") or not text_media(folded[5:-7]):
        return None
    return head + comma, data


def keep(walker: Walker, value: Any, base: Classification) -> Any:
    """The handler of a field that must stay exactly as it is (a signature, a text
    already handled)."""
    return value


def check_key(key: object) -> None:
    if type(key) is str and HINT in key and has_markers(key):
        raise Malformed("an object key holds a classification marker")


_KEEP_TEXT: Final[Handlers] = {"text": keep}
_KEEP_REFUSAL: Final[Handlers] = {"refusal": keep}


def _placeholder_part(first: Any, text_type: str) -> dict[str, Any]:
    kind = first.get("type") if isinstance(first, Mapping) else None
    if kind not in ("text", "input_text", "output_text"):
        kind = text_type
    part: dict[str, Any] = {"type": kind, "text": WITHHELD}
    if kind == "output_text":
        part["annotations"] = []
    return part
