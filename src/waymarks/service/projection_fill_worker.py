"""The process that fills a home's new database for a hurried reader
(:mod:`waymarks.service.projection_fill`): ``python -m waymarks.service.projection_fill_worker
HOME [FD]``, started detached holding the home's fill lock as ``FD``, which it keeps open
to its end (its own module: nothing imports it, so the service it opens imports nothing
back)."""

from __future__ import annotations

import sys
from pathlib import Path

from waymarks.service.app import Waymarks


def main(argv: list[str]) -> int:
    """``HOME [FD]``: open the home's database, which fills it when new, and catch its
    recall index up; 1 when that failed, logged (``projection_fill_failed``: its kind,
    never content), as a hook's own failure is: this process's output goes nowhere, and
    the next prompt's hook starts another."""
    home = Path(argv[0])
    try:
        with Waymarks(home) as app:
            index = app.projection.recall_index()  # (opening a new database fills it)
            if index.behind():
                with app.projection.transaction():
                    index.catch_up()
    except Exception as exc:  # noqa: BLE001 (logged: nothing else would ever say it)
        from datetime import UTC, datetime

        from waymarks.service.logs import log_event
        from waymarks.service.outcomes import ServiceError

        log_event(home, datetime.now(UTC), "projection_fill_failed",
                  code=exc.code if isinstance(exc, ServiceError) else type(exc).__name__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
