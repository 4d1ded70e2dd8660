"""A long-lived process settles its heap once its working set is loaded.

Python's cyclic garbage collector walks every tracked object in its oldest generation on
each full collection: in a host process (the Claude Code helper, the MCP server, the Pi
bridge) those are the hundreds of thousands of objects that imports, settings and the
recall index's first load made, and that never become garbage. Collections triggered by
an ordinary plan's allocations then cost a millisecond or so at random prompts: the tail
of a 1k plan (measured, the same code with and without, three runs each, 800 plans: p99
3.5-3.8 against 3.9-4.5 ms CPU; the mean unchanged at 2.3-2.4 ms). ``gc.freeze`` (after
one collection, so that no garbage is kept) moves them out of the collector's sight; they
are still freed normally when unreferenced.

A server whose libraries are imported before it serves (the MCP server: its SDK alone makes
~86k objects) freezes them at once, without the collection (:func:`freeze_imports`): one
there found 20 unreachable objects for ~48 ms of CPU, which the first recall's
:func:`settle_heap` then spent on the answer's path; it now walks only what was made since.
"""

from __future__ import annotations

import gc

_settled = False


def settle_heap() -> None:
    """Collect once, then leave every object alive now out of later collections (once per
    process: objects made afterwards are collected as usual)."""
    global _settled
    if _settled:
        return
    _settled = True
    gc.collect()
    gc.freeze()


def freeze_imports() -> None:
    """Leave every object alive now out of later collections, without collecting first: for
    a server that has just imported its libraries, whose garbage is a handful of objects
    (kept for the process's life), where a collection walks them all. :func:`settle_heap`
    still collects and freezes what is made afterwards, once."""
    gc.freeze()
