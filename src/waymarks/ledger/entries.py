"""What ledger entries say: the one decoder of ledger lines, and the bodies other layers read.

The reader (:class:`~waymarks.ledger.log.SessionLog`) keeps of each entry only its place
in the tree (ID, parent, type, timestamp) and the DS4 mutations it carries. Others need
what an entry says: the words of a message (recall of compacted turns, the provenance of
a tool write, the Claude Code hook's retry check), where a compaction cut the context,
the data of a custom entry (discussion notes). They ask here; nothing outside ``ledger/``
parses a ledger line.

Every line is decoded with :data:`LINE_DECODER` (msgspec), the decoder the reader uses
too, into :class:`EntryLine`, whose bodies stay raw until asked for.

What must stay true: bodies are read by the reader's rules, so a body and the tree never
disagree about which line an ID names:

- only complete lines the reader has read count (``SessionLog.offset``);
- the header (line 1), blank lines, lines that are not valid entries and entries without
  an ``id`` or ``timestamp`` are skipped;
- of two lines with one ID the first counts (the reader skips the later one).
"""


import itertools
import re
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.core.records import json_decoder
from waymarks.core.text import well_formed

if TYPE_CHECKING:
    from waymarks.ledger.log import SessionLog

#: how much of a ledger's end is read first to find its last entry (doubled as needed)
TAIL_BYTES: Final = 64 * 1024
_NULL: Final = b"null"
#: why the reader skips a blank line (``Anomaly.detail``)
BLANK_LINE: Final = "blank line"


class EntryLine(msgspec.Struct):
    """One ledger line as decoded: the envelope typed, the bodies raw (decoded on demand)."""

    type: str
    id: str | None = None
    parentId: str | None = None
    timestamp: str | None = None
    customType: str | None = None
    data: msgspec.Raw = msgspec.Raw(_NULL)  # custom entries
    message: msgspec.Raw = msgspec.Raw(_NULL)  # message entries
    firstKeptEntryId: msgspec.Raw = msgspec.Raw(_NULL)  # compaction entries
    summary: msgspec.Raw = msgspec.Raw(_NULL)  # compaction entries: the summary text
    version: int | None = None  # the header's
    cwd: str | None = None  # the header's
    parentSession: str | None = None  # the header's


class _MessageBody(msgspec.Struct):
    """A message as Pi writes it; loosely typed: a shape we do not know is not an error."""

    role: Any = None
    content: Any = None
    timestamp: Any = None


#: the one decoder of ledger lines (the reader's and everyone else's)
LINE_DECODER: Final = json_decoder(EntryLine)
_LINE_ENCODER: Final = msgspec.json.Encoder()
_MESSAGE_DECODER: Final = json_decoder(_MessageBody)
_ANY_DECODER: Final = msgspec.json.Decoder()


class Message(msgspec.Struct, frozen=True):
    """A ``message`` entry: who spoke and the text they sent (text parts joined by newlines;
    ``""`` when there are none, or the message is not in a shape Pi writes)."""

    id: str
    parent_id: str | None
    role: str
    text: str
    #: the message's own ``timestamp`` (epoch milliseconds), when it is an integer
    sent_ms: int | None


class Compaction(msgspec.Struct, frozen=True):
    """A ``compaction`` entry: the live context starts again at ``first_kept``."""

    id: str
    parent_id: str | None
    first_kept: str | None
    #: the summary the compaction wrote (``None`` when absent or not text)
    summary: str | None = None


class Custom(msgspec.Struct, frozen=True):
    """A ``custom`` entry of type ``custom_type``; ``data`` is its payload, decoded JSON
    (``None`` when it is not valid JSON)."""

    id: str
    parent_id: str | None
    custom_type: str
    data: Any


class Other(msgspec.Struct, frozen=True):
    """Any other entry: its place and type only."""

    id: str
    parent_id: str | None
    type: str


Body = Message | Compaction | Custom | Other


def decode_entry(line: bytes) -> EntryLine:
    """A ledger line decoded (every reader of ledger lines decodes through here); raises
    ``msgspec.DecodeError`` (or ``RecursionError``) when it is not an entry line.

    JSON may escape half of a surrogate pair (``"\\ud83d"``): JavaScript's
    ``JSON.stringify`` writes one for a string cut between the two halves of an emoji, as
    a truncated tool output can be. msgspec refuses such a line whole, which dropped the
    entry and cut the branch at it. Such a line is read again with each unpaired half as
    U+FFFD (the rest unchanged)."""
    try:
        return LINE_DECODER.decode(line)
    except msgspec.DecodeError:
        if b"\\u" not in line:
            raise
        repaired = _without_lone_surrogates(line)
        if repaired is None:
            raise
        return LINE_DECODER.decode(repaired)


