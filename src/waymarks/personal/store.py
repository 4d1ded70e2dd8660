"""Personal memory: one markdown file per entry, and a generated ``MEMORY.md`` index.

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
``classification: internal`` line (``normal`` … ``local-only``) sets the entry's privacy
floor; inline ``[ds4:…]`` markers in the text raise it further. Files that do not conform
are left alone and left out of the index.

The frontmatter is YAML, written and read with a YAML library (PyYAML): a value holding
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
cannot drive the terminal or editor that shows it.

Safety:
- slugs are ``[a-z0-9][a-z0-9-]*`` of at most 64 characters, so no name can reach outside
  the directory; an entry file (or the directory) that is a symbolic link leading out of
  the directory is refused;
- every write goes to a temporary file in the directory, is fsynced and renamed into place
  (``files.atomic.write_atomic``), under an exclusive lock on ``<dir>/.lock``, so
  concurrent saves from several processes never interleave and a reader never sees half a
  file; the index is rebuilt under the same lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.model import CLASSIFICATIONS
from waymarks.core.secrets import credential_kinds
from waymarks.core.text import escaped, is_unicode
from waymarks.files.atomic import NotARegularFile, write_atomic
from waymarks.files.reading import read_regular

ENTRY_TYPES: Final = ("user", "feedback", "project", "reference")
INDEX_NAME: Final = "MEMORY.md"
INDEX_HEADING: Final = "# Personal memory index"
LEGACY_NAME: Final = "memory.md"
MAX_SLUG: Final = 64
MAX_NAME: Final = 80
MAX_DESCRIPTION: Final = 300
MAX_BODY: Final = 20_000  # hand-written entries may be long; saved ones are bounded lower
MAX_SUMMARY: Final = 160  # a derived description: the index line stays short
MAX_FRONTMATTER: Final = 64 * 1024
_SLUG: Final = lazy(r"[a-z0-9][a-z0-9-]{0,63}")
_NOT_SLUG: Final = lazy(r"[^a-z0-9]+")
_SPACE: Final = lazy(r"\s+")
_DATE_PREFIX: Final = lazy(r"^\d{4}-\d{2}-\d{2}\s*[—–-]\s*")

EntryType = Literal["user", "feedback", "project", "reference"]


class PersonalMemoryError(ValueError):
    """A request the store refuses; the message says what to do instead."""


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


class Saved(msgspec.Struct, frozen=True):
    """Proof of persistence: what was written, where, and whether it replaced an entry."""

    slug: str
    path: Path
    replaced: bool


def one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def title_of(text: str) -> str:
    """A name for an entry from its text: first line, no leading date, at most 80 chars."""
    first = one_line(text.strip().splitlines()[0] if text.strip() else "")
    first = _DATE_PREFIX.sub("", first)
    return first[:MAX_NAME].rstrip() or "Personal memory"


def summary_of(text: str, name: str) -> str:
    """A description derived from ``text``: what it says beyond ``name``, on one line and
    shortened at a word to at most :data:`MAX_SUMMARY` characters; ``""`` when the name
    already says it all."""
    flat = one_line(text)
    rest = flat[len(name):].strip() if flat.startswith(name) else flat
    if len(rest) <= MAX_SUMMARY:
        return rest
    cut = rest[:MAX_SUMMARY - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def derive_slug(name: str) -> str:
    slug = _NOT_SLUG.sub("-", name.lower()).strip("-")[:MAX_SLUG].strip("-")
    return slug or "memory"


def check_slug(slug: object) -> str:
    """``slug`` if it is a valid slug, else :class:`PersonalMemoryError` (no echo of it)."""
    if not isinstance(slug, str) or not _SLUG.fullmatch(slug.strip()):
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


def parse_entry(slug: str, text: str) -> Entry | None:
    """The entry a file holds, or ``None`` when its frontmatter does not conform."""
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
    kind = fields.get("metadata.type")
    level = fields.get("classification") or None
    if not name or description is None or kind not in ENTRY_TYPES:
        return None
    if level is not None and level not in CLASSIFICATIONS:
        level = "local-only"  # an unknown level protects rather than exposes
    return Entry(slug, name, description, kind, body.strip(), level)


def _yaml_fields(head: str) -> dict[str, str] | None:
    """The string fields of a YAML frontmatter; ``None`` when it is not YAML at all."""
    if len(head) > MAX_FRONTMATTER:
        return {}
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
    return fields


def _legacy_fields(head: str) -> dict[str, str]:
    """Fields of a frontmatter an earlier version wrote without quoting (not YAML when a
    value holds ``: ``): ``key: value`` lines, and ``metadata:`` with indented lines."""
    fields: dict[str, str] = {}
    in_metadata = False
    for line in head.split("\n"):
        if line.startswith("  ") and in_metadata:
            key, _, value = line.strip().partition(":")
            fields[f"metadata.{key.strip()}"] = value.strip()
            continue
        in_metadata = line.rstrip() == "metadata:"
        key, sep, value = line.partition(":")
        if sep and not line.startswith(" "):
            fields[key.strip()] = value.strip()
    return fields


class PersonalStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @property
    def index_path(self) -> Path:
        return self.directory / INDEX_NAME

    @property
    def legacy_path(self) -> Path:
        return self.directory.parent / LEGACY_NAME

    # -- reading ------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """Every conforming entry, sorted by name (then slug)."""
        found = []
        if not self.directory.is_dir():
            return []
        for path in sorted(self.directory.glob("*.md")):
            if path.name == INDEX_NAME or not _SLUG.fullmatch(path.stem):
                continue
            entry = self._read(path)
            if entry is not None:
                found.append(entry)
        return sorted(found, key=lambda e: (e.name.casefold(), e.slug))

    def get(self, slug: str) -> Entry | None:
        path = self._path(check_slug(slug))
        return self._read(path) if path.is_file() else None

    def index_text(self, entries: list[Entry] | None = None) -> str:
        lines = [f"- [{escaped(one_line(e.name))}]({e.file_name})"
                 + (f" — {escaped(one_line(e.description))}"
                    if e.description.strip() else "")
                 for e in (self.entries() if entries is None else entries)]
        return "\n".join([INDEX_HEADING, "", *lines]).strip() + "\n"

    def _read(self, path: Path) -> Entry | None:
        if not self._inside(path):
            return None
        try:  # a FIFO named like an entry must not stop every plan
            text = read_regular(path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return parse_entry(path.stem, text.replace("\r\n", "\n"))

    def _inside(self, path: Path) -> bool:
        """Whether ``path`` resolves inside the directory (a link may not lead out)."""
        try:
            return path.resolve().parent == self.directory.resolve()
        except OSError:
            return False

    def _path(self, slug: str) -> Path:
        """The entry file of ``slug``, checked before anything is asked or written: a link
        leading outside the directory, or a name that holds something other than a
        regular file (a FIFO, a directory), is refused (a link to another entry is
        followed when written, :meth:`_write_atomic`)."""
        path = self.directory / f"{slug}.md"
        if path.is_symlink() and not self._inside(path):
            raise PersonalMemoryError(f"{slug}.md is a link leading outside {self.directory};"
                                      " refusing to use it")
        if path.exists() and not path.is_file():
            raise PersonalMemoryError(f"{slug}.md is not a regular file; refusing to use it")
        return path

    # -- writing ------------------------------------------------------------------------

    def save(self, text: str, *, slug: str | None = None, name: str | None = None,
             description: str | None = None, type: str | None = None,
             classification: str | None = None, limit: int = MAX_BODY) -> Saved:
        """Write one entry (a new one, or the one ``slug`` names) and rebuild the index.

        Replacing keeps the entry's ``type`` and ``classification`` unless new ones are
        given (a replacement never silently turns feedback into ``user``, nor drops a
        privacy level); a new entry without a type is ``user``."""
        if not isinstance(text, str) or not is_unicode(text) or not text.strip():
            raise PersonalMemoryError("memory text must be non-empty Unicode text")
        if len(text.strip()) > limit:
            raise PersonalMemoryError(f"memory text has {len(text.strip())} characters; the "
                                      f"limit is {limit}. Keep personal memory small")
        if type is not None and type not in ENTRY_TYPES:
            raise PersonalMemoryError(f"type must be one of {', '.join(ENTRY_TYPES)}")
        if classification is not None and classification not in CLASSIFICATIONS:
            raise PersonalMemoryError("classification must be normal, internal, sensitive "
                                      "or local-only")
        kinds = credential_kinds("\n".join(filter(None, (text, name, description))))
        if kinds:  # a credential would become a file, a slug, an index line in every plan
            raise PersonalMemoryError(
                f"the text holds what looks like a credential ({', '.join(kinds)}); Waymarks "
                "does not store credentials. Say where it is kept instead")
        title = one_line(name)[:MAX_NAME] if name and name.strip() else title_of(text)
        summary = one_line(description)[:MAX_DESCRIPTION] if description and \
            description.strip() else summary_of(text, title)
        explicit = check_slug(slug) if slug is not None else None
        with self._locked():
            # only an explicit slug replaces: a derived one that is taken gets a suffix
            chosen = explicit or self._free_slug(derive_slug(title))
            path = self._path(chosen)
            replaced = path.exists()
            previous = self._read(path) if replaced else None
            entry = Entry(chosen, title, summary,
                          type or (previous.type if previous else "user"), text.strip(),
                          classification or (previous.classification if previous else None))
            self._write_atomic(path, render_entry(entry))
            self._write_index()
        return Saved(entry.slug, path, replaced)

    def _free_slug(self, base: str) -> str:
        """``base``, or ``base-2``, ``base-3`` … : the first that names no file yet."""
        if not (self.directory / f"{base}.md").exists():
            return base
        for n in range(2, 10_000):
            candidate = f"{base[:MAX_SLUG - len(str(n)) - 1]}-{n}"
            if not (self.directory / f"{candidate}.md").exists():
                return candidate
        raise PersonalMemoryError("too many entries share this name; pass --slug")

    def forget(self, slug: str) -> bool:
        with self._locked():
            path = self._path(check_slug(slug))
            if not path.exists():
                return False
            path.unlink()
            self._write_index()
        return True

    def rebuild_index(self) -> Path:
        with self._locked():
            self._write_index()
        return self.index_path

    def migrate_legacy(self) -> int | None:
        """Convert a legacy single-file ``memory.md`` (``- YYYY-MM-DD — text`` lines) into
        entries once, keeping the original as ``memory.md.bak``; ``None``: nothing to do
        (no legacy file, or already migrated: the backup exists)."""
        backup = self.legacy_path.with_name(LEGACY_NAME + ".bak")
        if backup.exists() or not self.legacy_path.is_file():
            return None
        with self._locked():
            if backup.exists() or not self.legacy_path.is_file():
                return None  # another process migrated it meanwhile
            try:
                lines = self.legacy_path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                raise PersonalMemoryError(
                    f"{self.legacy_path} cannot be read as UTF-8 text ({exc}); fix or move "
                    "it, and personal memory will migrate it then") from exc
            facts = [ln.strip()[2:].strip() for ln in lines if ln.strip().startswith("- ")]
            for fact in filter(None, facts):
                title = title_of(fact)
                entry = Entry(self._free_slug(derive_slug(title)), title,
                              one_line(fact)[:MAX_DESCRIPTION], "user", fact)
                self._write_atomic(self._path(entry.slug), render_entry(entry))
            self._write_index()
            os.replace(self.legacy_path, backup)  # the backup is the sign of completion
        return len([f for f in facts if f])

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.directory.is_symlink() and not self.directory.resolve().is_dir():
            raise PersonalMemoryError(f"{self.directory} is not a directory")
        fd = os.open(self.directory / ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write_index(self) -> None:
        self._write_atomic(self.index_path, self.index_text())

    def _write_atomic(self, path: Path, text: str) -> None:
        """Replace ``path`` (readable by the person alone). A link to another file of the
        directory is written through: its target is replaced and the link stays; one
        leading out is refused, and so is anything else that is not a regular file (a
        clear error, nothing written)."""
        if path.is_symlink():
            if not self._inside(path):
                raise PersonalMemoryError(f"{path.name} is a link leading outside "
                                          f"{self.directory}; refusing to write through it")
            path = path.resolve()
        try:
            write_atomic(path, text, mode=0o600)
        except NotARegularFile as exc:
            raise PersonalMemoryError(f"{path} is not a regular file ({exc.strerror}); "
                                      "nothing written") from exc


def personal_directory(home: Path, raw_config: dict[str, object]) -> Path:
    """``[personal] directory`` from the configuration, else ``<home>/memory``."""
    section = raw_config.get("personal")
    configured = section.get("directory") if isinstance(section, dict) else None
    return Path(configured).expanduser() if isinstance(configured, str) and configured \
        else home / "memory"
