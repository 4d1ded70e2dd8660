"""The personal memory file format: one markdown file per entry, and the ``MEMORY.md`` index.

The files are canonical: a person may read, edit, add or delete them by hand, and every
read sees what is there now. An entry conforms when it starts with this frontmatter::

    ---
    name: Prefers small pull requests
    description: Keep PRs under ~300 lines; split refactors from features
    metadata:
      type: feedback
    ---
    Body text, as long as needed.

``type`` is one of ``user``, ``feedback``, ``project``, ``reference``. An optional
``classification: internal`` line (``normal`` … ``local-only``; under ``metadata:`` too,
and the stricter of the two counts) sets the entry's privacy floor; inline ``[ds4:…]``
markers in the text raise it further. Its key is read in any case (``Classification``);
a classification that is there but is no known level (empty, a list, a mapping, a
misspelling, or under a key a letter or two off: ``clasification``; a YAML merge key
``<<``, which may bring one in) is ``local-only``.
Files that do not conform are left alone and left out of the index.

The frontmatter is YAML, written and read with a YAML library (PyYAML; the shape written
here is read without it, to the same fields: :mod:`.plain_frontmatter`): a value holding
``: `` or `` #``, or starting with ``- ``, is quoted, so any YAML reader (Pi's, an
editor's) reads what Waymarks wrote. Values are read as plain strings (no ``yes`` →
true, no dates). A file an earlier version wrote with such a value unquoted is not valid
YAML; it is still read, line by line as before, and the next save rewrites it validly.

``MEMORY.md`` is ``# Personal memory index``, a blank line, then one
``- [Name](slug.md) — description`` line per conforming entry, sorted by name (without
`` — description`` when an entry has none). It is injected into every plan, so a
description never repeats the text: one that is not given is what the text says beyond
its name, shortened (none at all when the name says everything). Control characters in
a name or description (C0 such as ESC, DEL, C1) are written as ``\\uXXXX``, so the index
cannot drive the terminal or editor that shows it, and a credential in them is redacted
(a reader may inject the index as it is; the entry's own file keeps it).
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.marker_spans import cut_before_marker
from waymarks.core.model import CLASSIFICATIONS
from waymarks.core.secrets import cut_before_secret
from waymarks.personal.names import LEGACY_NAME as LEGACY_NAME  # re-exported

ENTRY_TYPES: Final = ("user", "feedback", "project", "reference")
INDEX_NAME: Final = "MEMORY.md"
INDEX_HEADING: Final = "# Personal memory index"
MAX_SLUG: Final = 64
MAX_NAME: Final = 80
MAX_DESCRIPTION: Final = 300
MAX_BODY: Final = 20_000  # hand-written entries may be long; saved ones are bounded lower
MAX_SUMMARY: Final = 160  # a derived description: the index line stays short
MAX_FRONTMATTER: Final = 64 * 1024
#: a file larger than this is no entry (it is not read): the frontmatter and the longest
#: body, both at four bytes a character, and room for the fences
MAX_FILE_BYTES: Final = 4 * (MAX_FRONTMATTER + MAX_BODY) + 1024
NOT_AN_ENTRY: Final = ("its frontmatter does not conform (---, name, description, "
                       "metadata: type: user, feedback, project or reference, ---)")
_LEVEL_KEYS: Final = ("classification", "metadata.classification")
_LEVEL_WORD: Final = "classification"
_ABSENT: Final = object()
SLUG: Final = lazy(r"[a-z0-9][a-z0-9-]{0,63}")
_NOT_SLUG: Final = lazy(r"[^a-z0-9]+")
_SPACE: Final = lazy(r"\s+")
_LINE_BREAK: Final = lazy(r"\r\n|[\n\r\x85\u2028\u2029]")
_DATE_PREFIX: Final = lazy(r"^\d{4}-\d{2}-\d{2}\s*[—–-]\s*")
#: a frontmatter fence line, ``---`` and any spaces or tabs after it (the first one found
#: after the opening fence is its end, as :func:`parse_entry` finds it)
_SPACED_FENCE: Final = lazy(r"(?m)^---[ \t]*$")

EntryType = Literal["user", "feedback", "project", "reference"]


class PersonalMemoryError(ValueError):
    """A request the store refuses; the message says what to do instead. ``code`` is
    the CLI's refusal code (``credential`` as ``memory add`` says it, ``too_long`` for a
    text, name or description over its limit, ``empty`` for a text with nothing in it
    (:mod:`waymarks.personal.save_checks`), ``not_an_entry``
    for a file there that is no entry, else ``invalid_argument``)."""

    code = "invalid_argument"


class CredentialRefused(PersonalMemoryError):
    code = "credential"


class TooLong(PersonalMemoryError):
    """A text, name or description over its limit: ``too_long``, as every other length
    limit says it (a script keys on the code)."""

    code = "too_long"


class Entry(msgspec.Struct, frozen=True):
    slug: str
    name: str
    description: str
    type: str
    body: str
    classification: str | None = None

    @property
    def file_name(self) -> str:
        return f"{self.slug}.md"

    @property
    def own_description(self) -> str | None:
        """The description when it adds to the text; ``None`` when it is empty or only
        repeats (part of) the text, so that a reader shows the text once."""
        said = one_line(self.description).removesuffix("…").strip()
        return None if not said or said in one_line(self.body) else self.description


def one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def cut_at(text: str, end: int) -> int:
    """Where to cut ``text`` to keep at most ``end`` characters: never through a credential
    (:func:`cut_before_secret`) nor a classification marker's tag
    (:func:`cut_before_marker`), so what is cut off keeps its tags whole (a derived
    name and description are shown side by side in every index line)."""
    while True:
        cut = cut_before_marker(text, cut_before_secret(text, end))
        if cut == end:
            return end
        end = cut


def title_of(text: str) -> str:
    """A name for an entry from its text: first line, no leading date, at most 80 chars."""
    first = one_line(text.strip().splitlines()[0] if text.strip() else "")
    first = _DATE_PREFIX.sub("", first)
    return first[:cut_at(first, MAX_NAME)].rstrip() or "Personal memory"


def summary_of(text: str, name: str) -> str:
    """A description derived from ``text``: what it says beyond ``name``, on one line and
    shortened at a word to at most :data:`MAX_SUMMARY` characters; ``""`` when the name
    already says it all."""
    flat = _DATE_PREFIX.sub("", one_line(text))  # as the name leaves a leading date out
    rest = flat[len(name):].strip() if flat.startswith(name) else flat
    if len(rest) <= MAX_SUMMARY:
        return rest
    cut = rest[:cut_at(rest, MAX_SUMMARY - 1)]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def derive_slug(name: str) -> str:
    """A slug from ``name``'s words outside marker spans above ``normal`` (the tags
    left out too): the slug is the file's name and what manifests and logs name an entry
    by, so ``[ds4:sensitive]I earn 250k…`` made ``ds4-sensitive-i-earn-250k-…``."""
    from waymarks.core.privacy import has_markers, parse_marked

    if has_markers(name):
        name = " ".join(s.text for s in parse_marked(name).segments if s.level == "normal")
    slug = _NOT_SLUG.sub("-", name.lower()).strip("-")[:MAX_SLUG].strip("-")
    # never the index's name: on a disk that ignores case (macOS, Windows) ``memory.md`` is
    # ``MEMORY.md``, and the index written after the entry replaced it
    return slug if slug and slug != INDEX_STEM else "entry"


#: the index's name as a slug would spell it (:data:`INDEX_NAME`, case folded)
INDEX_STEM: Final = "memory"


def check_slug(slug: object) -> str:
    """``slug`` if it is a valid slug, else :class:`PersonalMemoryError` (no echo of it)."""
    if not isinstance(slug, str) or not SLUG.fullmatch(slug.strip()):
        raise PersonalMemoryError(
            "invalid slug: use 1-64 lowercase letters, digits and '-', starting with a "
            "letter or digit (see `waymarks personal list`)")
    return slug.strip()


def _yaml() -> Any:
    """PyYAML, imported on first use (a plan for a person without entries never needs
    it: the Claude Code hook stays lean)."""
    import yaml

    return yaml


def render_entry(entry: Entry) -> str:
    yaml = _yaml()
    head: dict[str, object] = {"name": one_line(entry.name),
                               "description": one_line(entry.description)}
    if entry.classification:
        head["classification"] = entry.classification
    head["metadata"] = {"type": entry.type}
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    frontmatter = yaml.dump(head, Dumper=dumper, sort_keys=False, allow_unicode=True,
                            default_flow_style=False, width=1_000_000)
    return f"---\n{frontmatter}---\n{entry.body.strip()}\n"


def file_text(text: str) -> str:
    """A file's text as :func:`parse_entry` takes it, past what editors add: a byte-order
    mark, CR LF line ends, CR line ends (a file whose first fence ends in a lone CR;
    elsewhere a CR is the text's own), and spaces or tabs after the frontmatter's two
    fences, as YAML reads a ``---`` line (with them, a hand-edited entry was no entry)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if text.startswith("---\r"):
        text = text.replace("\r", "\n")
    opening = _SPACED_FENCE.match(text)
    if opening is None:
        return text
    closing = _SPACED_FENCE.search(text, opening.end())
    for fence in filter(None, (closing, opening)):  # the later one first: offsets hold
        text = f"{text[:fence.start()]}---{text[fence.end():]}"
    return text


def parse_entry(slug: str, text: str) -> Entry | None:
    """The entry ``text`` holds, or ``None`` when its frontmatter does not conform (a
    type in capitals conforms)."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    if end < 0:
        end = text.find("\n---", 3)
        if end < 0 or text[end + 4:].strip():
            return None
    head, body = text[4:end], text[end + 5:]
    fields = _yaml_fields(head)
    if fields is None:
        fields = _legacy_fields(head)
    name, description = fields.get("name"), fields.get("description")
    kind = fields.get("metadata.type", "").strip().lower()
    if not name or description is None or kind not in ENTRY_TYPES:
        return None
    # a hand edit may make them any length: every index line, plan and tool answer
    # carries them, so they are bounded here as a save bounds them
    return Entry(slug, _clipped(name, MAX_NAME), _clipped(description, MAX_DESCRIPTION), kind,
                 body.strip(), _level(fields))


def _clipped(value: str, limit: int) -> str:
    """``value`` cut to at most ``limit`` characters, the cut marked with an ellipsis (never
    through a credential nor a marker's tag: :func:`cut_at`)."""
    return value if len(value) <= limit else value[:cut_at(value, limit - 1)].rstrip() + "…"


def _level(fields: dict[str, str]) -> str | None:
    """The entry's classification: the stricter of ``classification`` and
    ``metadata.classification``; ``None`` when neither is there. A level that is present
    but not a known one (empty, a list, a mapping, a misspelling) is ``local-only``: it
    protects rather than exposes."""
    found = [fields[key].strip().lower() for key in _LEVEL_KEYS if key in fields]
    levels = [level if level in CLASSIFICATIONS else "local-only" for level in found]
    return max(levels, key=CLASSIFICATIONS.index) if levels else None


def _yaml_fields(head: str) -> dict[str, str] | None:
    """The string fields of a YAML frontmatter; ``None`` when it is not YAML at all. The
    shape Waymarks writes is read without PyYAML (:mod:`.plain_frontmatter`: the same
    fields; a hook does not import it), any other by :func:`_yaml_read`."""
    if len(head) > MAX_FRONTMATTER:
        return {}
    from waymarks.personal.plain_frontmatter import plain_fields

    plain = plain_fields(head)
    return plain if plain is not None else _yaml_read(head)


def _yaml_read(head: str) -> dict[str, str] | None:
    """:func:`_yaml_fields` as PyYAML reads them."""
    yaml = _yaml()
    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)  # every scalar a string
    try:
        data = yaml.load(head, Loader=loader)  # BaseLoader: strings, lists, dicts only
    except (yaml.YAMLError, RecursionError):
        return None
    if not isinstance(data, dict):
        return {}
    fields = {key: value for key, value in data.items()
              if isinstance(key, str) and isinstance(value, str)}
    metadata = data.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("type"), str):
        fields["metadata.type"] = metadata["type"]
    for key, mapping in (("classification", data), ("metadata.classification",
                                                    metadata if isinstance(metadata, dict)
                                                    else {})):
        level = _level_in(mapping)
        if level is not None:
            fields[key] = level
    if _repeats_a_level(yaml, head, loader):
        # YAML keeps a repeated key's last value: `classification: local-only` above an
        # older `classification: normal` exposed the entry. A repeated level (or
        # `metadata:`) is no known level: local-only
        fields["classification"] = ""
    return fields


