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
    recall index up."""
    with Waymarks(Path(argv[0])) as app:
        index = app.projection.recall_index()  # (opening a new database fills it)
        if index.behind():
            with app.projection.transaction():
                index.catch_up()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
