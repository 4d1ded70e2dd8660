"""A warm process embeds a prompt's query on a thread as soon as the prompt arrives.

In the Claude Code helper, a prompt's hybrid recall embedded the query (~10-15 ms of one
core) after the prompt was recorded (an ``fsync``) and the lexical candidates were read:
one after the other. The engine works outside the interpreter's lock, so the query is now
embedded beside that work (:func:`embed_ahead`), and the recall finds its vector among
the engine's latest (:meth:`~waymarks.semantic.e5.E5Embedder.query`: one call of the
engine at a time, the later caller waiting for the earlier and reading its result: the
same bits). Only where the recall will embed it: hybrid recall on, an embedder loaded
and vectors already held in memory for the app (a session's first warm prompt loads
them and embeds as it did). A follow-up, whose recall is by words, wastes that thread's
embedding.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from waymarks.service.recall_mode import meaning_allowed
from waymarks.spawn.switches import SEMANTIC, switched_on

if TYPE_CHECKING:
    from waymarks.recall.fusion import Embedder
    from waymarks.service.app import Waymarks


def embed_ahead(app: Waymarks, prompt: str) -> threading.Thread | None:
    """Start embedding ``prompt`` as recall will (on a daemon thread); the thread, or
    ``None`` when nothing is started."""
    memo = app._vector_memo
    if memo is None or memo.held is None or not len(memo.held) or not prompt.strip() \
            or not meaning_allowed() or not switched_on(os.environ.get(SEMANTIC, "")):
        return None
    from waymarks.semantic import load

    try:
        embedder = load()  # (loaded already: the memo holds its vectors)
    except Exception:  # noqa: BLE001 (the recall reports a broken extra)
        return None
    if embedder is None or embedder.model != memo.model:
        return None
    thread = threading.Thread(target=_embed, args=(embedder, prompt),
                              name="waymarks-query-ahead", daemon=True)
    thread.start()
    return thread


def _embed(embedder: Embedder, prompt: str) -> None:
    from waymarks.core.text import well_formed
    from waymarks.service.planning import prompt_read

    try:  # the text recall embeds: the plan's read of the prompt, made well formed
        embedder.query(well_formed(prompt_read(prompt)[0]))
    except Exception:  # noqa: BLE001 (the recall embeds it itself, and says what failed)
        return
