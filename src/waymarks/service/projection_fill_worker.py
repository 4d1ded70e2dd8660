"""The process that fills a home's new database for a hurried reader
(:mod:`waymarks.service.projection_fill`): ``python -m waymarks.service.projection_fill_worker
HOME [FD]``, started detached holding the home's fill lock as ``FD``, which it keeps open
to its end (its own module: nothing imports it, so the service it opens imports nothing
back)."""

from __future__ import annotations

import sys
from pathlib import Path

from waymarks.service.app import Waymarks
from waymarks.service.projection_fill import fill_failed
from waymarks.store.evolution import let_waiters_in

#: the most memory items one transaction of the catch-up indexes (~50 ms of CPU): all of
#: them in one (100k after a re-fold: ~9 s on a busy machine) held the writer's turn, and
#: every prompt's hook meanwhile, waiting 1 s for its own write, printed nothing at all
CATCH_UP_PART = 2_000


def main(argv: list[str]) -> int:
    """``HOME [FD]``: open the home's database, which fills it when new, and catch its
    recall index up, :data:`CATCH_UP_PART` items per transaction; 1 when that failed,
    logged (``projection_fill_failed``: its kind, never content), as a hook's own failure
    is: this process's output goes nowhere. It is marked for the hooks too
    (:func:`~waymarks.service.projection_fill.fill_failed`): they say it, and start no
    other for a while (each prompt started one again, seconds of CPU, and said one was
    filling the database)."""
    home = Path(argv[0])
    try:
        with Waymarks(home) as app:
            index = app.projection.recall_index()  # (opening a new database fills it)
            while index.behind():  # (each part moves the watermark on)
                with app.projection.transaction():
                    index.catch_up(CATCH_UP_PART)
                let_waiters_in(app.db_path)
    except Exception as exc:  # noqa: BLE001 (logged: nothing else would ever say it)
        from datetime import UTC, datetime

        from waymarks.service.logs import log_event
        from waymarks.service.outcomes import ServiceError

        code = exc.code if isinstance(exc, ServiceError) else type(exc).__name__
        log_event(home, datetime.now(UTC), "projection_fill_failed", code=code)
        fill_failed(home, code)
        return 1
    fill_failed(home, None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
