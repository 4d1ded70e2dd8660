"""The Python API's own argument checks: what the command line's parser refuses before
the service is called, refused by the service the same way for a program that embeds it
(a ``ServiceError`` with code ``invalid_argument``, or for a write the ``Rejected`` outcome
a write's refusal is; nothing is read or changed)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypeGuard

from waymarks.core.model import CUSTOM_TYPE_FAMILY_PREFIX
from waymarks.core.text import echoed, is_unicode, shell_command, visible
from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.session_file import not_a_file
from waymarks.service.outcomes import Rejected, ServiceError

#: why text holding a lone surrogate (what ``sys.argv`` holds for a byte that is not
#: UTF-8) is refused: no UTF-8 ledger line or database query can hold it (it raised a raw
#: ``UnicodeEncodeError`` from an ID, a reason or a scope, deep in the write)
_NOT_UNICODE = "is not valid Unicode (lone surrogates)"


def counts(**given: int | None) -> None:
    """Each count given is a whole number of at least 0 (``None``: not given)."""
    for name, value in given.items():
        if value is not None:
            whole_number(name, value)


def whole_number(name: str, value: object) -> int:
    """``value``, a whole number of at least 0 (a constructor's ``busy_timeout_ms`` given
    as text raised a raw ``TypeError`` at the object's first use), or refused."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ServiceError("invalid_argument", f"{name} must be a whole number of at "
                           f"least 0, not {echoed(repr(value))}")
    return value


def home_directory(home: str | os.PathLike[str], given: str = "home") -> Path:
    """``home`` as the home directory, or refused (``given``: how the caller named it, as
    the message says it: ``--home``, ``WAYMARKS_HOME``): a relative path (each working
    directory would have a home of its own), a name that is not UTF-8 text (it cannot be
    written into the database: the home, its database and a session file were created,
    and every later call there failed), or something there that is not a directory. A
    missing home is created on first use."""
    path = Path(_path_text(home, given))
    if not path.is_absolute():
        raise ServiceError("invalid_argument", f"{given} {path}: a relative path; give an "
                           f"absolute path (e.g. {Path.cwd() / path}, if that is the home "
                           "you mean), so every directory uses the same home")
    if not is_unicode(str(path)):
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")  # its bytes, escaped
        raise ServiceError("invalid_argument", f"{given} {shown}: not a UTF-8 path; "
                           "use a directory whose name is UTF-8 text")
    if os.path.lexists(path) and not os.path.isdir(path):  # a file, a dangling link
        raise ServiceError("invalid_argument", f"{given} {path}: "
                           f"{_not_a_directory(path)}; give a "
                           "directory (a missing one is created)")
    return path


def working_directory(cwd: str | os.PathLike[str] | None, given: str = "cwd", *,
                      existing: bool = False) -> str:
    """The project's working directory: ``cwd``, or the process's when ``None``. Refused:
    a path to something that is not a directory (a file named as the project committed
    into a project of that name), or to nothing when ``existing`` (a command line's
    ``--cwd``; a host's project may be gone, its items still read); a process's working
    directory that was deleted. An empty ``cwd`` is the process's too unless ``existing``
    (a command line's ``--cwd ""``, the constructor's ``cwd=""``: refused)."""
    text = "" if cwd is None else _path_text(cwd, given)
    if not text and (cwd is None or not existing):
        try:
            return os.getcwd()
        except FileNotFoundError:  # it said "No such file or directory (file)"
            raise ServiceError("io_error", "the working directory no longer exists (it was "
                               "deleted or moved); cd to an existing directory, or give "
                               f"{given} DIR") from None
    if not os.path.isdir(text) and (existing or os.path.lexists(text)):
        raise ServiceError("invalid_argument", _no_project_directory(text, given))
    return text


def _no_project_directory(text: str, given: str) -> str:
    """Why ``text`` is no project directory, with the fix (it said only "not a
    directory", of a path that does not exist too, and "a directory" of an empty one)."""
    leave = f"or leave {given} out to act in the current directory"
    if not text:
        return f"{given} is empty; give the project's directory, {leave}"
    if not os.path.lexists(text):
        return (f"{given} {text}: no such directory; give an existing project directory "
                f"(a new project: create it first, {shell_command(['mkdir', '-p', text])}), "
                f"{leave}")
    what = _not_a_directory(text)
    folder = os.path.dirname(os.path.abspath(text))
    if what == "not a directory" and os.path.isdir(folder):  # a file in the project
        return (f"{given} {text}: not a directory (a file); give the project's directory, "
                f"the file's own folder perhaps: {shell_command([given, folder])}")
    return f"{given} {text}: {what}; give the project's directory, {leave}"


