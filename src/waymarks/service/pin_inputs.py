"""The planner's input for each pin that applies, kept while its view is unchanged.

Every plan of a long-lived process (the Claude Code hook's helper, an MCP server, Pi's
bridge) lists the same pins: :class:`~waymarks.service.views.ViewMemo` hands over the same
view objects while nothing changed, and the pins' blocks are kept with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_
from typing import TYPE_CHECKING

from waymarks.service.views import ItemView

if TYPE_CHECKING:
    from waymarks.planner.render import PinBlock
    from waymarks.planner.select import PinInput


class PinInputs:
    """The planner's input for each pin that applies, kept while its view is the same
    object (:class:`~waymarks.service.views.ViewMemo` hands over the same view while
    nothing changed): every plan lists the same pins, and building their blocks again was
    a twentieth of a plan at 1k memories. Only the last listing's pins are kept, and the
    inputs it gave: a listing of the same views in the same order (one comparison of
    identities, in C) gets them again without a look at each view (~40 us a plan at 50
    pins on a loaded machine, a step per pin in Python)."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[ItemView, PinInput]] = {}
        self._views: tuple[ItemView, ...] = ()
        self._out: tuple[PinInput, ...] = ()

    def inputs(self, views: Sequence[ItemView]) -> list[PinInput]:
        from waymarks.planner.select import PinInput

        if len(views) == len(self._views) and all(map(is_, views, self._views)):
            return list(self._out)  # (views are frozen: the same ones, the same inputs)
        kept: dict[int, tuple[ItemView, PinInput]] = {}
        out = []
        for view in views:
            if not view.applies:
                continue
            known = self._kept.get(id(view))  # (the memo holds the view: its ID is not reused)
            pin = (known[1] if known is not None and known[0] is view
                   else PinInput(_pin_block(view), view.created_at))
            kept[id(view)] = (view, pin)
            out.append(pin)
        self._kept = kept
        self._views, self._out = tuple(views), tuple(out)
        return out


def _pin_block(view: ItemView) -> PinBlock:
    from waymarks.planner.render import PinBlock

    return PinBlock(view.id, view.scope, view.text, view.session_id, view.entry_id,
                    view.branch_leaf_id, view.supersedes,
                    view.source_entry_ids[0] if view.source_entry_ids else None,
                    view.source_file, view.classification)
