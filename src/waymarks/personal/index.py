"""The personal memory index as a planner source: one quoted line per entry, in index
order, each with its own classification (the entry's ``classification`` line, or the
policy's default, raised by markers in its name and description: the planner's egress
reads it), so a line the provider may not see is left out and recorded in the manifest
by slug alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from waymarks.personal.entry import one_line
from waymarks.personal.store import PersonalStore
from waymarks.service.planning import personal_line

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import TextInput


class PersonalIndex:
    def __init__(self, store: PersonalStore) -> None:
        self.store = store

    def candidates(self, app: Waymarks, prompt: str) -> Sequence[TextInput]:
        lines = []
        for entry in self.store.entries():
            name, description = one_line(entry.name), one_line(entry.description)
            lines.append(personal_line(entry.slug, name, description, entry.classification))
        return lines
