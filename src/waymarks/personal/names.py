"""The names of the person's store's files that deciding whether it holds anything
needs (:func:`~waymarks.personal.setup.plan_with_memory` asks before importing the store)."""

from __future__ import annotations

from typing import Final

#: the single-file personal memory an older version kept beside the entries' directory
LEGACY_NAME: Final = "memory.md"
