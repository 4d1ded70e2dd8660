"""Engineering docs as project memory: ``docs/engineering/`` of the project, committed with
the code, served to the planner as project snippets (priority 80).

- Markdown is chunked by heading (levels 1 to 3; a long section is cut at paragraphs).
- Decision records (``decisions/ADR-NNNN-slug.md``, or any file named for its number:
  :func:`is_decision_record`) carry frontmatter: ``id``, ``title``,
  ``status``, ``date``, ``decision``, ``why``, ``affects``, ``readWhen``, ``supersedes``
  (one value or a list) and optionally ``superseded_by``. Each ADR adds a summary chunk
  (title, decision, why) whose matching also uses ``affects`` and ``readWhen``. An ADR
  that is ``Superseded``/``Deprecated``, names a ``superseded_by``, or is named in another
  ADR's ``supersedes`` is not served as current, unless it supersedes that one in turn
  (a loop, :class:`Standing`: both are served, each saying they conflict).
- A chunk is served when it shares enough features with the request; at most
  ``MAX_SNIPPETS``, best first. Only for a trusted project: an untrusted checkout's docs
  stay out of the context, as its project memory does.

Files are read each time (the docs are small and may change with every checkout); a link
leading out of the project is skipped.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.marker_spans import SpanLevels
from waymarks.core.privacy import Classification, highest
from waymarks.core.secrets import cut_before_secret
from waymarks.files.atomic import NotARegularFile
from waymarks.files.paths import leads_within, resolved
from waymarks.files.reading import read_regular
from waymarks.personal.entry import file_text
from waymarks.service.planning import doc_snippet, first_admitted
from waymarks.service.search import features

if TYPE_CHECKING:
    from waymarks.core.egress import Egress
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import TextInput

DOCS_DIR: Final = Path("docs") / "engineering"
DECISIONS_DIR: Final = DOCS_DIR / "decisions"
MAX_CHUNK_CHARS: Final = 1500
MAX_FILE_BYTES: Final = 1_000_000
#: what one plan reads of a project's docs at most (characters), decision records first,
#: then in path order (a review: 20 MB of docs made every plan and hook take 7.5 s; a
#: real docs folder is a few hundred KB)
MAX_DOCS_CHARS: Final = 4_000_000
MAX_SNIPPETS: Final = 4
INACTIVE: Final = ("superseded", "deprecated", "rejected")
DRAFTS: Final = ("proposed", "draft")
_HEADING: Final = lazy(r"^(#{1,3})\s+(.*\S)\s*$")
#: a fenced code block's fence (CommonMark): three or more backticks or tildes, indented
#: by three spaces at most, and what follows them
_CODE_FENCE: Final = lazy(r"^ {0,3}(`{3,}|~{3,})(.*)$")
#: a file named for a decision's number, whatever follows it: a decision record, and a
#: number ``adr new`` does not take again
ADR_NUMBER: Final = lazy(r"(?i)ADR-(\d{1,9})(?!\d)")
#: a record's number as a ``supersedes`` or an ``id`` writes it, in any case and with any
#: number of digits (``adr-0001``, ``ADR-1``: only ``ADR-`` and four digits counted, and a
#: record so named stayed current beside the one superseding it)
_ADR_ID: Final = lazy(r"(?i)\bADR-(\d{1,9})(?!\d)")
#: a record's whole number as written, numbered by year and count too (``ADR-2024-02``)
_ADR_WHOLE: Final = lazy(r"(?i)\bADR-(\d{1,9})(?:-\d+)*(?!\d)")
_NORMAL: Final[frozenset[Classification]] = frozenset({"normal"})
#: a frontmatter value YAML reads as none: null in its spellings, an empty list or mapping
_NOTHING: Final = frozenset({"~", "null", "Null", "NULL", "[]", "{}"})
#: the header of a YAML block scalar: literal ``|`` or folded ``>``, with its indicators
_BLOCK_SCALAR: Final = lazy(r"[|>](?:[1-9]?[+-]?|[+-][1-9])(?:\s+#.*)?")


class Chunk(msgspec.Struct, frozen=True):
    source: str  # "docs/engineering/x.md#Heading"
    text: str
    match_text: str  # what matching sees (an ADR summary adds affects and readWhen)
    status: str | None = None
    #: every level of the spans around and within it in its file (markers span headings),
    #: and at least the whole file's highest: a destination gets it only if it may receive
    #: each (folded into the highest, an ``internal`` span inside a ``sensitive`` one went
    #: to a provider allowed ``normal`` and ``sensitive`` only)
    levels: frozenset[Classification] = _NORMAL

    @property
    def level(self) -> Classification:
        """The highest of :attr:`levels`."""
        return highest(*self.levels)


class Adr(msgspec.Struct, frozen=True):
    path: Path
    fields: dict[str, str | list[str]] = msgspec.field(default_factory=dict)
    body: str = ""
    text: str = ""  # the whole file, for its classification

    def get(self, name: str) -> str:
        value = self.fields.get(name, "")
        return ", ".join(value) if isinstance(value, list) else value

    @property
    def id(self) -> str:
        """Its ``id``, else the number its file is named for (``adr-0002_x.md`` is
        ``ADR-0002``, as a ``supersedes`` names it)."""
        found = ADR_NUMBER.match(self.path.name)
        return self.get("id") or (_numbered(found.group(1)) if found
                                  else self.path.stem[:8])

    def supersedes(self, shared: frozenset[str] = frozenset()) -> list[str]:
        """The keys of the records it names (``shared``: as :meth:`key_among`)."""
        named = [(_numbered(found.group(1)), found.group(0).upper())
                 for found in _ADR_WHOLE.finditer(self.get("supersedes"))]
        return [whole if key in shared else key for key, whole in named]

    def key_among(self, shared: frozenset[str]) -> str:
        """:attr:`key`, or the whole id when that number is one several records share
        (numbered by year, ``ADR-2024-01`` and ``ADR-2024-02`` are both ``ADR-2024``:
        superseding one retired them all)."""
        return self.id.upper() if self.key in shared else self.key

    @property
    def key(self) -> str:
        """The record's number as :meth:`supersedes` names records (its :attr:`id`)."""
        found = _ADR_ID.search(self.id)
        return _numbered(found.group(1)) if found else self.id