def _level_in(mapping: dict[Any, Any]) -> str | None:
    """The level a YAML mapping gives, ``None`` when no key names one: the value of the
    one key that does (:func:`_level_key`); ``""``, no known level, when that value is no
    string (a list, a mapping), the key is a near miss, or two keys name it."""
    named = [(kind, value) for key, value in mapping.items() if (kind := _level_key(key))]
    if len(named) != 1:
        return "" if named else None
    kind, value = named[0]
    return value if kind == "exact" and isinstance(value, str) else ""


def _level_key(key: object) -> Literal["exact", "near"] | None:
    """Whether a frontmatter key names the level: ``classification`` in any case
    (``exact``: ``Classification: local-only`` was read as no level at all, and the entry
    went to remote models), or a key within two edits of it in any case (``near``:
    ``clasification``, ``classificaton``), which is taken as a level that is there but no
    known one: local-only, so a typo protects rather than exposes. A YAML merge key
    (``<<: *base``) is ``near`` too: it may bring a level in, which YAML readers that
    merge (``safe_load``, Pi's) read, but the loader here keeps ``<<`` as a plain key: the
    entry went to remote models as one with no level."""
    if not isinstance(key, str):
        return None
    folded = key.strip().lower()
    if folded == _LEVEL_WORD:
        return "exact"
    if folded == "<<":
        return "near"
    return "near" if _within_two_edits(folded, _LEVEL_WORD) else None


