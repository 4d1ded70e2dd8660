"""``rebuild-index`` tells which step it is at, after the files are read too.

Its progress counted only the session files' bytes: once they were read, the replay,
the catch-up of every claim's subject terms and learned memory's rebuild ran in silence
(seconds at 100k), a full bar standing still as if the command had hung.
"""

from __future__ import annotations

import io

import pytest

from waymarks.cli import progress as terminal
from waymarks.service.app import Waymarks
from waymarks.service.rebuilding import STAGES


def test_rebuild_index_names_each_step_and_counts_the_claims(app: Waymarks) -> None:
    for n in range(3):
        app.remember(f"Service {n} listens on port {8000 + n}.")
    seen: list[tuple[str, int, int] | str] = []
    app.rebuild_index(lambda done, total: seen.append(("tick", done, total)), seen.append)
    assert [s for s in seen if isinstance(s, str)] == list(STAGES)
    after = seen[seen.index("indexing claim subjects") + 1:]
    assert after[0] == ("tick", 3, 3)  # every claim caught up, and counted
    assert after[1] == "rebuilding learned memory"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_terminal_bar_shows_a_step_that_never_counts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "DELAY_S", 0.0)
    stream = _Terminal()
    with terminal.TerminalProgress(stream).bar("rebuild") as bar:
        bar(10, 10)  # the files read
        bar.stage("replaying mutations")  # counts nothing: still named on the bar
        bar.progress.refresh()
        assert "rebuild: replaying mutations" in stream.getvalue()
        bar.stage("indexing claim subjects")
        bar(2, 4)
        bar.progress.refresh()
        assert "rebuild: indexing claim subjects" in stream.getvalue()
        assert "2/4" in stream.getvalue()


def test_a_step_named_before_the_delay_is_shown_once_it_passes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "DELAY_S", 0.0)
    stream = _Terminal()
    with terminal.TerminalProgress(stream).bar("rebuild") as bar:
        bar.stage("replaying mutations")  # nothing counted before: shown by its timer
        assert bar._timer is not None
        bar._timer.join()
        bar.progress.refresh()
        assert "rebuild: replaying mutations" in stream.getvalue()