def project_directory(cwd: str | os.PathLike[str] | None, *, existing: bool = False) -> str:
    """The project's directory: :func:`working_directory` of ``cwd``, canonical (links
    followed), refused when its name is not UTF-8 text. Every read of the project's items
    names it to the database, and no ledger line can hold it: a command run there failed
    with a traceback (a read) or was refused at the session's creation (a write)."""
    path = canonical_project_path(working_directory(cwd, existing=existing))
    if not is_unicode(path):
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")  # its bytes, escaped
        raise ServiceError("invalid_argument", f"the project directory {shown} is not a "
                           "UTF-8 path; run Waymarks from (or give --cwd) a directory whose "
                           "name is UTF-8 text")
    return path


def _not_a_directory(path: str | os.PathLike[str]) -> str:
    """What ``path``, there and not a directory, is said as: a link that loops or leads to
    nothing, or a FIFO, named as such (a loop was "not a directory", with a directory's
    name); a file "not a directory"."""
    return not_a_file(Path(path)) or "not a directory"


def _path_text(value: object, given: str) -> str:
    """A path given as text or as an ``os.PathLike`` (bytes are refused: names are text),
    holding no NUL (no path can: the object was made, and its first use raised a raw
    ``ValueError``)."""
    text = os.fspath(value) if isinstance(value, str | os.PathLike) else None
    if not isinstance(text, str):
        raise ServiceError("invalid_argument", f"{given} must be a directory's path (a str "
                           f"or os.PathLike naming it), not {echoed(repr(value))}")
    if "\0" in text:
        raise ServiceError("invalid_argument", f"{given} {echoed(repr(text))}: a path holds "
                           "no NUL character")
    return text


def recall_args(query: object, history: object, provider: object) -> None:
    """``recall``'s query (text), history (a list or tuple of the earlier turns' text) and
    provider (a name, or ``None``): anything else raised a raw ``AttributeError`` from the
    planner or the privacy policy, and a history given as one string was taken for one
    turn per character (the follow-up then inherited nothing)."""
    if not isinstance(query, str):
        raise ServiceError("invalid_argument", "the query must be text, not "
                           f"{type(query).__name__}")
    if not _texts(history):
        raise ServiceError("invalid_argument", "history must be a list or tuple of the "
                           f"earlier turns (text), not {echoed(repr(history))}")
    if provider is not None and not isinstance(provider, str):
        raise ServiceError("invalid_argument", "provider must be a provider's name (text) "
                           f"or None, not {echoed(repr(provider))}")


#: the most a session message or branch summary may hold, UTF-8 encoded: what a Claude
#: Code hook reads of its whole input (``hosts.claude_code.MAX_INPUT_BYTES``), so every
#: prompt a hook records fits, and more than a command line's arguments can hold
MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def message_text(text: object, what: str) -> str:
    """``text`` as a session entry may hold it, or refused: not text, not valid Unicode
    (a lone surrogate cannot be written: the session file was made, then the append
    failed), or longer than :data:`MAX_MESSAGE_BYTES`."""
    if not isinstance(text, str):
        raise ServiceError("invalid_argument", f"{what} must be text, not "
                           f"{type(text).__name__}; nothing was written")
    if not is_unicode(text):
        raise ServiceError("invalid_argument", f"{what} {_NOT_UNICODE}; nothing was written")
    if len(text) > MAX_MESSAGE_BYTES // 4 and len(text.encode()) > MAX_MESSAGE_BYTES:
        raise ServiceError("invalid_argument", f"{what} has {len(text.encode()):,} bytes; "
                           f"the limit is {MAX_MESSAGE_BYTES:,} (UTF-8); nothing was written")
    return text