def _within_two_edits(word: str, other: str) -> bool:
    """Whether ``word`` becomes ``other`` by at most two insertions, deletions or
    substitutions (Levenshtein distance, stopped once every path is over two)."""
    if abs(len(word) - len(other)) > 2:
        return False
    previous = list(range(len(other) + 1))
    for i, letter in enumerate(word, 1):
        current = [i]
        for j, theirs in enumerate(other, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (letter != theirs)))
        if min(current) > 2:
            return False
        previous = current
    return previous[-1] <= 2


def _repeats_a_level(yaml: Any, head: str, loader: Any) -> bool:
    """Whether ``classification`` (any key naming it: :func:`_level_key`) or
    ``metadata`` appears twice at the top of the frontmatter, or ``classification``
    twice under ``metadata``."""
    try:
        node = yaml.compose(head, Loader=loader)
    except (yaml.YAMLError, RecursionError):
        return False
    if not isinstance(node, yaml.MappingNode):
        return False
    keys = [k.value for k, _v in node.value if isinstance(k, yaml.ScalarNode)]
    if sum(map(bool, map(_level_key, keys))) > 1 or keys.count("metadata") > 1:
        return True
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "metadata" and isinstance(
                value, yaml.MappingNode):
            inner = [k.value for k, _v in value.value if isinstance(k, yaml.ScalarNode)]
            return sum(map(bool, map(_level_key, inner))) > 1
    return False


