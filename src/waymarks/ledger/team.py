"""The team ledger's files: listing, reading a contributor's chain from a checkpoint,
checking an anchor, and appending under a lock.

Layout: ``<repository>/.waymarks/team/<contributor>.jsonl`` (see
:mod:`waymarks.core.team` for a line). A file arrives whole through git: its last line
counts without its final newline when it is a complete entry (a prefix of a line, one
still being written, never is: it is left for the next read), and an append to the
home's own file ends that line first.

What must stay true: a file is only ever appended to by this module (``O_APPEND``, an
exclusive ``flock``, ``fsync``), and only after the file's last complete line has been
verified as its chain's head, so an append never extends a broken chain. Symbolic links
are never followed (a pushed commit can turn a contributor file or the team directory into
one pointing anywhere on a teammate's machine): a linked file reads as unreadable and is
never appended to.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Final

import msgspec

from waymarks.core.team import (
    CONTRIBUTOR_RE,
    TeamEntry,
    TeamFormatError,
    genesis,
    line_hash,
    parse_line,
    verify_line,
)

SUFFIX: Final = ".jsonl"
_TAIL: Final = 1 << 16  # bytes read back to find a file's last line when appending
#: a contributor file larger than this is not read (a pushed file can be anything)
MAX_FILE_BYTES: Final = 256 << 20
#: a line longer than this breaks the chain (the longest shared text is far shorter)
MAX_LINE_BYTES: Final = 256 << 10


class TeamAppendError(Exception):
    """The contributor's own file cannot be appended to (message names no content)."""


class TeamDirectoryUnreadable(Exception):
    """The team directory exists but cannot be listed (message names no content)."""


class TeamLineTooLong(TeamAppendError):
    """The entry would be a line the readers refuse (appended, it would break the chain)."""


class TeamFile(msgspec.Struct, frozen=True):
    contributor: str
    path: str
    size: int
    mtime_ns: int
    #: a file replaced (git writes a new one; so do editors) is read whole again
    ino: int = 0
    #: what no program sets back: a line rewritten in place, the size kept and the mtime
    #: restored (``touch -r``, ``cp -p``), still changes it
    ctime_ns: int = 0


def linked_directory(directory: Path) -> str | None:
    """The name of the team directory or of its parent (``.waymarks``) when either is a
    symbolic link: a pushed commit can make one point anywhere on a teammate's machine,
    and nothing is read from or written there."""
    for each in (directory, directory.parent):
        if each.is_symlink():
            return each.name
    return None


