"""An index whose records another version of the text analysis wrote is indexed again by
the next recall. After the upgrade that folds "İ" (and curly apostrophes), a store's
records kept the old features: "İlker" stored as ``w:lker`` no longer met a query's
``w:ilker``, and recall selected nothing until ``rebuild-index``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.recall.analysis import Analysis, analyze
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store import recall_index

CLAIM = "İlker owns the billing exporter."
QUERY = "what does İlker own?"
NOTE = "recall_analysis"


def old_analyze(text: str) -> Analysis:
    """The analysis before the fold, as it behaved: "İlker" lost its first letter."""
    return analyze(text.replace("İ", ""))


def _note(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE name = ?", (NOTE,)).fetchone()
    return None if row is None else str(row[0])


def _set_note(db: sqlite3.Connection, note: str | None) -> None:
    db.execute("DELETE FROM meta WHERE name = ?", (NOTE,))
    if note is not None:
        db.execute("INSERT INTO meta (name, value) VALUES (?, ?)", (NOTE, note))


def index_as_old_code(db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch,
                      scenario: str) -> None:
    """Index memory items as the old analysis did: all of them, leaving no note (a store
    from before notes were kept) or another code's; or only those past the watermark,
    leaving the note as it was (a process of an earlier release caught up)."""
    kept = _note(db)
    with monkeypatch.context() as patch:
        patch.setattr(recall_index, "analyze", old_analyze)
        db.execute("BEGIN IMMEDIATE")
        if scenario != "caught-up-past-note":
            recall_index.reset(db)
        recall_index.RecallIndex(db).catch_up()
        _set_note(db, {"from-before-notes": None, "other-code": "0123456789abcdef 1"}.get(
            scenario, kept))
        db.execute("COMMIT")
    stored = db.execute("SELECT fields FROM recall_records WHERE text = ?",
                        (CLAIM,)).fetchone()[0]
    assert b"w:lker" in stored and b"w:ilker" not in stored


@pytest.mark.parametrize("long_lived", [False, True], ids=["one-shot", "long-lived"])
@pytest.mark.parametrize("scenario", ["from-before-notes", "other-code",
                                      "caught-up-past-note"])
def test_recall_indexes_again_what_other_analysis_code_wrote(
        make_app: Callable[..., Waymarks], home: Path, monkeypatch: pytest.MonkeyPatch,
        scenario: str, long_lived: bool) -> None:
    app = make_app(keep_recall_index=long_lived)
    assert isinstance(app.remember("The deploy window is Friday."), Committed)
    assert app.recall("when is the deploy window?", inherit=False).selected  # indexed
    written = app.remember(CLAIM)
    assert isinstance(written, Committed)
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    try:
        index_as_old_code(db, monkeypatch, scenario)
        generation = recall_index.RecallIndex(db).generation()

        assert app.recall(QUERY, inherit=False).selected == [written.id]
        stored = db.execute("SELECT fields FROM recall_records WHERE text = ?",
                            (CLAIM,)).fetchone()[0]
        assert b"w:ilker" in stored
        index = recall_index.RecallIndex(db)
        assert index.generation() == generation + 1  # in-memory copies start over
        assert index.current() and not index.behind()
        # indexed again once: the next recall finds the index current and keeps it
        assert app.recall(QUERY, inherit=False).selected == [written.id]
        assert index.generation() == generation + 1
    finally:
        db.close()


def test_an_empty_index_is_current_and_notes_the_code_it_indexes_with(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    app = make_app()
    assert app.recall(QUERY, inherit=False).selected == []  # no memory: nothing to do
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    try:
        index = recall_index.RecallIndex(db)
        assert index.current() and not index.behind() and _note(db) is None
        assert isinstance(app.remember(CLAIM), Committed)
        app.recall(QUERY, inherit=False)
        seq = db.execute("SELECT value FROM meta WHERE name = 'recall_seq'").fetchone()[0]
        assert _note(db) == f"{recall_index.analysis_fingerprint()} {seq}"
    finally:
        db.close()


def test_a_process_started_before_an_upgrade_keeps_the_digest_of_the_code_it_runs(
        tmp_path: Path) -> None:
    """The digest was read at the first recall: a server started before an upgrade noted
    the new files' digest for records its old code analysed, and new processes took
    them as current and never analysed them again. It is taken when the code is loaded."""
    import shutil
    import subprocess
    import sys

    src = tmp_path / "src"
    shutil.copytree(Path(__file__).parents[2] / "src" / "waymarks", src / "waymarks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    analysis = src / "waymarks" / "recall" / "analysis.py"
    script = (
        "import sys, pathlib\n"
        "from waymarks.store import recall_index\n"
        f"p = pathlib.Path({str(analysis)!r})\n"
        "if sys.argv[1] == 'upgraded under it':\n"
        "    p.write_text(p.read_text() + '\\n# an upgrade\\n')\n"
        "print(recall_index.analysis_fingerprint())\n")

    def digest(mode: str) -> str:
        done = subprocess.run([sys.executable, "-B", "-c", script, mode], cwd=tmp_path,
                              env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
                              capture_output=True, text=True, check=True)
        return done.stdout.strip()

    old = digest("as loaded")
    # the files change after the code was loaded: its digest stays the code's own
    assert digest("upgraded under it") == old
    assert digest("as loaded") != old  # a process started on the upgraded files