def _without_lone_surrogates(line: bytes) -> bytes | None:
    """``line`` re-encoded with every unpaired surrogate as U+FFFD; ``None`` if it is not
    JSON at all (or nothing in it was a lone surrogate)."""
    import json  # the rare path: a line msgspec refused

    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    found = False

    def clean(item: Any) -> Any:
        nonlocal found
        if isinstance(item, str):
            fixed = well_formed(item)
            found = found or fixed is not item
            return fixed
        if isinstance(item, list):
            return [clean(part) for part in item]
        if isinstance(item, dict):
            return {clean(key): clean(part) for key, part in item.items()}
        return item

    try:
        cleaned = clean(value)
    except RecursionError:
        return None
    return _LINE_ENCODER.encode(cleaned) if found else None


def decode_line(line: bytes) -> EntryLine | None:
    """The line decoded, or ``None`` when it is not a valid entry line."""
    try:
        return decode_entry(line)
    except (msgspec.DecodeError, RecursionError):
        return None


def bodies(session: "SessionLog", types: Collection[str] | None = None) -> Iterator[Body]:
    """Every entry the reader has read, in file order (only ``types``, when given)."""
    seen: set[str] = set()
    lines = session.tail_bytes(session.offset).split(b"\n")
    decode = decode_entry
    for line in itertools.islice(lines, 1, None):  # line 1 is the header
        try:
            raw = decode(line)
        except (msgspec.DecodeError, RecursionError):
            continue  # blank, not JSON, not an entry: the reader skips it too
        entry_id = raw.id
        if entry_id is None or entry_id in seen or raw.timestamp is None or \
                raw.type == "session":
            continue  # the first line with an ID is the entry
        seen.add(entry_id)
        if types is None or raw.type in types:
            yield body_of(raw)


def entries_named(session: "SessionLog", ids: Collection[str]) -> dict[str, EntryLine]:
    """The entries of ``ids`` the reader has read, by :func:`bodies`' rules, decoding only
    the lines that name one: ``memory show`` of a claim with sources read every entry of
    the ledger to date them (60k entries: 3 s, the ledger's whole tree in memory)."""
    wanted = {entry_id for entry_id in ids if entry_id}
    if not wanted:
        return {}
    data = session.tail_bytes(session.offset)
    names = b"|".join(re.escape(entry_id.encode()) for entry_id in sorted(wanted))
    found: dict[str, EntryLine] = {}
    for match in re.finditer(rb'"id"\s*:\s*"(' + names + rb')"', data):
        start = data.rfind(b"\n", 0, match.start()) + 1
        if start == 0:
            continue  # line 1 is the header
        end = data.find(b"\n", match.end())
        raw = decode_line(data[start:end if end >= 0 else len(data)])
        entry_id = match.group(1).decode()
        if raw is not None and raw.id == entry_id and entry_id not in found and \
                raw.timestamp is not None and raw.type != "session":
            found[entry_id] = raw  # (the first line with an ID is the entry)
    return found


def messages(session: "SessionLog") -> Iterator[Message]:
    """Every message entry, in file order."""
    for body in bodies(session, ("message",)):
        assert isinstance(body, Message)
        yield body


#: what a bounded read of the recent conversation (:func:`recent_messages` with
#: ``first_bytes`` and ``last``) reads first: when they hold the ``last`` messages it
#: wants, or the window of lines it asks for begins in them, that is its answer from
#: ``first_bytes`` as well (those bytes' window holds these bytes' and their lines end
#: the file). Read whole every prompt, the first 2 MiB of a Claude Code hook's history
#: (10k claims of the session before its prompts) were ~2 ms of a hook's CPU, its last
#: 25 prompts in their last 8 KB (~0.5 ms now); with fewer prompts than that, the look
#: costs a read of them and a count (~0.1 ms)
PROBE_BYTES: Final = 256 * 1024

#: what every message line holds, the type's value as JSON encoders write it (a line
#: spelling it with escapes is not taken as history: a follow-up loses context, nothing else)
_MESSAGE_TYPE: Final = b'"message"'
#: how a message line begins, as Waymarks and Pi write it
_MESSAGE_LINE: Final = b'{"type":"message"'


