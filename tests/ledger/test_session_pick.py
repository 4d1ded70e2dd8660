"""Which file is a session of which project: header checks on every pick, atomic creation.

Real files in a real home; the crash is a real process that dies mid-create.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from waymarks.ledger.discovery import (
    canonical_project_path,
    files_without_header,
    in_project_dirs,
    is_project_session,
    list_sessions,
    newest_session,
    resolve_session,
    session_dir,
    session_file_name,
)
from waymarks.ledger.log import parse_header
from waymarks.ledger.session_file import SessionFile, SessionFileError, create_atomically

ROOT = Path(__file__).resolve().parents[2]


def make(home: Path, directory_of: Path, cwd: Path, stamp: str, sid: str) -> Path:
    """A session of ``cwd`` created in the directory of ``directory_of``."""
    path = session_dir(home, str(directory_of)) / session_file_name(stamp, sid)
    SessionFile.create(path, sid, stamp, str(cwd))
    return path


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path]:
    """Two projects whose names encode to the same session directory."""
    dashed, nested = tmp_path / "x" / "a-b", tmp_path / "x" / "a" / "b"
    dashed.mkdir(parents=True)
    nested.mkdir(parents=True)
    return Path(canonical_project_path(dashed)), Path(canonical_project_path(nested))


def test_twin_projects_share_a_directory_but_never_a_session(home: Path,
                                                             twins: tuple[Path, Path]) -> None:
    dashed, nested = twins
    assert session_dir(home, str(dashed)) == session_dir(home, str(nested))
    old = make(home, nested, nested, "2026-01-01T00:00:00.000Z", "11111111-aaaa")
    new = make(home, dashed, dashed, "2026-01-02T00:00:00.000Z", "22222222-bbbb")
    assert newest_session(home, str(nested)) == old  # not the newer file of the twin
    assert newest_session(home, str(dashed)) == new
    assert list_sessions(home, str(nested)) == [old]
    assert is_project_session(new, str(dashed)) and not is_project_session(new, str(nested))
    with pytest.raises(SessionFileError, match="no session '22222222'"):
        resolve_session(home, str(nested), "22222222")
    assert resolve_session(home, str(dashed), "22222222") == new
    assert resolve_session(home, str(nested), str(new)) == new.resolve()  # a path is a path


def test_files_without_a_complete_header_are_never_picked(home: Path, project: Path) -> None:
    cwd = canonical_project_path(project)
    good = make(home, Path(cwd), Path(cwd), "2026-01-01T00:00:00.000Z", "33333333-cccc")
    directory = good.parent
    empty = directory / session_file_name("2026-01-02T00:00:00.000Z", "44444444-dddd")
    empty.write_bytes(b"")
    cut = directory / session_file_name("2026-01-03T00:00:00.000Z", "55555555-eeee")
    cut.write_bytes(good.read_bytes()[:20])  # a header cut short: no newline
    garbage = directory / session_file_name("2026-01-04T00:00:00.000Z", "66666666-ffff")
    garbage.write_bytes(b'{"type":"message","id":"x"}\n{"type":"session"}\n')
    assert newest_session(home, cwd) == good
    assert list_sessions(home, cwd) == [good]
    assert files_without_header(home, cwd) == [(empty, False), (cut, False), (garbage, True)]


def test_a_session_file_whose_name_is_not_text_is_never_picked(home: Path,
                                                               project: Path) -> None:
    """A session file renamed with bytes that are not UTF-8 (``\\xff…``, which sorts after
    every dated name) was taken for the newest session, and every command of the project
    then failed with a traceback: its path cannot be stored in the database, which keeps
    paths as text. No session is read from such a name, as the sources listing reads none."""
    cwd = canonical_project_path(project)
    good = make(home, Path(cwd), Path(cwd), "2026-01-01T00:00:00.000Z", "77777777-aaaa")
    other = make(home, Path(cwd), Path(cwd), "2026-01-02T00:00:00.000Z", "88888888-bbbb")
    renamed = other.with_name("\udcff" + other.name)
    os.rename(other, renamed)
    assert newest_session(home, cwd) == good
    assert list_sessions(home, cwd) == [good]


def test_parse_header_follows_the_reader(home: Path, project: Path) -> None:
    assert parse_header(b'{"type":"session","id":"s","cwd":"/p","version":3}') is not None
    for line in (b'{"type":"session","id":"s"}', b'{"type":"message","id":"s","cwd":"/p"}',
                 b"not json", b"[" * 10_000):
        assert parse_header(line) is None


def test_a_symlinked_header_cwd_is_the_same_project(home: Path, project: Path,
                                                    tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(project)
    path = make(home, link, link, "2026-01-01T00:00:00.000Z", "77777777-aaaa")
    assert is_project_session(path, canonical_project_path(project))
    assert in_project_dirs(path, str(link), home, ())  # where Pi would put it for that cwd


def test_in_project_dirs_is_about_where_the_file_lies(home: Path, project: Path,
                                                      tmp_path: Path) -> None:
    cwd = str(project)
    placed = make(home, project, project, "2026-01-01T00:00:00.000Z", "88888888-aaaa")
    root = tmp_path / "pi-sessions"
    in_root = root / session_dir(home, cwd).name / placed.name
    in_root.parent.mkdir(parents=True)
    in_root.write_bytes(placed.read_bytes())
    loose = tmp_path / "shared.jsonl"
    loose.write_bytes(placed.read_bytes())
    assert in_project_dirs(placed, cwd, home, ())
    assert not in_project_dirs(in_root, cwd, home, ())
    assert in_project_dirs(in_root, cwd, home, (root,))
    assert not in_project_dirs(loose, cwd, home, (root,))
    renamed = placed.with_suffix(".txt")
    placed.rename(renamed)
    assert not in_project_dirs(renamed, cwd, home, ())  # no picker would list it


def test_create_never_replaces_and_leaves_no_temporary_file(home: Path, project: Path) -> None:
    path = session_dir(home, str(project)) / "s.jsonl"
    create_atomically(path, b"first\n")
    with pytest.raises(FileExistsError):
        create_atomically(path, b"second\n")
    assert path.read_bytes() == b"first\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["s.jsonl"]


@pytest.mark.parametrize("dies_at", ["fsync", "link"])
def test_a_crash_while_creating_leaves_no_session_file(home: Path, project: Path,
                                                       dies_at: str) -> None:
    """The process dies after the header is written to the temporary file (at its fsync,
    or just before it is linked into place): no ``.jsonl`` exists, so nothing is picked."""
    script = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        from waymarks.service.app import Waymarks
        def die(*args, **kwargs):
            os._exit(9)
        os.{dies_at} = die
        Waymarks(Path({str(home)!r}), cwd={str(project)!r}).session_new()
        sys.exit(0)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 9, done.stderr
    directory = session_dir(home, canonical_project_path(project))
    assert list(directory.glob("*.jsonl")) == []
    assert newest_session(home, str(project)) is None
