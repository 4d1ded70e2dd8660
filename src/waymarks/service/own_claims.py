"""The person's own claims as the planner weighs another's against them: a team item or a
learned claim that contradicts one of them (by the signature rules a local write is refused
by: the same subject and attribute with another value, the opposite state) is not planned,
since what the person confirmed stands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.service.views import ItemView


class OwnSignatures:
    """The signatures of the person's own claims in the plan, indexed by subject and by
    the subjects each may contain (:func:`~waymarks.core.contradiction.parts`): a team or
    learned claim is compared with those it may contradict, in memory (a query per team
    claim made a plan with 200 of them 5x slower)."""

    def __init__(self, views: Iterable[ItemView]) -> None:
        from waymarks.core.contradiction import parts, signature, whole

        self.by_subject: dict[str, list[tuple[str, Any]]] = {}
        for view in views:
            found = signature(view.text)
            if found is not None:
                for name in (whole(found.subject), *parts(found.subject)):
                    self.by_subject.setdefault(name, []).append((view.id, found))

    def contradicted(self, text: str) -> str | None:
        from waymarks.core.contradiction import contradicts, parts, signature, whole

        if not self.by_subject:
            return None
        mine = signature(text)
        if mine is None:
            return None
        for name in (whole(mine.subject), *parts(mine.subject)):
            for item_id, theirs in self.by_subject.get(name, ()):
                if contradicts(mine, theirs):
                    return item_id
        return None


class OwnClaims:
    """The person's own pins and claims in effect in ``app``'s directory, read on the
    first question (most plans and recalls weigh no learned claim)."""

    def __init__(self, app: Waymarks) -> None:
        self._app = app
        self._read: tuple[dict[str, str], OwnSignatures] | None = None

    def _views(self) -> tuple[dict[str, str], OwnSignatures]:
        if self._read is None:
            from waymarks.core.text import normalize

            views = [v for kind in ("pin", "memory") for v in self._app.items(kind)
                     if v.applies]
            self._read = ({normalize(v.text): v.id for v in views}, OwnSignatures(views))
        return self._read

    def contradicted(self, text: str) -> str | None:
        """The ID of the pin or claim ``text`` contradicts, if any."""
        return self._views()[1].contradicted(text)

    def held(self, text: str) -> str | None:
        """The ID of the pin or claim that says ``text`` (the same sentence) or
        contradicts it, if any: what a learned claim with that text must not stand for."""
        from waymarks.core.text import normalize

        return self._views()[0].get(normalize(text)) or self.contradicted(text)
