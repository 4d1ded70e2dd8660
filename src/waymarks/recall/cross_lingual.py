"""The cross-script rule's margin by the query's direction (issue 20, cross-lingual).

The fusion's cross-script rule (:meth:`waymarks.recall.fusion.Semantic.across`) lets a record
in the other script than the query's qualify with no lexical match (none can exist between an
English query and a Chinese claim) when it is near enough and the nearest of its script by
``cross_margin``. How far apart an answer stands from the rest depends on the direction: a
model may place short texts of one script as a crowd for queries of the other. A calibration's
``cross_margins`` gives a direction its own margin, ``(query script, margin)``: that direction
is then served (``cross_from``) at that margin, the others keep ``cross_margin``.

Hooked at one point: :func:`waymarks.recall.fusion.semantic_side` builds the query's side with
:func:`for_query`'s calibration, so ``among`` and ``across`` read one margin for one query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from waymarks.recall.fusion import Calibration, Semantic


def for_query(calibration: Calibration, query_script: str) -> Calibration:
    """``calibration`` as the cross-script rule reads it for a query of ``query_script``."""
    for kind, margin in calibration.cross_margins:
        if kind == query_script:
            served = calibration.cross_from if kind in calibration.cross_from \
                else (*calibration.cross_from, kind)
            return msgspec.structs.replace(calibration, cross_from=served,
                                           cross_margin=margin)
    return calibration


def nearest_of_all(side: Semantic, cosine: float) -> bool:
    """Whether a record at ``cosine`` may qualify across scripts for a query of a direction
    served at its own margin: only as the nearest of every record that may be recalled, any
    script. In a store of both, an English question an English claim answers, or none does,
    put one of the few Chinese claims apart from the others ("which payment provider do we
    use?": "计费服务的日志保存在 Loki 中，保留七天。")."""
    own = any(kind == side.query_script for kind, _ in side.calibration.cross_margins)
    return not own or not side.nearest or cosine >= side.nearest[0]