def record_data(custom_type: str, data: object) -> None:
    """A custom record's type and data can be written as a session entry (JSON text), or
    refused: a lone surrogate or a value JSON cannot hold raised a raw error after the
    session file was made. A type of the pin and memory mutation family
    (``ds4-context-…``) is refused too: the ledger reads such an entry as a mutation, so it
    skipped every check of a write (a credential ``remember`` refuses was stored, active)
    and a malformed one was acknowledged with an entry ID."""
    import msgspec

    if not isinstance(custom_type, str) or not is_unicode(custom_type) or not custom_type:
        raise ServiceError("invalid_argument", "a record's type must be non-empty text; "
                           "nothing was written")
    if custom_type.startswith(CUSTOM_TYPE_FAMILY_PREFIX):
        raise ServiceError("invalid_argument", f"{echoed(custom_type)}: "
                           f"{CUSTOM_TYPE_FAMILY_PREFIX}… records are pin and memory "
                           "mutations, written by pin, unpin, remember, supersede_memory "
                           "and set_memory_status (which check them); nothing was written")
    try:
        msgspec.json.encode(data)
    except (TypeError, ValueError, msgspec.EncodeError) as exc:  # UnicodeEncodeError too
        raise ServiceError("invalid_argument", f"a {echoed(custom_type)} record's data "
                           f"cannot be written as JSON text ({type(exc).__name__}); "
                           "nothing was written") from None


def write_texts(required: Mapping[str, object], sources: object = (),
                **optional: object) -> Rejected | None:
    """A write's text arguments, refused (``invalid_argument``) unless each ``required`` one
    is text, each ``optional`` one text or ``None``, and ``sources`` a list or tuple of
    entry IDs, all valid Unicode (:data:`_NOT_UNICODE`). Only the status was checked: a
    list given as an ID, a reason, a scope, a classification or a key raised a raw
    ``AttributeError`` from deep in the write, and a string given as the sources was taken
    for one entry ID per character."""
    for name, value in (*required.items(), *optional.items()):
        if not isinstance(value, str) and (value is not None or name in required):
            return Rejected("invalid_argument", f"{name} must be text, not "
                            f"{type(value).__name__}; nothing was written")
        if isinstance(value, str) and not is_unicode(value):
            return Rejected("invalid_argument", f"{name} {_NOT_UNICODE}; nothing was written")
    if not _texts(sources):
        return Rejected("invalid_argument", "sources must be a list or tuple of entry IDs "
                        f"(text), not {echoed(repr(sources))}; nothing was written")
    if not all(is_unicode(source) for source in sources):
        return Rejected("invalid_argument", f"a source {_NOT_UNICODE}; nothing was written")
    return None


def source_path(cwd: str, source_file: str | None) -> str | None:
    """A pin's source file as recorded: relative to the project's directory, normalised;
    one with nothing visible in it is left as given, for the pin's decision to refuse
    (``empty``) as it refuses any empty text (joined first, ``""`` was recorded as the
    project's directory itself; the command line refuses ``--file ""``)."""
    if source_file is None or not visible(source_file):
        return source_file
    return os.path.normpath(os.path.join(cwd, source_file))


def _texts(value: object) -> TypeGuard[list[str] | tuple[str, ...]]:
    """Whether ``value`` is a list or tuple of strings (a string is not: it was taken for
    one item per character)."""
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def item_query(kind: object, ids: Iterable[str] | None) -> None:
    """``items``' ``kind`` (``pin`` or ``memory``: ``"pins"`` listed nothing, as if there
    were none) and ``ids``: ``None`` or item IDs, a list, tuple or set of valid Unicode
    text (an ID holding a lone surrogate raised a raw ``UnicodeEncodeError`` from the
    database query; one ID given as a string was taken per character, and matched none)."""
    if kind not in ("pin", "memory"):
        raise ServiceError("invalid_argument", "kind must be 'pin' or 'memory', not "
                           f"{echoed(repr(kind))}")
    if ids is not None and not isinstance(ids, list | tuple | set | frozenset):
        raise ServiceError("invalid_argument", "ids must be a list, tuple or set of item "
                           f"IDs (one ID too: [ID]), not {echoed(repr(ids))}")
    for item_id in ids or ():
        if not isinstance(item_id, str) or not is_unicode(item_id):
            shown = f"one {_NOT_UNICODE}" if isinstance(item_id, str) \
                else f"{echoed(repr(item_id))} is not text"
            raise ServiceError("invalid_argument", f"ids must be item IDs: {shown}")