def _legacy_fields(head: str) -> dict[str, str]:
    """Fields of a frontmatter an earlier version wrote without quoting (not YAML when a
    value holds ``: ``): ``key: value`` lines, and ``metadata:`` with indented lines."""
    fields: dict[str, str] = {}
    in_metadata = False
    # at every line break YAML (and an editor) knows: read at LF alone, a level after a
    # lone CR or NEL was part of the name, and the entry went to remote models
    for line in _LINE_BREAK.split(head):
        if line.startswith("  ") and in_metadata:
            key, _, value = line.strip().partition(":")
            _put(fields, "metadata.", key, value.strip())
            continue
        in_metadata = line.rstrip() == "metadata:"
        key, sep, value = line.partition(":")
        if sep and not line[:1].isspace():
            _put(fields, "", key, value.strip())
        elif sep and _level_key(key):
            # indented where no field is read (one space, a tab): a level was meant, so
            # it is no known one (local-only) rather than none (dropped, it went out)
            fields["classification"] = ""
    return fields


def _put(fields: dict[str, str], prefix: str, key: str, value: str) -> None:
    """A field of a legacy frontmatter. A key naming the level in any case is its
    ``classification``, a near miss of it no known level (:func:`_level_key`); a level
    given twice is no known level."""
    kind = _level_key(key)
    key = prefix + ("classification" if kind else key.strip())
    if kind == "near":
        value = ""
    fields[key] = "" if key in _LEVEL_KEYS and key in fields else value
