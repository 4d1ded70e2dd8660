"""Which projects the person trusts with project-scoped pins and memory.

The list is a small JSON file in the home (``trusted-projects.json``), replaced
atomically (``files.atomic.write_atomic``) under an exclusive lock
(``trusted-projects.lock``, :mod:`waymarks.files.locks`): two terminals trusting at once
both read, change and write it in turn, and neither drops the other's change. Projects
are identified by their canonical real path, so a symlink and its target are one project.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from waymarks.core.c_json import loads
from waymarks.core.text import is_unicode
from waymarks.files.atomic import write_atomic
from waymarks.files.reading import Stamp, read_regular, stamp_of
from waymarks.ledger.discovery import canonical_project_path
from waymarks.service.outcomes import ServiceError

TRUST_FILE = "trusted-projects.json"
LOCK_FILE = "trusted-projects.lock"


class TrustStore:
    def __init__(self, home: Path) -> None:
        self.path = home / TRUST_FILE
        self.lock = home / LOCK_FILE
        self._cached: tuple[Stamp, list[str]] | None = None

    def projects(self) -> list[str]:
        """The trusted projects; the file is read again only when it changed (a request
        asks several times; :func:`~waymarks.files.reading.stamp_of` sees a change, an edit
        by hand in place that keeps the size and the mtime too)."""
        signature = stamp_of(self.path)
        if signature is None:
            if os.path.islink(self.path):  # one that loops or whose target is gone: no
                self._read()  # list to read as none (it untrusted every project unsaid)
            return []
        if self._cached is not None and self._cached[0] == signature:
            return list(self._cached[1])
        projects = self._read()
        self._cached = (signature, projects)
        return list(projects)

    def _read(self) -> list[str]:
        try:  # a FIFO in its place is refused, never waited on (it hung every command)
            data = loads(read_regular(self.path))  # (json.loads, no json package)
        except (OSError, ValueError, RecursionError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            message = f"{self.path}: unreadable trust list ({why}); fix or remove it"
            raise ServiceError("bad_trust_file", message) from exc
        projects = data.get("projects") if isinstance(data, dict) else None
        if not isinstance(projects, list) or not all(isinstance(p, str) for p in projects):
            raise ServiceError("bad_trust_file",
                               f"{self.path}: expected {{\"projects\": [paths]}}; fix or remove it")
        return sorted(projects)


    def trust(self, path: str, host: bool | None = None, cwd: str = "") -> tuple[str, bool]:
        """Trust ``path``; returns its canonical form and whether it was newly added.
        ``host``: what the host that owns project trust decided for ``cwd`` (Pi's), which
        a change here cannot override there (:func:`_host_decides`). A relative ``path``
        is ``cwd``'s (``--cwd DIR trust .`` trusted the process's directory, not DIR)."""
        project = _canonical(_against(path, cwd), "trust")
        _host_decides(host, project, cwd, trusting=True)
        if not os.path.isdir(project):  # (a missing one said "not a directory" too)
            what = "not a directory" if os.path.lexists(project) else "no such directory"
            raise ServiceError("invalid_argument", f"{path}: {what}; trust the project's "
                               "root folder, an existing one (`waymarks trust .` in it)")
        with self._turn():
            projects = self.projects()
            if project in projects:
                return project, False
            self._write([*projects, project])
        return project, True

    def untrust(self, path: str, host: bool | None = None, cwd: str = "") -> tuple[str, bool]:
        """Stop trusting ``path``; returns its canonical form and whether it was removed.
        A trusted folder that no longer exists is removed (its entry is all there is of
        it); a missing one that is not trusted is refused (``not_found``): a typo."""
        project = _canonical(_against(path, cwd), "untrust")
        _host_decides(host, project, cwd, trusting=False)
        with self._turn():
            projects = self.projects()
            if project not in projects:
                if not os.path.lexists(project):  # a typo said "Was not trusted", exit 0
                    from waymarks.core.text import unknown_id

                    raise ServiceError("not_found", unknown_id(
                        "trusted project", path, "(no such directory, and not in the trust "
                        "list)", "waymarks trust --list"))
                return project, False
            self._write([p for p in projects if p != project])
        return project, True

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """Hold the list for one read-modify-write (another process's change is read
        inside it: the file's stamp changed with its replace)."""
        from waymarks.files.locks import holding, open_lock  # a write's: not a recall's

        try:
            fd = open_lock(self.lock)
        except OSError as problem:
            raise ServiceError("io_error", f"{self.lock}: the trust list's lock cannot be "
                               f"opened ({problem.strerror or problem}); remove whatever is "
                               "there") from None
        with holding(fd):
            yield

    def _write(self, projects: list[str]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the home: private
        import json

        text = json.dumps({"projects": sorted(projects)}, indent=2) + "\n"
        write_atomic(self.path, text, mode=0o600)  # private, as it always was


def _host_decides(host: bool | None, project: str, cwd: str, *, trusting: bool) -> None:
    """Refuse, changing nothing, a change the host's own decision for its project
    (``host``, for ``cwd``) would hide: inside Pi, ``/context untrust .`` of a project
    Pi's trust store trusts said "No longer trusted" and project memory still went to the
    model (and ``trust`` of one Pi calls untrusted said "Trusted")."""
    if host is None or host is trusting or project != cwd:
        return
    if trusting:
        raise ServiceError("host_decides", f"Pi reports {project} untrusted, and inside Pi "
                           "that decides: trust the project in Pi first")
    raise ServiceError("host_decides", f"Pi's trust store trusts {project} (an entry in its "
                       "trust.json, or defaultProjectTrust \"always\" in its settings.json), "
                       "and inside Pi that decides: set its entry to false there and start "
                       "a new Pi session; nothing was changed")


def project_path(path: str, cwd: str, verb: str) -> str:
    """The canonical directory ``path`` names as seen from ``cwd`` (the project directory
    a command runs for: ``--cwd``, or Pi's project inside the bridge); an empty or unusable
    path is refused (``invalid_argument``, naming the command ``verb``)."""
    return _canonical(_against(path, cwd), verb)


def _against(path: str, cwd: str) -> str:
    """``path`` as seen from ``cwd`` (the project directory the command runs for); a path
    given as ``os.PathLike`` is taken, anything else refused (``None`` raised a raw
    ``AttributeError``)."""
    path = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(path, str):
        raise ServiceError("invalid_argument", "the project's path must be text (or "
                           f"os.PathLike), not {type(path).__name__}")
    if not cwd or not path.strip() or os.path.isabs(path) or path.startswith("~"):
        return path
    return os.path.join(cwd, path)


def _canonical(path: str, verb: str) -> str:
    """``path`` as the trust list holds it; ``verb`` (``trust`` or ``untrust``) is the
    command a refusal names (`untrust ""` was told to run `waymarks trust .`)."""
    if not path.strip():  # "" is the working directory: `trust "$UNSET"` trusted it
        raise ServiceError("invalid_argument", "the project's path is empty; give its root "
                           f"folder (e.g. `waymarks {verb} .` for this one)")
    try:
        project = canonical_project_path(path)
    except ValueError as exc:  # an embedded NUL byte
        raise ServiceError("invalid_argument", f"{path!r}: not a usable path ({exc})") from exc
    if not is_unicode(project):  # bytes that are not UTF-8: no session could name it
        raise ServiceError("invalid_argument", f"{path!r}: not a UTF-8 path; {verb} a "
                           "directory whose name is UTF-8 text")
    return project
