"""The ``memory_recall`` tool: a read-only, mid-task memory lookup for the model.

Same relevance and lifecycle policy as automatic recall (gates, no recency fallback), at
most 3 claims within 2,048 UTF-8 bytes, quoted as data. It never writes. A bad argument
gets a categorized error that does not echo what was sent; a broken home is
``unavailable``, never an empty success; one read as it is on a full disk says so
(``stale``: it may lack what was written since, and memory not yet indexed). A project
with no session yet has no confirmed claims (``confirmedUnavailable`` says so) but still
the learned ones, which are global.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from waymarks.core.text import is_unicode
from waymarks.service.evolution_recall import learned_digest, recall_learned
from waymarks.service.planning import egress_for
from waymarks.service.projection_fill import stale_for_model
from waymarks.service.search import selected_rows
from waymarks.service.sessions_api import passed_over_named
from waymarks.service.team_here import held_here
from waymarks.tool.unavailable import ENVIRONMENT_ERRORS, unavailable_for

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

MAX_QUERY_CHARS: Final = 512
NOT_COMPLETE: Final = "Selected matches only, not the complete memory inventory."
NO_SESSION: Final = "no persistent session for this project yet: no confirmed claims"


def memory_recall(app: Waymarks, query: object, provider: str | None = None) -> dict[str, Any]:
    """``provider``: the destination (a host's active model's; the configured default
    provider when ``None``): only claims it may receive are candidates, rendered for it."""
    if (not isinstance(query, str) or not query.strip() or len(query) > MAX_QUERY_CHARS
            or not is_unicode(query)):
        return {"outcome": "rejected", "category": "invalid-parameters",
                "message": f"query must be text of 1 to {MAX_QUERY_CHARS} characters"}
    try:
        # the configuration, the home and the database first (their errors are named),
        # then both recalls: learned memory is global, so a project with no session yet
        # still has it (its confirmed claims are none, and the answer says why)
        with app.begin() as request:
            no_session = request.session is None
            result = app.recall(query, inherit=False, provider=provider)
            # learned claims: provisional, with provenance, after confirmed memory
            notes: list[str] = []  # a damaged evolution ledger: none learned, a note
            # (not one the person holds, or says otherwise of: theirs stands)
            learned = recall_learned(app.home, query, inherit=False,
                                     egress=egress_for(app, provider), notes=notes,
                                     mine=held_here(app))
    except ENVIRONMENT_ERRORS as exc:
        return unavailable_for(exc)
    answer: dict[str, Any] = {"outcome": "ok", "claims": selected_rows(result),
                              "digest": result.digest, "note": NOT_COMPLETE}
    if learned.rows:
        answer["learned"] = learned.rows
        answer["learnedDigest"] = learned_digest(learned.digest)
    if (stale := stale_for_model(app)) is not None:  # a full disk: read as it is, as the
        answer["stale"] = stale  # command line says (without the home's path)
    if app.passed_over_note is not None:  # a newer session file cut short: as a command
        answer["passedOver"] = passed_over_named(app.passed_over)
    if notes:
        answer["learnedUnavailable"] = "learned memory is unavailable (bad_state)"
    if no_session and not app.project_trusted:  # (a trusted project's claims are read
        # without a session: then the answer has them, and said there were none)
        answer["confirmedUnavailable"] = NO_SESSION
    return answer

