"""Wiring for adapters: the person's store, and plans that include personal memory and
the project's engineering docs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.personal.names import LEGACY_NAME
from waymarks.service.config import load_settings
from waymarks.service.planning import NO_TEXT, plan_request

if TYPE_CHECKING:
    from waymarks.core.egress import Egress
    from waymarks.personal.index import PersonalIndex
    from waymarks.personal.store import PersonalStore
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import Plan, TextInput


def configured_store(app: Waymarks) -> PersonalStore:
    """The person's store, from the home's configuration only (a project cannot move it,
    nor choose the level of an entry stored without one or the levels a remote model may
    receive by default, which decide whether its index line is written), as it is:
    nothing converted (for where its files are)."""
    from waymarks.personal.store import PersonalStore

    settings = load_settings(app.home, app.cwd, False)
    return PersonalStore(personal_directory(app.home, settings.raw),
                         settings.policy.default_classification,
                         settings.policy.remote_default())


def personal_store(app: Waymarks) -> PersonalStore:
    """:func:`configured_store`, with a legacy ``memory.md`` migrated first (once;
    afterwards a no-op)."""
    from waymarks.personal.entry import PersonalMemoryError
    from waymarks.personal.store import Unread

    store = configured_store(app)
    # a migration that fails never stops a plan: the legacy file is left as it is, tried
    # again next time, and `personal list` says why
    try:
        store.migrate_legacy()
    except (PersonalMemoryError, OSError) as exc:
        why = str(exc) if isinstance(exc, PersonalMemoryError) else (
            f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        store.problems.append(Unread(str(store.legacy_path), f"not converted into entries "
                                     f"yet ({why}); it is tried again on every command"))
    return store


def personal_index(app: Waymarks) -> PersonalIndex:
    """The personal memory index as a plan's source (``evolution explain`` weighs it too)."""
    from waymarks.personal.index import PersonalIndex

    return PersonalIndex(personal_store(app))


def plan_with_memory(app: Waymarks, prompt: str, **options: Any) -> Plan:
    """:func:`plan_request` with the personal index and the engineering docs as sources.

    A home whose personal directory is no directory and holds no legacy ``memory.md``
    to convert has no line to offer (:class:`~waymarks.personal.index.PersonalIndex`
    lists none, and its migration and index correction change nothing there), and an
    untrusted project no docs: neither source's modules are imported then (~2 ms of a
    Claude Code hook's imports, every prompt, for nothing)."""
    return plan_request(app, prompt, snippets=ProjectDocs(),
                        personal=personal_index(app) if _may_hold_entries(app) else NO_TEXT,
                        **options)


def _may_hold_entries(app: Waymarks) -> bool:
    """Whether the person's store may list an entry: its directory is one, or a legacy
    ``memory.md`` beside it may be converted into entries (see
    :meth:`~waymarks.personal.store.PersonalStore.migrate_legacy`)."""
    directory = personal_directory(app.home, load_settings(app.home, app.cwd, False).raw)
    return directory.is_dir() or (directory.parent / LEGACY_NAME).is_file()


class ProjectDocs:
    """The engineering docs as a plan's source (:class:`~waymarks.personal.docs.
    EngineeringDocs`), whose module is imported only for a trusted project: an untrusted
    one's docs are never read."""

    def candidates(self, app: Waymarks, prompt: str,
                   egress: Egress | None = None) -> Sequence[TextInput]:
        if not app.project_trusted:
            return ()
        from waymarks.personal.docs import EngineeringDocs

        return EngineeringDocs().candidates(app, prompt, egress)


def personal_directory(home: Path, raw_config: dict[str, object]) -> Path:
    """``[personal] directory`` from the configuration, else ``<home>/memory``. A
    relative one is under the home, where the configuration is: taken as it was, it was
    relative to wherever a command ran, so an untrusted repository's ``memory/*.md`` was
    read as the person's own notes and written to."""
    section = raw_config.get("personal")
    configured = section.get("directory") if isinstance(section, dict) else None
    if not isinstance(configured, str) or not configured:
        return home / "memory"
    chosen = Path(configured).expanduser()
    return chosen if chosen.is_absolute() else home / chosen