def recent_messages(session: "SessionLog", max_bytes: int, max_entries: int, *,
                    enough: Callable[[list[Message]], bool] | None = None,
                    first_bytes: int | None = None,
                    keep: Callable[[Message], bool] | None = None,
                    last: int | None = None) -> list[Message]:
    """Message entries on the active branch among the last ``max_entries`` lines of the
    last ``max_bytes`` of the ledger, in file order: a bounded read for callers that want
    only the recent conversation (recall history), never the whole file.

    ``enough`` (with ``first_bytes``): only the last ``first_bytes`` are read first, and
    twice as many each time (up to ``max_bytes``; only the bytes not read yet) while the
    messages found are not enough and the last ``max_entries`` lines do not all lie in
    what was read (when they do, the bytes before hold none of them):
    a run of large entries that are no messages (a tool's output) does not push the
    conversation out of a window of bytes, and a short one costs no more than before.

    On every prompt of a long session: the lines are not split, nor each looked at; the
    window's start is found from the end, and only lines holding a message's type are
    cut out and decoded (most lines of a long ledger are mutations).

    ``keep``: only the messages it keeps, asked before whether each is on the active
    branch: an entry before the session's checkpoint is asked of the database (a query
    and a checksum each), so a caller looking for one message (the prompt a twin hook
    recorded) asked it for every message of a long session's window. ``last``: only the
    last ``last`` of them (the branch is asked from the end until they are found)."""
    if enough is None or first_bytes is None:
        return _messages(session, max_bytes, max_entries, keep, last)
    size = session.offset
    read = min(first_bytes, max_bytes, size)
    tail = session.tail_bytes(min(PROBE_BYTES, read))
    # the last bytes alone first (:data:`PROBE_BYTES`), when they may hold ``last``
    # messages (a guess: looked at or not, the answer is the same; not looked at, they
    # cost a read and a count)
    if len(tail) < read and last is not None and tail.count(_MESSAGE_LINE) >= last:
        first, begin = _window(tail, size, max_entries)
        found = _messages_in(session, tail, begin, keep, last)
        if begin > first or (last is not None and len(found) >= last):
            return found
    if len(tail) < read:
        tail = session.tail_bytes(read)  # (read again whole: cheaper than joining the two)
    while True:
        first, begin = _window(tail, size, max_entries)
        found = _messages_in(session, tail, begin, keep, last)
        if read >= max_bytes or read >= size or begin > first or enough(found):
            return found
        further = min(2 * read, max_bytes, size)
        tail = session.tail_bytes(further, skip=read) + tail  # only the bytes not read yet
        read = further


def _messages(session: "SessionLog", max_bytes: int, max_entries: int,
              keep: Callable[[Message], bool] | None, last: int | None) -> list[Message]:
    size = session.offset
    tail = session.tail_bytes(min(size, max_bytes))
    return _messages_in(session, tail, _window(tail, size, max_entries)[1], keep, last)


def _messages_in(session: "SessionLog", tail: bytes, begin: int,
                 keep: Callable[[Message], bool] | None, last: int | None) -> list[Message]:
    kept: list[Message] = []
    # a line read by the reader's last call is not decoded again: a prompt's hook reads
    # the conversation twice (the prompt's record, then its history), and a warm helper
    # the same lines prompt after prompt. Kept by the line's bytes (the same bytes, the
    # same message), only those of this call: at most its window
    known, read = session.messages_read, {}
    for line in _line_spans(tail, begin, _MESSAGE_TYPE):
        body = known[line] if line in known else _message_line(line)
        read[line] = body
        if isinstance(body, Message) and (keep is None or keep(body)):
            kept.append(body)
    session.messages_read = read
    branch = session.branch_set()
    out: list[Message] = []
    for body in reversed(kept):
        if last is not None and len(out) >= last:
            break
        if body.id in branch:
            out.append(body)
    out.reverse()
    return out


def recent_custom(session: "SessionLog", custom_type: str, needle: bytes, max_bytes: int,
                  max_entries: int) -> list[Custom]:
    """The ``custom`` entries of ``custom_type`` whose line holds ``needle`` (an ID they
    carry, say) among the last ``max_entries`` lines of the last ``max_bytes`` of the
    ledger, in file order, on any branch: read as :func:`recent_messages` reads."""
    return [body for raw in _recent_lines(session, needle, max_bytes, max_entries)
            if raw.type == "custom" and raw.customType == custom_type
            and isinstance(body := body_of(raw), Custom)]


