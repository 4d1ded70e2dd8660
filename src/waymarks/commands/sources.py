"""``waymarks memory sources | exclude | include``: this project's other sessions as
sources of project memory, and the local policy over them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from waymarks.commands.base import Column, Group, Result, command, runtime
from waymarks.commands.render import cell, refused, table_result, when
from waymarks.core.text import echoed, ids_named, shell_command

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


def _full_id(app: Waymarks, ref: str) -> str | Result:
    """The one known session ``ref`` names (exactly or as a prefix), or a refusal that
    lists every session an ambiguous prefix matches. A blank ``ref`` is refused: as a
    prefix it named every session (a script's unset ``$SID`` excluded the only one)."""
    from waymarks.service.sources import list_sources

    if not ref.strip():
        return refused("invalid_argument", "the session ID is empty; give one (list them "
                       "with `waymarks memory sources`)")
    matches = ids_named((v.session_id for v in list_sources(app)), ref)
    if len(matches) > 1:
        return refused("ambiguous", f"'{echoed(ref)}' is the start of {len(matches)} session "
                       f"IDs ({', '.join(cell(m[:12]) for m in matches[:10])}); type more of it",
                       matches)
    return matches[0] if matches else ref


def register_sources(memory: Group) -> None:
    @command(memory, "sources", summary="This project's sessions as sources of project "
             "memory: status, items, held back, last indexed.",
             examples=["waymarks memory sources", "waymarks memory sources --json"])
    def sources() -> Result:
        """Reading sessions of a large project can take a moment the first time (a
        spinner shows on a terminal); afterwards only what changed is read."""
        from waymarks.service.sources import list_sources

        app = runtime().app()
        views = list_sources(app)
        # the command to paste, this project's path in it (it said `waymarks trust PATH`)
        trust = shell_command([app.command_prefix, "trust", app.cwd])
        footer = [] if app.project_trusted else [
            f"{cell(app.cwd)} is not trusted: project memory is not shared (`{cell(trust)}`)."]
        rows = [(cell(v.session_id), v.status + (" (active)" if v.active else "")
                 + (" (excluded)" if v.excluded else ""), str(v.contributed),
                 str(v.held_back), when(v.updated_at),
                 cell("; ".join(filter(None, (v.detail, v.excluded_reason)))) or "")
                for v in views]
        columns = [Column("SESSION"), Column("STATUS"), Column("ITEMS", "right"),
                   Column("HELD", "right"), Column("LAST INDEXED"), Column("DETAIL", wide=True)]
        data = {"sources": [v.to_json() for v in views], "projectTrusted": app.project_trusted}
        return table_result(data, columns, rows, kinds=[v.status for v in views],
                            footer=footer, empty="No sessions of this project are known yet.")

    @command(memory, "exclude", summary="Stop counting a session's project pins and memory "
             "here (local policy, kept in the database only).", stores={"reason": "the reason"},
             examples=["waymarks memory exclude 1f88e432 experiments, not facts"])
    @click.argument("session_id", metavar="SESSION_ID")
    @click.argument("reason", nargs=-1, metavar="[REASON]")
    def exclude(session_id: str, reason: tuple[str, ...]) -> Result:
        """SESSION_ID is a session ID or a unique prefix (see `waymarks memory sources`);
        the active session cannot be excluded."""
        app = runtime().app()
        found = _full_id(app, session_id)
        if isinstance(found, Result):
            return found
        from waymarks.core.decisions import Rejected, clean_reason
        from waymarks.service.sources import set_source_excluded

        cleaned = clean_reason(" ".join(reason) or None)  # as every other reason: 500 at most
        if isinstance(cleaned, Rejected):
            return refused(cleaned.code, cleaned.message)
        changed = set_source_excluded(app, found, True, cleaned)
        text = (f"Excluded {cell(found)}: its project pins and memory no longer count here."
                if changed else f"{cell(found)} was already excluded.")
        return Result({"sessionId": found, "excluded": True, "changed": changed}, text)

    @command(memory, "include", summary="Count an excluded session again.",
             examples=["waymarks memory include 1f88e432"])
    @click.argument("session_id", metavar="SESSION_ID")
    def include(session_id: str) -> Result:
        """SESSION_ID is a session ID or a unique prefix (see `waymarks memory sources`)."""
        app = runtime().app()
        found = _full_id(app, session_id)
        if isinstance(found, Result):
            return found
        from waymarks.service.sources import set_source_excluded

        changed = set_source_excluded(app, found, False)
        text = f"Included {cell(found)} again." if changed else f"{cell(found)} was not excluded."
        return Result({"sessionId": found, "excluded": False, "changed": changed}, text)