def _numbered(number: str) -> str:
    """A record's number as one key: ``ADR-`` and at least four digits."""
    return f"ADR-{int(number):04d}"


#: a line of frontmatter: a ``key:``, a list item, an indented or a comment line, a
#: blank one, or a fence
_YAML_LINE: Final = lazy(r"(?:[\w.-]+\s*:|\s|-\s|#|---|$)")


def parse_frontmatter(text: str) -> tuple[dict[str, str | list[str]], str]:
    """Simple YAML frontmatter: ``key: value`` lines and ``- item`` lists under a key; a
    value YAML reads as none (``null``, ``~``, ``[]``) is empty. A value may go on over
    indented lines, as a block scalar (``decision: >`` or ``|``: its lines, blank ones
    left out, joined by a space or a line end) or as a plain one continued (joined by a
    space); its first line alone made every plan say ``Decision: >``."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    fields: dict[str, str | list[str]] = {}
    key = None
    joiner: str | None = None  # the block scalar's, while its lines are read
    for line in text[4:end].split("\n"):
        indented = line.startswith((" ", "\t"))
        current = fields.get(key) if key is not None else None
        if key is not None and joiner is not None and (indented or not line.strip()):
            if line.strip():
                fields[key] = f"{current}{joiner}{line.strip()}" if current else line.strip()
            continue
        joiner = None
        item = re.match(r"^\s*-\s+(.*)$", line)
        if item and key is not None:
            items = current if isinstance(current, list) else ([current] if current else [])
            fields[key] = [*items, item.group(1).strip().strip("'\"")]
            continue
        if indented and isinstance(current, str) and current and line.strip():
            fields[str(key)] = f"{current} {line.strip()}"  # a plain value, continued
            continue
        name, sep, value = line.partition(":")
        if sep and name.strip() and not indented:
            key = name.strip()
            value = value.strip()
            if _BLOCK_SCALAR.fullmatch(value):
                joiner, fields[key] = ("\n" if value.startswith("|") else " "), ""
                continue
            # what YAML reads as no value is none: `superseded_by: null` retired the
            # decision in force, and `status: ~` was a status
            fields[key] = "" if value in _NOTHING else value.strip("'\"")
    return fields, text[end + 4:].lstrip("\n")


def chunk_markdown(relative: str, text: str, status: str | None = None,
                   level: Classification = "normal", start: int = 0,
                   title: str = "") -> list[Chunk]:
    """``text[start:]`` cut by heading, each chunk with the levels of the spans of ``text``
    (``level`` their floor) around and within it and its heading, and the whole text's
    highest (a span may run across headings); ``title`` (its frontmatter's) is matched
    with the text before the first heading, as a heading is with its section. The whole
    text is parsed once: per chunk, a 990 KB API reference of 3,271 sections took 3 s of
    every plan and hook."""
    chunks: list[Chunk] = []
    spans = SpanLevels(text, level)
    whole = frozenset({spans.top})
    heading, heading_levels = "", frozenset[Classification]()
    lines: list[str] = []
    body_start = offset = start
    seen: dict[str, int] = {}  # a heading used again in the file is numbered (2), (3), ...

    def flush() -> None:
        raw = "\n".join(lines)
        body = raw.strip()
        if not body:
            return
        at = body_start + len(raw) - len(raw.lstrip())
        source = f"{relative}#{heading}" if heading else relative
        seen[source] = seen.get(source, 0) + 1
        if seen[source] > 1:
            source = f"{source} ({seen[source]})"
        parts = _split(body)
        for n, (where, end, part) in enumerate(parts, 1):
            # a long section's parts are told apart (one ID for all, the manifest listed
            # the same snippet included and excluded)
            named = f"{source} (part {n} of {len(parts)})" if len(parts) > 1 else source
            own = spans.within(at + where, at + end)
            chunks.append(Chunk(named, part, f"{heading or title}\n{part}", status,
                                whole | heading_levels | own))

    fence = ""  # the open code block's fence: a `# comment` in it is code, not a heading
    for line in text[start:].split("\n"):
        fence, fenced = _fence_after(fence, line)
        found = None if fence or fenced else _HEADING.match(line)
        if found:
            flush()
            heading, lines = found.group(2), []
            heading_levels = spans.within(offset, offset + len(line))
            body_start = offset + len(line) + 1
        else:
            lines.append(line)
        offset += len(line) + 1
    flush()
    return chunks


def _fence_after(fence: str, line: str) -> tuple[str, bool]:
    """The code block's fence open after ``line`` (``""``: none), given the one open
    before it, and whether ``line`` is a fence."""
    fenced = _CODE_FENCE.match(line)
    if fence:
        if fenced and fenced.group(1).startswith(fence) and not fenced.group(2).strip():
            fence = ""  # closed by the same character, at least as many of it
    elif fenced and not (fenced.group(1)[0] == "`" and "`" in fenced.group(2)):
        fence = fenced.group(1)
    return fence, fenced is not None


def _split(body: str) -> list[tuple[int, int, str]]:
    """``body`` cut at paragraphs into parts of about ``MAX_CHUNK_CHARS``, each with where
    it starts and ends in ``body``; never at a blank line inside a fenced code block (a
    part ended in an open fence, and the next began with the rest of the code as prose),
    except in a block too long for one part: there each part closes the block and the next
    opens it again with its own opening line (kept whole, all past the part's bound was
    lost, in no part)."""
    if len(body) <= MAX_CHUNK_CHARS:
        return [(0, len(body), body)]
    # each paragraph with where it starts, and the code block open after it (its fence
    # and the line that opened it; "" when none)
    paragraphs: list[tuple[int, str, str, str]] = []
    fence, opener, at = "", "", 0
    for paragraph in body.split("\n\n"):
        for line in paragraph.split("\n"):
            before = fence
            fence = _fence_after(fence, line)[0]
            opener = line if fence and not before else opener
        paragraphs.append((at, paragraph, fence, opener if fence else ""))
        at += len(paragraph) + 2
    units: list[tuple[int, int, str]] = []  # a code block's paragraphs as one
    group: list[tuple[int, str, str, str]] = []
    for item in paragraphs:
        group.append(item)
        if not item[2]:
            units.extend(_block_units(group))
            group = []
    units.extend(_block_units(group))
    parts: list[tuple[int, int, str]] = []
    for start, end, text in units:
        if parts and len(parts[-1][2]) + len(text) <= MAX_CHUNK_CHARS:
            where, _end, current = parts.pop()
            parts.append((where, end, f"{current}\n\n{text}"))
        else:
            parts.append((start, end, text))
    # a paragraph past the bound is cut, never through a credential (the egress redacts
    # the chunk later: a head left alone could be too short for its rule)
    cuts = [(w, e, p, cut_before_secret(p, MAX_CHUNK_CHARS * 2)) for w, e, p in parts]
    return [(w, min(e, w + cut), p[:cut]) for w, e, p, cut in cuts]


def _block_units(group: list[tuple[int, str, str, str]]) -> list[tuple[int, int, str]]:
    """Paragraphs from one outside a code block to the next (a block's paragraphs): one
    unit, or, longer than a part may be, units of about ``MAX_CHUNK_CHARS`` cut at the
    block's blank lines, each closing the block and the next opening it again."""
    if not group:
        return []
    first, last = group[0][0], group[-1][0] + len(group[-1][1])
    if last - first <= MAX_CHUNK_CHARS * 2:
        return [(first, last, "\n\n".join(p for _a, p, _f, _o in group))]
    units: list[tuple[int, int, str]] = []
    start, text, fence, opener, fresh = first, "", "", "", True
    for at, paragraph, after, opened in group:
        if not fresh and len(text) + len(paragraph) > MAX_CHUNK_CHARS:
            # cut inside the block: this unit closes it, the next opens it as it was
            units.append((start, at - 2, f"{text}\n{fence}"))
            start, text, fresh = at, f"{opener}\n", True
        text = f"{text}{paragraph}" if fresh else f"{text}\n\n{paragraph}"
        fence, opener, fresh = after, opened, False
    units.append((start, last, text))
    return units


def is_decision_record(path: Path) -> bool:
    """Whether a doc is a decision record: its file is named for a decision's number, in
    any case and whatever follows it (``ADR-0002-Use-Kafka.md``, ``adr-0003_x.md``), as
    ``adr new`` counts numbers. Only the scaffold's own shape was: a record named by hand
    was served as plain text, its frontmatter raw, and the decision it supersedes as
    current."""
    return ADR_NUMBER.match(path.name) is not None


def doc_paths(project: Path) -> list[Path]:
    """The markdown files under the project's ``docs/engineering``, sorted. A folder that
    leads out of the project (a link to / in a hostile checkout) is not walked, nor are
    linked subfolders. A loop of links is a file that cannot be read (:func:`read_doc`)."""
    root = project / DOCS_DIR
    if not root.is_dir() or not leads_within(root, project):
        return []
    return sorted(root.rglob("*.md"))


def read_doc(project: Path, path: Path) -> str | None:
    """The text of one of :func:`doc_paths`, ``None`` when it is not to be read: a link
    out of the project or to a file of it that is no markdown doc (:func:`_leads_to_a_doc`)
    or a loop of links (one stopped every plan and hook of a trusted
    project), not a regular file (a FIFO is never waited on, /dev/zero never read),
    larger than an entry file, or not UTF-8. Its lines end in LF, and a byte-order mark
    is read past, as an editor shows the file (with one, a decision record's frontmatter
    was not found: it was served as ``Proposed``, its raw frontmatter as text, and the
    decision it supersedes as current)."""
    text = _doc_text(project, path)
    return None if isinstance(text, _Unread) else text


#: what a markdown doc a link may lead to is named: its suffix, or a project's
#: conventional name without one (``CHANGELOG``, ``README``: a link to one was skipped)
_DOC_SUFFIXES: Final = frozenset({".md", ".markdown", ".mdown", ".mkd"})
_DOC_NAMES: Final = frozenset({"README", "CHANGELOG", "CHANGES", "HISTORY", "NEWS",
                               "CONTRIBUTING", "AUTHORS", "NOTICE", "HACKING", "INSTALL",
                               "TODO"})


def _leads_to_a_doc(project: Path, path: Path) -> bool:
    """Whether ``path``, its links followed, is a markdown file of the project (named
    ``*.md``, ``*.markdown``, or ``CHANGELOG``, ``README``, …), outside its ``.git``: a
    committed link to a file of the checkout that git never carried (the person's
    ``.env``, ``.git/config`` with its remote's token) served it as docs."""
    target, base = resolved(path), resolved(project)
    return target is not None and base is not None and target.is_relative_to(base) \
        and (target.suffix.lower() in _DOC_SUFFIXES or target.name in _DOC_NAMES) \
        and ".git" not in target.relative_to(base).parts


class _Unread(str):
    """Why a doc is not read (:func:`_doc_text`), told apart from its text by type."""


def _doc_text(project: Path, path: Path) -> str | _Unread:
    """:func:`read_doc`'s text, or why there is none: the overview names each doc no
    plan reads, and named them with every reason one may have, leaving the person to
    guess which to fix."""
    try:
        if not _leads_to_a_doc(project, path):
            return _Unread("a link out of the project or to a file of it that is no "
                           "markdown doc (.env, .git/config), or a loop of links")
        text = read_regular(path, limit=MAX_FILE_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        return _Unread("not UTF-8")
    except NotARegularFile:
        return _Unread("not a regular file")
    except FileNotFoundError:
        return _Unread("missing, or a link to nothing")
    except OSError as error:
        return _Unread(f"larger than {MAX_FILE_BYTES:,} bytes" if error.errno == errno.EFBIG
                       else f"unreadable ({error.strerror or type(error).__name__})")
    return file_text(text).replace("\r", "\n")  # a lone CR ends a line too (CommonMark)


def doc_rows(project: Path) -> list[dict[str, object]]:
    """``team status``'s list of the docs: each one's path and, for a decision record,
    its ``id``, ``title`` and ``status`` as plans read them (a record without an ``id`` is
    the number its file is named for: it was listed as ``None``), whether plans serve it
    as current, the records that retire it and those it supersedes in a loop
    (:class:`Standing`). A file that cannot be read is listed too, with none of them."""
    rows: list[dict[str, object]] = []
    adrs: list[Adr] = []
    for path in doc_paths(project):
        rows.append({"path": str(path.relative_to(project)), "id": None, "title": None,
                     "status": None, "current": None, "supersededBy": [], "loop": []})
        text = read_doc(project, path) if is_decision_record(path) else None
        if text is not None:
            fields, body = parse_frontmatter(text)
            adrs.append(Adr(path, fields, body, text))
    standing = standings(adrs)
    by_path = {str(adr.path.relative_to(project)): adr for adr in adrs}
    for row in rows:
        adr = by_path.get(str(row["path"]))
        if adr is not None:
            state = standing[adr.path]
            row.update(id=adr.id, title=adr.get("title") or None,
                       status=adr.get("status") or None, current=state.current,
                       supersededBy=list(state.retired_by), loop=list(state.loop))
    return rows


class Standing(msgspec.Struct, frozen=True):
    """Where a decision record stands among the others: whether plans serve it as
    current, the decided records that retire it, and those that supersede it while it
    supersedes them in turn (a loop: ADR-0001 supersedes ADR-0002 and ADR-0002
    ADR-0001). A loop retires no record in it: which decision is in force is not
    settled, so each is served and says so (each retiring the other, neither was
    served, while ``team status`` listed both as Accepted)."""

    current: bool
    retired_by: tuple[str, ...] = ()
    #: (only between records served: one marked superseded or deprecated since has
    #: settled it, and the other is in force)
    loop: tuple[str, ...] = ()


def standings(adrs: Sequence[Adr]) -> dict[Path, Standing]:
    """Each record's :class:`Standing`, by its path."""
    ids: dict[str, set[str]] = {}
    for adr in adrs:
        ids.setdefault(adr.key, set()).add(adr.id.upper())
    shared = frozenset(key for key, named in ids.items() if len(named) > 1)
    # only a decision taken can retire another: a rejected proposal retires nothing,
    # nor does a draft (``adr new`` scaffolds a Proposed record naming what it replaces;
    # the decision it would replace stayed out of every plan while it was drafted); one
    # retired since still does (marked superseded in its turn, what it had replaced was
    # served as current again)
    retirers: dict[str, list[Adr]] = {}
    named: dict[str, set[str]] = {}  # a decided record's key: the keys it supersedes
    for adr in filter(_decided, adrs):
        key = adr.key_among(shared)
        for target in adr.supersedes(shared):
            retirers.setdefault(target, []).append(adr)
            if target != key:
                named.setdefault(key, set()).add(target)
    current: dict[Path, bool] = {}
    loops: dict[Path, list[Adr]] = {}
    retired: dict[Path, list[Adr]] = {}
    for adr in adrs:
        key = adr.key_among(shared)
        # (nor does a record retire itself: one copied from the record it replaces kept
        # that one's ID, and naming it in its `supersedes` took both decisions out of
        # every plan)
        by = [other for other in retirers.get(key, []) if other.path != adr.path]
        loops[adr.path] = [other for other in by
                           if other.key_among(shared) != key
                           and _leads_to(named, key, other.key_among(shared))]
        retired[adr.path] = [other for other in by if other not in loops[adr.path]]
        current[adr.path] = not _inactive(adr) and not retired[adr.path]
    # a loop is open between records served: one of it marked superseded or deprecated
    # since has settled it, and one retired by a record outside the loop is out of it
    return {adr.path: Standing(
        current[adr.path], tuple(dict.fromkeys(o.id for o in retired[adr.path])),
        tuple(dict.fromkeys(o.id for o in loops[adr.path] if current[o.path]))
        if current[adr.path] else ()) for adr in adrs}


def _leads_to(named: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether following ``supersedes`` from ``start`` reaches ``goal``."""
    seen, todo = {start}, [start]
    while todo:
        for target in named.get(todo.pop(), ()):
            if target == goal:
                return True
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return False


def load_chunks(project: Path, base: Classification = "normal",
                unread: list[str] | None = None) -> list[Chunk]:
    """Every current chunk of the project's engineering docs; ``base``: the level of
    unmarked text (the policy's ``defaultClassification``); ``unread``: given, each file
    no plan reads is added to it, with why (the inspector names them)."""
    adrs: list[Adr] = []
    chunks: list[Chunk] = []
    left = MAX_DOCS_CHARS
    # decision records first: one left unread past the bound would leave the decision it
    # supersedes served as current
    paths = sorted(doc_paths(project), key=lambda p: not is_decision_record(p))
    for at, path in enumerate(paths):
        relative = str(path.relative_to(project))
        text = _doc_text(project, path)
        if isinstance(text, _Unread):
            if unread is not None:
                unread.append(f"{relative}: {text}")
            continue
        left -= len(text)
        if left < 0:  # the rest is not read (MAX_DOCS_CHARS)
            if unread is not None:
                unread += [f"{p.relative_to(project)}: past the {MAX_DOCS_CHARS:,} "
                           "characters of docs a plan reads" for p in paths[at:]]
            break
        if is_decision_record(path):
            fields, body = parse_frontmatter(text)
            adrs.append(Adr(path, fields, body, text))
        else:
            # after its frontmatter (a site generator's title and tags): served raw as a
            # passage, it took one of the four places before the text that answers
            # (only when each of its lines is YAML's: a doc may open with a rule and prose)
            fields, body = parse_frontmatter(text)
            after = len(text) - len(body)
            # (its title still matches the text it names: a site generator's doc often
            # has no heading of its own, and a question in the title's words found nothing)
            if not fields or not all(map(_YAML_LINE.match, text[4:after].split("\n"))):
                fields, after = {}, 0
            title = fields.get("title")
            chunks.extend(chunk_markdown(relative, text, level=base, start=after,
                                         title=title if isinstance(title, str) else ""))
    standing = standings(adrs)
    for adr in adrs:
        state = standing[adr.path]
        if not state.current:
            continue  # history, not the current decision
        status = adr.get("status") or "Proposed"
        body_at = len(adr.text) - len(adr.body)  # the body is the text's end
        spans = SpanLevels(adr.text, base)  # the summary is made of the frontmatter
        levels = spans.within(0, body_at) | {spans.top}
        relative = str(adr.path.relative_to(project))
        summary = "\n".join(filter(None, [
            f"{adr.id}: {adr.get('title')}", f"Decision: {adr.get('decision')}"
            if adr.get("decision") else "", f"Why: {adr.get('why')}" if adr.get("why") else ""]))
        match_text = "\n".join([summary, adr.get("affects"), adr.get("readWhen")])
        if state.loop:  # said to the model, which sees both: not matched on
            summary += (f"\nConflict: {', '.join(state.loop)} supersedes this record, which "
                        "supersedes it in turn; which decision is in force is not settled")
        chunks.append(Chunk(relative, summary, match_text, status, levels))
        chunks.extend(chunk_markdown(relative, adr.text, status, base, body_at))
    return chunks


def _decided(adr: Adr) -> bool:
    """Decided once (Accepted, Active…, Superseded or Deprecated since): not a draft
    (Proposed, Draft, or no status at all, which ``load_chunks`` shows as Proposed), nor
    Rejected."""
    status = (adr.get("status") or "").strip().lower()
    return bool(status) and not status.startswith((*DRAFTS, "rejected"))


def _inactive(adr: Adr) -> bool:
    status = (adr.get("status") or "").strip().lower()
    return bool(adr.get("superseded_by")) or status.startswith(INACTIVE)


class EngineeringDocs:
    """The planner's project-snippet source (a ``TextSource``)."""

    def __init__(self, limit: int = MAX_SNIPPETS) -> None:
        self.limit = limit

    def candidates(self, app: Waymarks, prompt: str,
                   egress: Egress | None = None) -> Sequence[TextInput]:
        """The best matching passages, each at least at the policy's
        ``defaultClassification``: unmarked doc text is unclassified text like any other
        (it went out as ``normal`` under a ``local-only`` default). The best ``limit``
        that ``egress``'s destination may receive, with those it may not met on the way
        (:func:`~waymarks.service.planning.first_admitted`)."""
        if not app.project_trusted:
            return ()
        from waymarks.service.planning import settings_for

        floor = settings_for(app).policy.default_classification
        return first_admitted((doc_snippet(chunk.source, chunk.status, chunk.text,
                                           chunk.levels, reason)
                               for chunk, reason in self.matching(app.cwd, prompt, floor)),
                              egress, self.limit)

    def matching(self, project: str, prompt: str,
                 base: Classification = "normal") -> list[tuple[Chunk, str]]:
        """Every passage sharing enough features with ``prompt``, best first."""
        wanted = features(prompt, query=True)
        if not wanted:
            return []
        needed = 1 if len(wanted) <= 2 else 2
        scored = []
        for n, chunk in enumerate(load_chunks(Path(project), base)):
            shared = wanted & features(chunk.match_text)
            if len(shared) >= needed:
                scored.append((len(shared), -n, chunk, shared))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        return [(chunk, f"matched {len(shared)} features")  # counts only: manifests hold no text
                for _n, _i, chunk, shared in scored]