def _recent_lines(session: "SessionLog", needle: bytes, max_bytes: int,
                  max_entries: int) -> Iterator[EntryLine]:
    """The entry lines (with an ID and a timestamp) holding ``needle`` among the last
    ``max_entries`` lines of the last ``max_bytes`` of the ledger, in file order; only
    those lines are cut out and decoded."""
    size = session.offset
    tail = session.tail_bytes(min(size, max_bytes))
    yield from _lines_in(tail, _window(tail, size, max_entries)[1], needle)


def _window(tail: bytes, size: int, max_entries: int) -> tuple[int, int]:
    """Where the first whole line of ``tail`` (the last bytes of a ledger of ``size``
    bytes) begins, and where its last ``max_entries`` lines begin."""
    first = tail.find(b"\n") + 1 if len(tail) < size else 0  # the first line was cut
    return first, window_start(tail, first, max_entries)


def _lines_in(tail: bytes, begin: int, needle: bytes) -> Iterator[EntryLine]:
    """:func:`_recent_lines` of ``tail`` from ``begin``, where its window of lines
    starts (:func:`_window`)."""
    for line in _line_spans(tail, begin, needle):
        raw = decode_line(line)
        if raw is not None and raw.id is not None and raw.timestamp is not None:
            yield raw


def _line_spans(tail: bytes, begin: int, needle: bytes) -> Iterator[bytes]:
    """The lines of ``tail`` from ``begin`` that hold ``needle``, undecoded."""
    at = tail.find(needle, begin)
    while at >= 0:
        line_start = max(tail.rfind(b"\n", begin, at) + 1, begin)
        line_end = tail.find(b"\n", at)
        if line_end < 0:
            line_end = len(tail)
        yield tail[line_start:line_end]
        at = tail.find(needle, line_end)


def _message_line(line: bytes) -> Body | None:
    """What a line holding a message's type says: its body when it is a message entry
    line (with an ID and a timestamp), else ``None``."""
    raw = decode_line(line)
    if raw is None or raw.id is None or raw.timestamp is None or raw.type != "message":
        return None
    return body_of(raw)


def window_start(data: bytes, first: int, lines: int, block: int = 1 << 16) -> int:
    """Where the last ``lines`` lines of ``data[first:]`` begin, counting as
    ``data[first:].split(b"\\n")`` does (an empty last line too). Newlines are counted a
    ``block`` at a time from the end (in C), and only the last block's are looked for
    one by one."""
    end, need = len(data), lines
    while True:
        start = max(first, end - block)
        found = data.count(b"\n", start, end)
        if found >= need:
            break
        if start == first:
            return first  # fewer lines than asked for: all of them
        need -= found
        end = start
    at = end
    for _ in range(need):
        at = data.rfind(b"\n", start, at)
    return at + 1


def custom_entries(session: "SessionLog", custom_type: str) -> Iterator[Custom]:
    """Every ``custom`` entry of ``custom_type``, in file order."""
    for body in bodies(session, ("custom",)):
        if isinstance(body, Custom) and body.custom_type == custom_type:
            yield body


def last_entry(session: "SessionLog") -> Body | None:
    """The leaf entry when it is the last line read, blank lines aside (what was just
    appended), read from the end of the ledger only; ``None`` when there is none, or a
    line the reader skipped follows it."""
    leaf = session.leaf_id
    if leaf is None or _ends_skipped(session):
        return None
    limit = TAIL_BYTES
    while True:
        tail = session.tail_bytes(limit).rstrip()
        start = tail.rfind(b"\n")
        if start >= 0 or limit >= session.offset:
            break
        limit *= 4  # the last line is longer than what was read: read more
    raw = decode_line(tail[start + 1:])
    if raw is None or raw.id != leaf or raw.timestamp is None or raw.type == "session":
        return None
    return body_of(raw)


def _ends_skipped(session: "SessionLog") -> bool:
    """Whether the last line read, blank lines aside, is one the reader skipped."""
    line_no = session.lines
    for anomaly in reversed(session.anomalies):
        if anomaly.line != line_no or anomaly.kind != "skipped":
            return False
        if anomaly.detail != BLANK_LINE:
            return True
        line_no -= 1
    return False


def body_of(raw: EntryLine) -> Body:
    """What an entry line says, by its type (``raw.id`` must be set)."""
    assert raw.id is not None
    if raw.type == "message":
        return _message(raw.id, raw.parentId, raw.message)
    if raw.type == "compaction":
        kept = _decode_any(raw.firstKeptEntryId)
        summary = _decode_any(raw.summary)
        return Compaction(raw.id, raw.parentId, kept if isinstance(kept, str) else None,
                          summary if isinstance(summary, str) else None)
    if raw.type == "custom" and raw.customType is not None:
        return Custom(raw.id, raw.parentId, raw.customType, _decode_any(raw.data))
    return Other(raw.id, raw.parentId, raw.type)


