"""Wiring for adapters: the person's store, and plans that include personal memory and
the project's engineering docs."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from waymarks.personal.docs import EngineeringDocs
from waymarks.personal.entry import PersonalMemoryError
from waymarks.personal.index import PersonalIndex
from waymarks.personal.store import PersonalStore, personal_directory
from waymarks.service.config import load_settings
from waymarks.service.planning import plan_request

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import Plan


def personal_store(app: Waymarks) -> PersonalStore:
    """The person's store, from the home's configuration only (a project cannot move it),
    with a legacy ``memory.md`` migrated first (once; afterwards a no-op)."""
    settings = load_settings(app.home, app.cwd, False)
    store = PersonalStore(personal_directory(app.home, settings.raw))
    # an unreadable legacy file is left as it is; the migration is tried again next time
    with contextlib.suppress(PersonalMemoryError):
        store.migrate_legacy()
    return store


def plan_with_memory(app: Waymarks, prompt: str, **options: Any) -> Plan:
    """:func:`plan_request` with the personal index and the engineering docs as sources."""
    return plan_request(app, prompt, snippets=EngineeringDocs(),
                        personal=PersonalIndex(personal_store(app)), **options)
