"""The personal memory index as a planner source: one quoted line per entry, in index
order, each with its own classification (the entry's ``classification`` line, or the
policy's default, raised by markers in its name and description: the planner's egress
reads it, and by those in its text: a name and description are derived from the text,
so a line is never less private than the text it comes from), so a line the provider may
not see is left out and recorded in the manifest by slug alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from waymarks.core.privacy import classify, has_markers
from waymarks.personal.entry import one_line
from waymarks.personal.store import PersonalStore
from waymarks.service.planning import personal_line, settings_for

if TYPE_CHECKING:
    from waymarks.core.egress import Egress
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import TextInput


class PersonalIndex:
    def __init__(self, store: PersonalStore) -> None:
        self.store = store

    def candidates(self, app: Waymarks, prompt: str,
                   egress: Egress | None = None) -> Sequence[TextInput]:
        lines = []
        default: str | None = None  # the policy's default level, read once when needed
        entries = self.store.entries()
        # the index other readers inject as it is: one an older version wrote may list
        # what no remote model may receive, corrected here rather than at the next save
        self.store.correct_index(entries)
        for entry in entries:
            name, description = one_line(entry.name), one_line(entry.description)
            level = entry.classification
            if has_markers(entry.body):  # (an entry without a level is at the default)
                default = default or settings_for(app).policy.default_classification
                level = classify(entry.body, level or default)
            lines.append(personal_line(entry.slug, name, description, level))
        return lines
