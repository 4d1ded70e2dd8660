"""Personal memory: the directory of entry files (:mod:`waymarks.personal.entry` is their
format) and its generated ``MEMORY.md`` index.

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
import errno
import fcntl
import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import Classification, classify, has_markers
from waymarks.core.secrets import redact
from waymarks.core.text import escaped
from waymarks.files.atomic import NotARegularFile, kind_of, write_atomic
from waymarks.files.dirs import make_private_dirs
from waymarks.files.errors import fix_for
from waymarks.files.paths import resolved
from waymarks.files.reading import read_regular, stamp_of
from waymarks.personal.entry import (
    INDEX_HEADING,
    INDEX_NAME,
    INDEX_STEM,
    LEGACY_NAME,
    MAX_BODY,
    MAX_FILE_BYTES,
    MAX_SLUG,
    NOT_AN_ENTRY,
    SLUG,
    Entry,
    PersonalMemoryError,
    check_slug,
    derive_slug,
    file_text,
    one_line,
    parse_entry,
    render_entry,
    summary_of,
    title_of,
)
from waymarks.personal.legacy import leveled_facts
from waymarks.personal.save_checks import checked_save


class Saved(msgspec.Struct, frozen=True):
    """Proof of persistence: what was written, where, whether it replaced an entry."""

    slug: str
    path: Path
    replaced: bool
    duplicate: bool = False


NOT_A_DIRECTORY = ("{} is not a directory; move it or set [personal] directory in the "
                   "home config")
NAMED_AS_INDEX = (f"the slug {INDEX_STEM!r} is the index's name ({INDEX_NAME}) on a disk "
                  "that ignores case; choose another --slug")
RELINK = "fix or remove the link, or set [personal] directory in the home config"


class NotAnEntry(PersonalMemoryError):
    """A slug whose file is there but is no entry Waymarks can read."""

    code = "not_an_entry"


class DirectoryUnavailable(PersonalMemoryError):
    """The directory cannot be used (a file where it should be, a link to nothing): the
    environment's problem, not the request's (the CLI's exit 1)."""

    code = "unavailable"


#: the entry file an index line links to: the first link, as a description after it
#: may link to another entry's file
LISTED_FILE = lazy(rf"\]\(({SLUG.pattern}\.md)\)(?= — |$)")


class Unread(msgspec.Struct, frozen=True):
    """A file of the directory that is not an entry Waymarks can read, and why."""

    file: str
    reason: str


class PersonalStore:
    def __init__(self, directory: Path, default_level: Classification = "normal",
                 listed: Collection[str] = frozenset({"normal"})) -> None:
        self.directory = directory
        #: the level of an entry stored without one (the home's ``defaultClassification``)
        self.default_level: Classification = default_level
        #: the levels whose entries have an index line: what a remote provider the home
        #: names nowhere may receive (its ``remoteDefaultAllowed``)
        self.listed = frozenset(listed)
        #: what went wrong before a listing (a legacy migration that failed), for the person
        self.problems: list[Unread] = []

    @property
    def index_path(self) -> Path:
        return self.directory / INDEX_NAME

    @property
    def legacy_path(self) -> Path:
        return self.directory.parent / LEGACY_NAME

    @property
    def legacy_backup(self) -> Path:
        """Where a converted legacy file is kept (its presence marks the conversion done)."""
        return self.legacy_path.with_name(LEGACY_NAME + ".bak")

    # -- reading ------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """Every conforming entry, sorted by name (then slug)."""
        return self.scan()[0]

    def scan(self) -> tuple[list[Entry], list[Unread]]:
        """Every conforming entry, sorted by name (then slug), and every other ``*.md``
        file of the directory with why it is not one (so a hand-written file never
        vanishes without a word), hidden ones (``.#x.md``) aside."""
        found: list[Entry] = []
        unread: list[Unread] = list(self.problems)
        if not self.directory.is_dir():
            problem = self.unreadable()
            if problem is not None:
                unread.append(Unread(str(self.directory),
                                     NOT_A_DIRECTORY.format("it").removeprefix("it is ")
                                     if self.directory.exists() else
                                     f"{problem.removeprefix('is ')}; {RELINK}"))
            return [], unread
        for path in sorted(self.directory.glob("*.md")):
            if path.name == INDEX_NAME or path.name.startswith("."):
                continue  # a hidden file is an editor's (Emacs' lock `.#x.md`) or the
                # system's (macOS' `._x.md`), not the person's: listed, to be renamed
            entry = self._load(path) if SLUG.fullmatch(path.stem) else (
                "its name is not a slug (lowercase letters, digits and '-'); rename it")
            if isinstance(entry, Entry):
                found.append(entry)
            else:
                unread.append(Unread(path.name, entry))
        return sorted(found, key=lambda e: (e.name.casefold(), e.slug)), unread

    def unreadable(self) -> str | None:
        """Why the directory cannot be read (a file where it should be; a link to nothing
        or a loop of links, there or on its way: a drive that is not mounted), else
        ``None`` (a missing one is empty; a broken link read as missing, so the person's
        entries were "no personal memory yet", and a save was asked about and failed)."""
        d = self.directory
        if d.is_dir():
            return None
        if d.exists():
            return "is not a directory"
        for path in (d, *d.parents):
            if path.exists():
                return None
            if path.is_symlink():
                where = "is" if path == d else "is under"
                return f"{where} {'a link to nothing' if resolved(path) else 'a loop of links'}"
        return None

    def check_readable(self) -> None:
        """Raise :class:`DirectoryUnavailable` when :meth:`unreadable` names a problem."""
        problem = self.unreadable()
        if problem is not None:
            raise DirectoryUnavailable(NOT_A_DIRECTORY.format(self.directory)
                                       if self.directory.exists() else
                                       f"{self.directory} {problem}; {RELINK}")

    def unusable(self) -> str | None:
        """Why a save could not be made here, found without changing anything (a tool
        asks nobody about a save that cannot happen), else ``None``: the directory is a
        file or cannot be created, cannot be written (a read-only file system, a
        permission), or its index or lock is not a regular file or cannot be written
        (what :meth:`save` would refuse)."""
        d = self.directory
        problem = self.unreadable()
        if problem is not None:
            return problem
        if not d.exists():  # made on the first save: a file on its way stops that
            nearest = next((p for p in d.parents if p.exists()), None)
            if nearest is None:
                return None
            if not nearest.is_dir():
                return "cannot be created (a file is in its way)"
            denied = _unwritable(nearest)
            return None if denied is None else f"cannot be created ({denied})"
        denied = _unwritable(d)
        if denied is not None:  # the lock, each entry and the index are made in it
            return f"cannot be written ({denied})"
        for path, what in ((self.index_path, "an index"), (d / ".lock", "a lock")):
            if path.is_symlink() or (path.exists() and not path.is_file()):
                return f"has {what} that is not a regular file"
        lock = d / ".lock"
        if lock.exists() and not _access(lock, os.R_OK | os.W_OK):
            return "has a lock that cannot be opened for writing (permission denied)"
        return None

    def get(self, slug: str) -> Entry | None:
        path = self._path(check_slug(slug))
        return self._read(path) if path.is_file() else None

    def index_text(self, entries: list[Entry] | None = None, among: str | None = None) -> str:
        """``MEMORY.md``'s text. A reader may inject the index as it is, into a model no
        one named: an entry has a line only when such a model may receive it (its level in
        :attr:`listed`), its file name included, and a credential a hand edit put in a name
        or description is redacted, as plans redact it. With ``among`` (an index's text),
        only the entries whose file a line of that text links to have one: a plan never
        adds one."""
        files = None if among is None else {
            m.group(1) for line in among.splitlines()
            if line.startswith("- [") and (m := LISTED_FILE.search(line))}
        lines = [f"- [{_index_value(e.name)}]({e.file_name})"
                 + (f" — {_index_value(e.description)}"
                    if e.description.strip() else "")
                 for e in (self.entries() if entries is None else entries)
                 if self._level(e) in self.listed and (files is None or e.file_name in files)]
        return "\n".join([INDEX_HEADING, "", *lines]).strip() + "\n"

    def _level(self, entry: Entry) -> Classification:
        """The level of the entry's index line, read as a plan reads it: its
        classification, else the default level, raised by the markers of its text (its
        name and description are made of it) and of its name and description."""
        level = entry.classification or self.default_level
        if has_markers(entry.body):
            level = classify(entry.body, level)
        return classify(f"{entry.name} — {entry.description}", level)

    def correct_index(self, entries: list[Entry]) -> None:
        """Remove from the index what it should not list: the lines of entries this home's
        :attr:`listed` leaves out (one an older version wrote, or one written before the
        home's policy changed, or by a home sharing the directory that allows more) and of
        entries that are gone. Nothing is added (a save, forget or ``personal index``
        writes the whole index), so homes sharing a directory with different policies
        settle on what each allows instead of taking turns rewriting it on every plan.
        Only an index that is there is rewritten, from the entries and index read again
        under the lock; one that cannot be read or written is left as it is (a plan never
        fails for it)."""
        try:
            if self._corrected(entries) is None:
                return
            with self._locked():
                self._check_index()
                corrected = self._corrected(self.entries())
                if corrected is not None:
                    self._write_atomic(self.index_path, corrected)
        except (OSError, PersonalMemoryError):
            return

    def _corrected(self, entries: list[Entry]) -> str | None:
        """The index with only the lines :meth:`correct_index` keeps, ``None`` when that
        is what it holds (a missing index raises ``FileNotFoundError``). One too large to
        read keeps no line: none of them can be checked, and a reader injects it whole."""
        try:
            data = read_regular(self.index_path, limit=MAX_FILE_BYTES)
        except OSError as exc:
            if exc.errno != errno.EFBIG:
                raise
            data = b""
        current = data.decode("utf-8", "replace")
        corrected = self.index_text(entries, among=current)
        return None if corrected == current else corrected

    def _read(self, path: Path) -> Entry | None:
        entry = self._load(path)
        return entry if isinstance(entry, Entry) else None

    def _load(self, path: Path) -> Entry | str:
        """The entry at ``path``, or why it is not one (one line, for ``personal list``).
        Nothing here waits or reads without bound: a FIFO or device named like an entry,
        or a huge file, must not stop every plan."""
        if not self._inside(path):
            return "a link to something other than an entry file of the directory"
        try:
            data = read_regular(path, limit=MAX_FILE_BYTES)
        except FileNotFoundError:
            return "a link to nothing"
        except NotARegularFile:
            return "not a regular file"
        except OSError as exc:
            return (f"larger than {MAX_FILE_BYTES:,} bytes" if exc.errno == errno.EFBIG
                    else f"cannot be read ({exc.strerror})")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return "not UTF-8 text; save it as UTF-8"
        return parse_entry(path.stem, file_text(text)) or NOT_AN_ENTRY

    def _inside(self, path: Path) -> bool:
        """Whether ``path`` is a file of the directory that may be read or written as an
        entry: a link may lead only to another entry file of it (a slug-named ``*.md``),
        never out, nor to the index or the lock (a write through it would be lost), and
        a loop of links is no entry (it raised ``RuntimeError`` and stopped every plan)."""
        target, directory = resolved(path), resolved(self.directory)
        if target is None or directory is None:  # a loop of links: an unreadable file
            return False
        try:
            return target.parent == directory and (
                not path.is_symlink() or (target.suffix == ".md" and target.name != INDEX_NAME
                                          and SLUG.fullmatch(target.stem) is not None))
        except OSError:
            return False

    def _path(self, slug: str) -> Path:
        """The entry file of ``slug``, checked before anything is asked or written: a link
        leading outside the directory, or a name that holds something other than a
        regular file (a FIFO, a directory), is refused (a link to another entry is
        followed when written, :meth:`_write_atomic`)."""
        path = self.directory / f"{slug}.md"
        if path.is_symlink() and not self._inside(path):
            raise NotAnEntry(f"{slug}.md is a link to something other than an entry file "
                             f"of {self.directory}; refusing to use it")
        if path.exists() and not path.is_file():
            raise NotAnEntry(f"{slug}.md is not a regular file; refusing to use it")
        return path

    def existing(self, slug: str) -> bool:
        """Whether ``slug`` names an entry (a save replaces it). A file that is there but
        is no entry Waymarks can read is refused (:class:`NotAnEntry`): a save or a forget
        would destroy what the person wrote, which ``personal list`` does not show."""
        return self._current(slug) is not None

    def _current(self, slug: str) -> Entry | None:
        """The entry ``slug`` names, read once, ``None`` when there is none
        (:meth:`existing`)."""
        path = self._path(check_slug(slug))
        if not (path.exists() or path.is_symlink()):
            return None
        found = self._load(path)
        if not isinstance(found, Entry):
            raise NotAnEntry(f"{path.name} exists but is not an entry Waymarks can read "
                             f"({found}); rename it or choose another slug")
        return found

    # -- writing ------------------------------------------------------------------------

    def save(self, text: str, *, slug: str | None = None, name: str | None = None,
             description: str | None = None, type: str | None = None,
             classification: str | None = None, limit: int = MAX_BODY) -> Saved:
        """Write one entry (a new one, or the one ``slug`` names) and rebuild the index.

        Replacing keeps the entry's ``type`` and ``classification`` unless new ones are
        given (a replacement never silently turns feedback into ``user``, nor drops a
        privacy level); a new entry without a type is ``user``."""
        explicit = checked_save(text, slug=slug, name=name, description=description,
                                type=type, classification=classification, limit=limit)
        title = one_line(name) if name and name.strip() else title_of(text)
        summary = one_line(description) if description and description.strip() \
            else summary_of(text, title)
        if explicit == INDEX_STEM and not self.directory.exists():  # no older one to
            raise PersonalMemoryError(NAMED_AS_INDEX)  # replace; the lock makes the home
        wanted = Entry("", title, summary, type or "user", text.strip(), classification)
        with self._locked():
            # only an explicit slug replaces: a derived one that is taken gets a suffix,
            # unless that entry is this one already (a save run twice made two)
            self._check_index()
            chosen, same = (explicit, False) if explicit else self._free_slug(
                derive_slug(title), wanted)
            path = self._path(chosen)
            if same:  # (``duplicate``) its index line, as a save killed before it lacks
                self._write_index()
                return Saved(chosen, path, replaced=False, duplicate=True)
            # read once: read again for its type and level, a file an editor was writing
            # in place then was no entry, and the replacement dropped its classification
            previous = self._current(chosen)
            replaced = previous is not None
            if chosen == INDEX_STEM and not replaced:  # (an older one is still replaced)
                raise PersonalMemoryError(NAMED_AS_INDEX)
            entry = Entry(chosen, title, summary,
                          type or (previous.type if previous else "user"), text.strip(),
                          classification or (previous.classification if previous else None))
            self._write_atomic(path, render_entry(entry))
            self._write_index()
        return Saved(entry.slug, path, replaced)

    def _free_slug(self, base: str, wanted: Entry | None = None) -> tuple[str, bool]:
        """``base``, or ``base-2``, ``base-3`` … : the first that names no file yet (nor a
        link, even one leading nowhere), ``False``; or, ``True``, one before it whose
        entry is ``wanted`` already (its slug aside)."""
        for n in range(1, 10_000):
            slug = base if n == 1 else f"{base[:MAX_SLUG - len(str(n)) - 1]}-{n}"
            path = self.directory / f"{slug}.md"
            if not (path.exists() or path.is_symlink()):
                return slug, False
            if wanted and self._read(path) == msgspec.structs.replace(wanted, slug=slug):
                return slug, True
        raise PersonalMemoryError("too many entries share this name; pass --slug")

    def forget(self, slug: str) -> bool:
        slug = check_slug(slug)
        if self.unreadable() is None and not self.directory.exists():
            return False  # nothing to forget: nothing made (the lock made the home too)
        with self._locked():
            self._check_index()
            if not self.existing(slug):
                return False
            self._path(slug).unlink()
            self._write_index()
        return True

    def rebuild_index(self) -> Path:
        with self._locked():
            self._check_index()
            self._write_index()
        return self.index_path

    def migrate_legacy(self) -> int | None:
        """Convert a legacy single-file ``memory.md`` (``- YYYY-MM-DD — text`` lines) into
        entries once, keeping the original as ``memory.md.bak``; the number of entries
        written, or ``None``: nothing to do (no legacy file, or already migrated: the
        backup exists). It completes whatever one fact does: a fact already an entry's
        text (a run that stopped halfway wrote it) is not written again, and one that
        cannot be written is skipped (the backup keeps it)."""
        backup = self.legacy_backup
        if backup.exists() or not self.legacy_path.is_file():
            return None
        with self._locked():
            if backup.exists() or not self.legacy_path.is_file():
                return None  # another process migrated it meanwhile
            read_as = stamp_of(self.legacy_path)
            try:  # bounded as an entry file is: it is tried on every command until done
                # past a byte-order mark, as an entry is (with one, the first line was
                # read with it: a heading became an entry, front matter facts)
                lines = file_text(read_regular(self.legacy_path, limit=MAX_FILE_BYTES)
                                  .decode("utf-8")).splitlines()
            except OSError as exc:
                if exc.errno != errno.EFBIG:  # unreadable, or replaced meanwhile
                    raise PersonalMemoryError(
                        f"cannot be read ({exc.strerror or exc}); fix or move it, and "
                        "personal memory will migrate it then") from exc
                raise PersonalMemoryError(
                    f"larger than {MAX_FILE_BYTES:,} bytes, so it is not read; move its facts "
                    "into entries with `waymarks personal save` (or trim it)") from exc
            except UnicodeDecodeError as exc:
                raise PersonalMemoryError(
                    f"{self.legacy_path} cannot be read as UTF-8 text ({exc}); fix or move "
                    "it, and personal memory will migrate it then") from exc
            self._check_index()
            present = {one_line(entry.body) for entry in self.entries()}
            written = 0
            # each fact at the level of the marked spans it is in: a span over several
            # facts left each an unmarked entry, sent to remote models
            for fact, level in ((f.text, f.level) for f in leveled_facts(lines) if f.text):
                if one_line(fact) in present:
                    continue
                # the name, description and slug are what the index and every plan show:
                # made from the fact with its credentials redacted (the name held a token)
                shown = redact(fact)[0]
                title = title_of(shown)
                slug = self._free_slug(derive_slug(title))[0]
                # what the fact says beyond its name, as a saved entry's description is:
                # the whole fact again made every index line read "X — X"
                entry = Entry(slug, title, summary_of(shown, title), "user", fact, level)
                try:
                    self._write_atomic(self._path(entry.slug), render_entry(entry))
                except (PersonalMemoryError, OSError):
                    continue
                present.add(one_line(fact))
                written += 1
            self._write_index()
            if stamp_of(self.legacy_path) != read_as:
                # edited while its facts were written: renamed, what was added went to the
                # backup alone; kept, the next command converts it (the rest is present)
                return written
            os.replace(self.legacy_path, backup)  # the backup is the sign of completion
        return written

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The exclusive lock on ``<dir>/.lock``. It is opened without waiting and without
        following a link, and must be a regular file: a FIFO there would hang every save
        and plan, and a link could make Waymarks create a file anywhere."""
        self.check_readable()
        try:
            make_private_dirs(self.directory)  # <home>/memory: the home may be made here
        except OSError as exc:
            raise PersonalMemoryError(f"{self.directory} cannot be created ({exc.strerror}); "
                                      "fix it or set [personal] directory in the home "
                                      "config") from exc
        lock = self.directory / ".lock"
        redo = f"{lock} cannot be the lock: {{}}; remove it (Waymarks makes it anew)"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            found = _mode_of(lock)
            if found is not None and not stat.S_ISREG(found):
                # a link, a directory, a socket: the wrong kind of file, which removing fixes
                raise PersonalMemoryError(redo.format(f"it is {kind_of(found)}")) from exc
            # a read-only file system, a permission, a full disk: removing the lock fixes
            # none of them (and on a read-only file system it cannot be removed)
            # (its fix, when one is known: a folder marked immutable is named so)
            raise PersonalMemoryError(f"{lock} cannot be opened to lock personal memory "
                                      f"({exc.strerror or exc}); nothing changed"
                                      f"{fix_for(exc)}") from exc
        try:
            found = os.fstat(fd).st_mode
            if not stat.S_ISREG(found):
                raise PersonalMemoryError(redo.format(f"it is {kind_of(found)}"))
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _check_index(self) -> None:
        """Refuse before anything changes when the index could not be rewritten: a save
        or forget that wrote its entry and then failed would report a failure that did
        not happen (and a retry would duplicate the entry)."""
        path = self.index_path
        if path.is_symlink() or (path.exists() and not path.is_file()):
            what = "a symbolic link" if path.is_symlink() else "not a regular file"
            raise PersonalMemoryError(f"{path} is {what}; Waymarks rewrites the index there: "
                                      "move it away and run `waymarks personal index`. "
                                      "Nothing changed")

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


def _mode_of(path: Path) -> int | None:
    """What ``path`` is (its ``st_mode``, a link not followed), ``None`` when nothing is."""
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None


def _access(path: Path, mode: int) -> bool:
    """``os.access`` for this process's effective user where the platform can say so."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _unwritable(directory: Path) -> str | None:
    """Why files cannot be created in ``directory``, else ``None``: its file system is
    read-only (which binds root too), or a permission."""
    if _access(directory, os.W_OK | os.X_OK):
        return None
    try:
        read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return "a read-only file system" if read_only else "permission denied"


def _index_value(value: str) -> str:
    """A name or description as an index line shows it: one line, no credential, no
    control character."""
    return escaped(redact(one_line(value))[0])
