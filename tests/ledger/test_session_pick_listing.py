"""The listing a session pick starts from (``discovery._names_newest_first``): plain names
from one ``os.scandir``, where a pathlib glob and a sort of its paths cost every one-shot
command ~10 ms of CPU beside 2,000 sessions. It must pick and list exactly what the glob
did, whatever is in the folder: property-tested against it on random folders of real
files (odd and non-UTF-8 names, other suffixes, directories, FIFOs, links to files, to
nothing and to themselves, headers of this project and of another)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePath

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.ledger import discovery
from waymarks.ledger.discovery import list_sessions, newest_session, session_dir
from waymarks.ledger.session_file import SessionFile, SessionFileError

PROJECT = "/srv/app"


def glob_listing(home: Path, cwd: str) -> tuple[Path, list[str]]:
    """The listing as it was made before: ``Path.glob`` and a sort of the paths."""
    directory = session_dir(home, cwd)
    if not directory.is_dir():
        return directory, []
    found = sorted((p for p in directory.glob("*.jsonl") if discovery.text_name(p.name)),
                   reverse=True)
    return directory, [p.name for p in found]


#: bytes a name is made of: ASCII, a space, a newline, a dot, UTF-8 of "é" and "日", and
#: bytes that are no UTF-8 (a name Python keeps with lone surrogates)
NAME_BYTES = st.lists(st.sampled_from([b"a", b"Z", b"0", b"_", b"-", b" ", b"\n", b".",
                                       "é".encode(), "日".encode(), b"\xff", b"\x80"]),
                      min_size=0, max_size=6).map(b"".join)
SUFFIXES = st.sampled_from([b".jsonl", b".jsonl", b".JSONL", b".jsonl.bak", b".json", b""])
STAMPS = st.sampled_from(["2026-01-02T03-04-05-006Z", "2026-01-02T03-04-05-007Z",
                          "2025-12-31T23-59-59-999Z"])
KINDS = st.sampled_from(["ours", "ours", "other", "headerless", "directory", "fifo",
                         "link", "dangling", "loop"])
ENTRY = st.tuples(st.booleans(), STAMPS, NAME_BYTES, SUFFIXES, KINDS)


def _make(folder: bytes, entry: tuple[bool, str, bytes, bytes, str]) -> None:
    dated, stamp, name, suffix, kind = entry
    stem = (f"{stamp}_".encode() + (name or b"x")) if dated else name
    path = os.path.join(folder, stem + suffix)
    if stem + suffix in (b"", b".", b"..") or os.path.lexists(path):
        return
    if kind in ("ours", "other", "headerless"):
        if kind == "headerless":
            with open(path, "wb") as handle:
                handle.write(b'{"type":"sess')
        else:
            SessionFile.create(Path(os.fsdecode(path)), "0" * 8, stamp,
                               PROJECT if kind == "ours" else "/srv/other")
    elif kind == "directory":
        os.mkdir(path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        targets = [n for n in os.listdir(folder) if os.path.isfile(os.path.join(folder, n))]
        os.symlink(targets[0] if targets else b"gone", path)
    elif kind == "dangling":
        os.symlink(b"gone", path)
    else:
        os.symlink(os.path.basename(path), path)


def _outcome(call: Callable[[], object]) -> object:
    try:
        return call()
    except SessionFileError as exc:
        return ("refused", str(exc))


def check_the_pick_and_the_lists(entries: list[tuple[bool, str, bytes, bytes, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        folder = session_dir(home, PROJECT)
        folder.mkdir(parents=True)
        for entry in entries:
            _make(os.fsencode(folder), entry)
        assert discovery._names_newest_first(home, PROJECT) == glob_listing(home, PROJECT)
        now = [_outcome(lambda: newest_session(home, PROJECT)),
               _outcome(lambda: list_sessions(home, PROJECT))]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(discovery, "_names_newest_first", glob_listing)
            before = [_outcome(lambda: newest_session(home, PROJECT)),
                      _outcome(lambda: list_sessions(home, PROJECT))]
        assert now == before


@lanes(quick=15, long=150)  # each example makes a folder of real files
def test_the_pick_and_the_lists_are_the_globs(examples: int) -> None:
    run_property(examples, check_the_pick_and_the_lists, st.lists(ENTRY, max_size=12),
                 base=settings(deadline=None,
                               suppress_health_check=[HealthCheck.function_scoped_fixture]))


def test_a_pick_beside_many_sessions_sorts_no_path(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The pick sorted every session's path (pathlib compares their parts, ~20k
    comparisons beside 2,000 files), and made a path of each name: it sorts the names, and
    makes a path of those it reaches."""
    folder = session_dir(tmp_path, PROJECT)
    for n in range(300):
        stamp = f"2026-01-02T03-{n // 60:02d}-{n % 60:02d}-000Z"
        SessionFile.create(folder / f"{stamp}_{n:08x}.jsonl", f"{n:08x}", stamp, PROJECT)
    compared: list[object] = []
    original = PurePath.__lt__

    def counted(self: PurePath, other: PurePath) -> bool:
        compared.append(self)
        return original(self, other)

    monkeypatch.setattr(PurePath, "__lt__", counted)
    newest = newest_session(tmp_path, PROJECT)
    assert newest is not None and newest.name.endswith("_0000012b.jsonl")
    assert compared == []