def _message(entry_id: str, parent_id: str | None, raw: msgspec.Raw) -> Message:
    try:
        body = _MESSAGE_DECODER.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return Message(entry_id, parent_id, "", "", None)  # not an object: nothing said
    role = body.role if isinstance(body.role, str) else ""
    sent = body.timestamp if type(body.timestamp) is int else None
    return Message(entry_id, parent_id, role, _text_of(body.content), sent)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part["text"] for part in content
                         if isinstance(part, dict) and part.get("type") == "text"
                         and isinstance(part.get("text"), str))
    return ""


def _decode_any(raw: msgspec.Raw) -> Any:
    try:
        return _ANY_DECODER.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None


def custom_entries_between(session: "SessionLog", custom_type: str, start: int,
                           end: int) -> Iterator[Custom]:
    """The ``custom`` entries of ``custom_type`` on the lines from byte ``start`` to
    ``end`` (line boundaries two checkpoints vouch for), decoded from those bytes alone,
    the ledger unread: a line repeating the ID of an entry before ``start`` is not told
    from a new entry. For readers that want a superset (what a change may have touched);
    a fold reads :func:`custom_entries_since`."""
    seen: set[str] = set()
    decode = decode_entry
    for line in session.bytes_between(start, end).split(b"\n"):
        try:
            raw = decode(line)
        except (msgspec.DecodeError, RecursionError):
            continue
        if raw.id is None or raw.id in seen or raw.timestamp is None or raw.type != "custom":
            continue
        seen.add(raw.id)
        body = body_of(raw)
        if isinstance(body, Custom) and body.custom_type == custom_type:
            yield body


def custom_entries_since(session: "SessionLog", custom_type: str, offset: int,
                         entries: int) -> Iterator[Custom]:
    """The ``custom`` entries of ``custom_type`` on the lines past byte ``offset``, where
    the reader had read ``entries`` entries (a checkpoint an incremental reader kept):
    :func:`custom_entries`' share of what was appended since, by the same rules. A line
    whose ID the reader first saw before the checkpoint is that earlier entry's duplicate
    and is skipped; only the bytes past ``offset`` are decoded."""
    for body, _end, _read in marked_custom_entries(session, custom_type, offset, entries):
        yield body


def marked_custom_entries(session: "SessionLog", custom_type: str, offset: int,
                          entries: int) -> Iterator[tuple[Custom, int, int]]:
    """:func:`custom_entries_since`, each entry with where a checkpoint just past it
    stands: the byte offset of the end of its line, and the entries read up to there (a
    fold that commits in parts resumes from any of them as from one at the end)."""
    if offset >= session.offset:
        return
    known = session.by_id
    seen: set[str] = set()
    decode = decode_entry
    end, read = offset, entries
    for line in _lines_from(session, offset):
        end += len(line) + 1
        try:
            raw = decode(line)
        except (msgspec.DecodeError, RecursionError):
            continue
        entry_id = raw.id
        if entry_id is None or entry_id in seen or raw.timestamp is None or \
                raw.type == "session":
            continue
        seen.add(entry_id)
        first = known.get(entry_id)
        if first is None or first.index < entries:
            continue
        read = first.index + 1  # entries are numbered in the order they are first read
        if raw.type != "custom":
            continue
        body = body_of(raw)
        if isinstance(body, Custom) and body.custom_type == custom_type:
            yield body, end, read


#: how much of a ledger :func:`marked_custom_entries` reads at a time
LINES_WINDOW: Final = 1 << 20


def _lines_from(session: "SessionLog", offset: int) -> Iterator[bytes]:
    """The lines (without their newlines) from byte ``offset`` to what the reader read,
    read a window at a time: a fold in parts stops after a part's records, and reading
    and splitting all the rest for each part (72 MB at 60k learned claims, 180 parts)
    cost more than the fold."""
    start, stop = offset, session.offset
    window = LINES_WINDOW
    while start < stop:
        data = session.bytes_between(start, min(stop, start + window))
        cut = data.rfind(b"\n") + 1
        if not cut:  # one line longer than the window (or the end without a newline)
            if start + window >= stop:
                yield data
                return
            window *= 2
            continue
        yield from data[:cut - 1].split(b"\n")
        start += cut
        window = LINES_WINDOW