def list_files(directory: Path) -> list[TeamFile]:
    """The contributor files of a team directory, by contributor (one ``scandir``); none
    when it is not a directory; :class:`TeamDirectoryUnreadable` when it or its parent is
    a symbolic link, or it cannot be listed."""
    found: list[TeamFile] = []
    linked = linked_directory(directory)
    if linked is not None:  # listed as unreadable, so `team status` says why it is empty
        raise TeamDirectoryUnreadable(f"{linked} is a symbolic link (never followed); team "
                                      "items are left out until it is a plain directory "
                                      "of the repository")
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if not name.endswith(SUFFIX):
                    continue
                contributor = name[: -len(SUFFIX)]
                if not CONTRIBUTOR_RE.fullmatch(contributor):
                    continue
                # a link or a directory is listed, read as unreadable: `team status` says
                # why its items are gone (a directory was skipped in silence)
                stat = entry.stat(follow_symlinks=False)
                found.append(TeamFile(contributor, entry.path, stat.st_size,
                                      stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as problem:  # a permission, say: its files cannot be told apart
        raise TeamDirectoryUnreadable(f"the team directory {_why(problem)}: team items are "
                                      "left out until it can be read (check its "
                                      "permissions)") from None
    return sorted(found, key=lambda f: f.contributor)


def misnamed(directory: Path) -> list[str]:
    """The names of the ``.jsonl`` entries of a team directory that :func:`list_files`
    does not read, their name being no contributor ID (a file renamed by hand: skipped in
    silence, its items in no plan); none when it cannot be listed (that is said)."""
    if linked_directory(directory) is not None:
        return []
    try:
        with os.scandir(directory) as entries:
            return sorted(e.name for e in entries if e.name.endswith(SUFFIX)
                          and not CONTRIBUTOR_RE.fullmatch(e.name[: -len(SUFFIX)]))
    except OSError:
        return []


@dataclass(slots=True)
class ChainRead:
    """What a read from a checkpoint found: the verified entries past it, the new
    checkpoint, and the first line that broke the chain (if any)."""

    entries: list[TeamEntry] = field(default_factory=list)
    offset: int = 0
    count: int = 0
    head: str = ""
    head_start: int = 0
    broken: str | None = None  # "line N: why"
    unreadable: str | None = None  # why the file could not be read at all
    lines: int = 0  # complete lines in the file, verified or not
    #: why the last line, without its final newline, was left out of a file read whole
    partial: str | None = None


def read_chain(path: str, contributor: str, *, offset: int = 0, count: int = 0,
               head: str | None = None, head_start: int = 0) -> ChainRead:
    """Verify and decode the complete lines of ``path`` after ``offset`` (which ends
    the ``count``-th line, whose hash is ``head``). A file arrives whole (through git),
    so a last line without its final newline that is a complete entry counts (a web
    UI's edit or an editor strips it: the line's item was dropped, and a clone that had
    seen it called the file truncated; a prefix of a line is never one); one that is
    not is left out, and :attr:`ChainRead.partial` says so."""
    prev = head if count else genesis(contributor)
    result = ChainRead(offset=offset, count=count, head=prev or "", head_start=head_start)
    try:
        with _opened(path, offset) as handle:
            _read_lines(handle, contributor, result)
    except OSError as problem:
        result.unreadable = _why(problem)
    return result


def _read_lines(handle: BinaryIO, contributor: str, result: ChainRead) -> None:
    """:func:`read_chain`'s lines, one at a time: a line longer than the limit is never
    held whole (a pushed file of one 200 MB line made each plan's process take 420 MB)."""
    position = result.offset
    while raw := handle.readline(MAX_LINE_BYTES + 2):  # (the line, its CR and its LF)
        ended = raw.endswith(b"\n")
        line = _content(raw[:-1] if ended else raw)
        try:
            if len(line) > MAX_LINE_BYTES:
                if not ended:  # (the rest of it, not kept: does a newline end it?)
                    ended = _skip_line(handle)
                raise TeamFormatError(f"longer than {MAX_LINE_BYTES} bytes")
            entry = verify_line(line, contributor, result.count + 1, result.head)
        except TeamFormatError as problem:
            if not ended:
                result.partial = (f"line {result.count + 1} has no final newline and is no "
                                  f"complete entry ({problem}): it is left out until the "
                                  "file is mended in git")
                break
            result.broken = f"line {result.count + 1}: {problem}"
            result.lines = result.count + 1 + _lines_left(handle)
            return
        result.entries.append(entry)
        result.count += 1
        result.head = entry.hash
        result.head_start = position
        position += len(raw)
        result.offset = position
    result.lines = result.count


def _skip_line(handle: BinaryIO) -> bool:
    """Read past the rest of a line; whether a newline ends it."""
    while chunk := handle.readline(1 << 20):
        if chunk.endswith(b"\n"):
            return True
    return False


def _lines_left(handle: BinaryIO) -> int:
    """The lines from the handle's position to the end (a last one without a newline
    counted), read in chunks."""
    count, last = 0, b"\n"
    while chunk := handle.read(1 << 20):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")


def _content(line: bytes) -> bytes:
    """A line without its line end's CR: a file saved with Windows line ends (CR LF: an
    editor, or a checkout the ledger's ``eol=lf`` did not reach) holds the entries as
    written, and git commits them with LF again; it was ``tampered``, every item withdrawn.
    A CR anywhere else is content, and breaks the line's hash."""
    return line[:-1] if line.endswith(b"\r") else line


def _read_from(path: str, offset: int, size: int = -1) -> bytes:
    """The bytes of ``path`` from ``offset`` (``size`` of them at most), without
    following a symbolic link."""
    with _opened(path, offset) as handle:
        return handle.read(size)


@contextmanager
def _opened(path: str, offset: int) -> Iterator[BinaryIO]:
    """``path`` open for reading at ``offset``, a regular file no larger than
    :data:`MAX_FILE_BYTES`, without following a symbolic link."""
    # non-blocking: a FIFO in the team directory is refused here, never waited on
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        found = os.fstat(fd)
        if stat.S_ISDIR(found.st_mode):
            raise OSError(errno.EISDIR, "a directory")
        if not stat.S_ISREG(found.st_mode):
            raise OSError(errno.ENODEV, "not a regular file")
        if found.st_size > MAX_FILE_BYTES:
            raise OSError(errno.EFBIG, "too large")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            handle.seek(offset)
            yield handle
    finally:
        os.close(fd)


def _why(problem: OSError) -> str:
    """A fixed description of a read or open failure (no path, no content)."""
    if problem.errno == errno.ELOOP:
        return "a symbolic link (never followed)"
    if problem.errno == errno.EFBIG:
        return f"larger than {MAX_FILE_BYTES >> 20} MiB (not read)"
    if problem.errno == errno.EISDIR:
        return "a directory, not a file"
    if problem.errno == errno.ENODEV:
        return "not a regular file (a FIFO or a device: not read)"
    return f"cannot be read ({errno.errorcode.get(problem.errno or 0, 'error')})"


def anchor_holds(path: str, head_start: int, offset: int, head: str) -> bool:
    """Whether the line ending at ``offset`` (starting at ``head_start``) still carries
    ``head``: the cheap check that a file grew by appends only since it was read."""
    try:
        line = _read_from(path, head_start, max(0, offset - head_start))
    except OSError:
        return False
    if not line.endswith(b"\n") or b"\n" in line[:-1]:
        return False
    line = _content(line[:-1])
    try:
        entry = parse_line(line)
    except TeamFormatError:
        return False
    return entry.hash == head and line_hash(line) == head


class TeamDirectoryLinked(TeamAppendError):
    """The team directory or its parent is a symbolic link (never written through)."""


def appendable(directory: Path, contributor: str | None) -> tuple[int, str] | None:
    """What :func:`append_entry` checks before it writes, read-only and without its lock
    (a rehearsal's: the person is asked only once these pass); ``contributor`` ``None``:
    no own file yet, only the directory is checked. An absent file passes (the append
    makes it). :class:`TeamAppendError` says what is wrong. Returns the ``seq`` and
    ``prev`` the next line would have (``None`` without a contributor), so that the
    rehearsal can make that line and measure it (:func:`refuse_too_long`)."""
    _refuse_linked(directory)
    if contributor is None:
        return None
    path = directory / f"{contributor}{SUFFIX}"
    try:  # non-blocking: a FIFO there is refused, never waited on
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return 1, genesis(contributor)
    except OSError as problem:
        raise _unopenable(path, problem) from None
    try:
        return _next_link(fd, path.name, contributor)[:2]
    finally:
        os.close(fd)


def refuse_too_long(line: bytes) -> None:
    """Raise :class:`TeamLineTooLong` when ``line`` (its newline included) is longer than
    every reader accepts: appended, it would stop them, and the writer's chain with it."""
    if len(line) - 1 > MAX_LINE_BYTES:
        raise TeamLineTooLong(f"the entry would be {len(line) - 1} bytes long; a team "
                              f"ledger line holds at most {MAX_LINE_BYTES}")


def _refuse_linked(directory: Path) -> None:
    linked = linked_directory(directory)
    if linked is not None:
        raise TeamDirectoryLinked(f"{linked} is a symbolic link; the team ledger must "
                                  "be a plain directory of the repository")


def _unopenable(path: Path, problem: OSError) -> TeamAppendError:
    return TeamAppendError(f"{path.name} {_why(problem)}; restore it from git "
                           "(`git checkout -- PATH`) before sharing")


def _next_link(fd: int, name: str, contributor: str) -> tuple[int, str, bytes]:
    """The ``seq`` and ``prev`` of the line to append to the open file ``fd``, once its
    last line is verified to be a complete line of ``contributor``'s chain, and what to
    write before it: a newline when that line has none (stripped in git, by a web UI's
    edit or an editor; :func:`read_chain` reads such a file whole), else nothing."""
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):
        raise _unopenable(Path(name), OSError(errno.ENODEV, "not a regular file"))
    size = found.st_size
    if not size:
        return 1, genesis(contributor), b""
    tail = os.pread(fd, min(size, _TAIL), max(0, size - _TAIL))
    ended = tail.endswith(b"\n")
    body = tail[:-1] if ended else tail
    start = body.rfind(b"\n") + 1
    if start == 0 and size > len(tail):
        raise TeamAppendError(f"{name}: its last line is too long")
    try:
        last = parse_line(body[start:])
    except TeamFormatError as problem:
        if not ended:
            raise TeamAppendError(f"{name} ends with an incomplete line; restore it from "
                                  "git (`git checkout -- PATH`) before sharing") from None
        raise TeamAppendError(f"{name}: the last line is damaged ({problem}); restore it "
                              "from git before sharing") from None
    if last.contributor != contributor:
        raise TeamAppendError(f"{name} holds another contributor's entries")
    return last.seq + 1, last.hash, b"" if ended else b"\n"


def append_entry(path: Path, contributor: str, make: Callable[[int, str], bytes],
                 after: Callable[[TeamEntry], None] | None = None) -> TeamEntry:
    """Append the line ``make(seq, prev)`` returns to the contributor's own file, under
    an exclusive lock, after verifying the file's last line is its chain's head
    (:func:`appendable`'s checks); ``after(entry)`` runs once it is durable, still under
    the lock (so two appends of this contributor are noted in the order they were
    written)."""
    _refuse_linked(path.parent)  # (before the mkdir, which would follow the link)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    except OSError as problem:
        raise _unopenable(path, problem) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        seq, prev, lead = _next_link(fd, path.name, contributor)
        line = make(seq, prev)
        refuse_too_long(line)  # every reader would stop at it
        written = os.write(fd, lead + line)  # (one write: the line and what ends the last)
        if written != len(lead + line):
            raise TeamAppendError(f"short write to {path.name}")
        os.fsync(fd)
        entry = verify_line(line[:-1], contributor, seq, prev)
        if after is not None:
            after(entry)
    finally:
        os.close(fd)
    return entry
