"""``waymarks learn``: the learning switch, and the learned claims themselves.

``learn on`` / ``learn off`` set ``[evolution] learn`` in the home configuration (never a
project's); ``learn status`` shows the switch and counts (no content), and a learned
ledger that cannot be read (what is wrong and the fix; exit 0); ``learn list`` the
learned claims with provenance; ``learn forget ID`` forgets one by its exact ID. Turning
learning on is always the person's act: installers print how, they never do it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from waymarks.commands.base import Column, Group, Result, command, runtime
from waymarks.commands.render import cell, refused, table_result
from waymarks.core.text import typed_id

T = TypeVar("T")
#: what ``learn status`` says of sources settled ``untrusted`` (never in ``sources_settled``)
RETIRED = (" (retired unsent: their project is not trusted, by `waymarks untrust` or "
           "by the trust rule they were captured under; the ledger keeps them)")


def how_to_turn_on(home_option: str = "") -> str:
    """How to turn learning on; ``home_option``: `` --home H`` for a home other than the
    default (an installer's hooks use H, and a bare `waymarks learn on` turned learning on
    in the default home)."""
    return ("Learning from conversations is off. To turn it on (home configuration, "
            f"[evolution] learn = true): waymarks{home_option} learn on")


def on_note(home_option: str = "") -> str:
    """What ``learn on`` says; the way to turn it off names the home as
    :func:`how_to_turn_on` does (a bare `learn off` said "nothing more is captured" of the
    default home while the hooks' home went on learning)."""
    return ("Learning is on: statements you make, and in a project you trust (`waymarks "
            "trust`) compaction summaries and work turns' tool results, are captured "
            "(sanitized: local-only text withheld, credentials redacted) and consolidated by "
            "the model configured in [evolution]; learned claims stay provisional and never "
            f"outrank pins or confirmed memory. Turn it off with `waymarks{home_option} "
            "learn off`.")


def configured(call: Callable[[], T]) -> T:
    """``call()``, with a configuration it cannot use (the learning switch, the
    ``[evolution]`` routes) reported as every command reports one: ``bad_config``, exit 1
    (an environment problem; ``evolve`` and ``evolution status`` refused it, exit 2)."""
    from waymarks.service.evolution_config import EvolutionConfigError
    from waymarks.service.learning import LearningConfigError
    from waymarks.service.outcomes import ServiceError

    try:
        return call()
    except LearningConfigError as exc:
        raise ServiceError(exc.code, str(exc)) from exc
    except EvolutionConfigError as exc:
        raise ServiceError("bad_config", str(exc)) from exc


def unrouted(app: Any) -> str | None:
    """Why no model consolidates what is learned, as ``evolution status`` says it (no
    route configured and usable here, no host bringing its own, or an ``[evolution]``
    table that cannot be used: its error, which names the key, never the value);
    ``None`` when one does."""
    from waymarks.models import route_is_available
    from waymarks.service.evolution_config import EvolutionConfigError
    from waymarks.service.evolution_status import unrouted as why_unrouted
    from waymarks.service.evolution_wiring import config_for

    try:
        routes = config_for(app).routes()
    except EvolutionConfigError as exc:  # (said nothing: "learning: on", all well)
        return f"{exc}; nothing is sent to a model until it is fixed"
    return why_unrouted(app.home, (route_is_available(route) for route in routes))


def learn_group() -> Group:
    learn = Group("learn", default="status",
                  help="Learning from conversations (memory evolution): a switch in the home "
                       "configuration, and the provisional claims it learned.",
                  examples=["waymarks learn status", "waymarks learn on",
                            "waymarks learn forget 3f2a9c0d1e4b5a6978877665"])

    @command(learn, "status", summary="Whether learning is on, and how many sources and "
             "learned claims there are (no content).", examples=["waymarks learn status --json"])
    def status() -> Result:
        from waymarks.service.evolution import Evolution, LedgerDamaged, has_ledger
        from waymarks.service.learning import learning_state

        run = runtime()
        app = run.app()
        state = configured(lambda: learning_state(app.home, app.cwd))
        data = state.to_json()
        counts: dict[str, int] = {}
        bad: list[str] = []
        problem = None
        if has_ledger(app.home):
            try:  # a damaged ledger is what this is run to find out about: reported
                with Evolution(app.home) as evo:
                    counts = evo.counts()
                    bad = evo.store.readable_claims()[1]
            except LedgerDamaged as exc:
                problem = str(exc)
        data["counts"] = counts
        data["badRows"] = bad
        data["ledgerProblem"] = problem
        data["blocked"] = blocked = unrouted(app)
        lines = [f"learning: {'on' if state.enabled else 'off'}"
                 + (" (turned off by this project's configuration)" if state.project_off
                    else ""), f"config: {state.config}"]
        if blocked is not None:
            lines.append(f"Not running: {blocked}.")
        if problem is not None:
            lines.append(f"problem: {problem}")
        lines += [f"{name}: {value}" + (RETIRED if name == "sources_retired_untrusted"
                                         and value else "")
                  for name, value in sorted(counts.items())]
        lines += [f"ignored: {note}" for note in state.ignored]
        lines += [f"malformed learned claim (left out of recall; `waymarks evolution forget "
                  f"{b}` removes it): {b}" for b in bad]
        if not state.enabled and not state.project_off:
            lines.append(how_to_turn_on(run.home_option(str(app.home))))
        return Result(data, "\n".join(lines))

    def _switch(on: bool) -> Result:
        from waymarks.service.learning import set_learning

        run = runtime()
        app = run.app()
        state = configured(lambda: set_learning(app.home, on, app.cwd))
        text = on_note(run.home_option(str(app.home))) if on else (
            "Learning is off: nothing more is captured. What was learned stays until you "
            "forget it.")
        if on and state.project_off:  # it said "on" where evolve then refused
            text += ("\nBut not here: this project's .waymarks/config.toml turns it off "
                     "([evolution] learn = false).")
        data = state.to_json()
        if on:  # (it said "consolidated by the model configured" where none was)
            data["blocked"] = blocked = unrouted(app)
            if blocked is not None:
                text += f"\nNot running: {blocked}."
        return Result(data, text)

    @command(learn, "on", summary="Turn learning on in the home configuration.",
             examples=["waymarks learn on"])
    def on() -> Result:
        return _switch(True)

    @command(learn, "off", summary="Turn learning off in the home configuration.",
             examples=["waymarks learn off"])
    def off() -> Result:
        return _switch(False)

    @command(learn, "list", summary="Learned claims: ID, kind, state, origin, evidence.",
             examples=["waymarks learn list", "waymarks learn list --all"])
    @click.option("--all", "all_", is_flag=True,
                  help="Also superseded, conflicted and forgotten claims. E.g. --all")
    def list_(all_: bool) -> Result:
        from waymarks.service.evolution import Evolution, has_ledger

        app = runtime().app()
        claims = []
        others = 0  # claims --all would add (it said "Nothing learned yet" beside them)
        if has_ledger(app.home):
            with Evolution(app.home) as evo:
                claims = evo.claims(None if all_ else ["provisional"])
                if not all_ and not claims:
                    others = len(evo.claims(None))
        data = {"claims": [{"id": c.id, "kind": c.kind, "state": c.state, "origin": c.origin,
                            "content": c.content, "searchTerms": list(c.search_terms),
                            "evidence": {"basis": c.basis, "method": c.method,
                                         "sourceId": c.source_id, "at": c.updated_at},
                            "replaces": c.replaces, "supersededBy": c.superseded_by}
                           for c in claims]}
        rows = [(c.id, c.kind, c.state, cell(c.origin), f"{c.basis}/{c.method}",
                 cell(c.content)) for c in claims]
        return table_result(data, [Column("ID"), Column("KIND"), Column("STATE"),
                                   Column("ORIGIN"), Column("EVIDENCE"),
                                   Column("CLAIM", wide=True)], rows,
                            empty=(f"No provisional learned claims; {others} other(s) "
                                   "(superseded, conflicted, forgotten): `waymarks learn "
                                   "list --all`") if others else "Nothing learned yet.")

    @command(learn, "forget", summary="Forget one learned claim by its exact ID (its content "
             "is never learned again in that origin), or every one learned in a directory "
             "(--origin DIR).",
             examples=["waymarks learn forget 3f2a9c0d1e4b5a6978877665",
                       "waymarks learn forget --origin ~/src/cloned-repo --dry-run",
                       "waymarks learn forget --origin ~/src/cloned-repo --yes"])
    @click.argument("claim_id", metavar="[ID]", required=False)
    @click.option("--origin", metavar="DIR",
                  help="Every learned claim in effect whose origin is DIR (as `learn list` "
                       "shows it), and DIR's queued sources. E.g. --origin ~/src/repo")
    @click.option("--dry-run", is_flag=True,
                  help="With --origin: only list what would be forgotten. E.g. --dry-run")
    @click.option("--yes", is_flag=True,
                  help="With --origin: the person confirmed it (no prompt). E.g. --yes")
    def forget(claim_id: str | None, origin: str | None, dry_run: bool, yes: bool) -> Result:
        from waymarks.service.evolution import evolution_for, has_ledger
        from waymarks.service.item_refs import no_claim, not_learned

        if (claim_id is None) == (origin is None) or (origin is None and (dry_run or yes)):
            return refused("bad_input", "name one learned claim's ID, or --origin DIR "
                           "(with --dry-run or --yes); nothing changed")
        app = runtime().app()
        if origin is not None:
            return _forget_origin(app, origin, dry_run, yes)
        assert claim_id is not None
        if not has_ledger(app.home):
            return refused("not_found", not_learned(app, claim_id)
                           or no_claim(claim_id) + "; nothing has been learned yet")
        from waymarks.service.evolution_edits import forget as forget_claim

        claim_id = typed_id(claim_id)  # in either case, as `evolution forget` takes it
        with evolution_for(app) as evo:  # a rehearsal checks everything, appends nothing
            outcome = forget_claim(evo, claim_id)
        if outcome.code == "not_found" and not outcome.data:  # (a legacy ID: its new IDs)
            return refused("not_found", not_learned(app, claim_id) or outcome.message)
        if not outcome.ok:
            # `learn forget` has always answered not_found for a claim already forgotten
            # (an unknown ID's message already says where to look: it said "see" twice)
            code = "not_found" if outcome.code == "not_active" else outcome.code
            return refused(code, outcome.message + (" (see `waymarks learn list --all`)"
                                                    if outcome.code == "not_active" else ""))
        return Result({"outcome": "forgotten", "id": claim_id, "event": outcome.event,
                       "retiredSources": outcome.data.get("retiredSources", 0)},
                      outcome.message)

    return learn


def _forget_origin(app: Any, directory: str, dry_run: bool, yes: bool) -> Result:
    """``learn forget --origin DIR``: list what would be forgotten (``--dry-run``), ask
    (a person at a terminal) or take ``--yes``, then forget it all in one append."""
    import os
    import sys

    from waymarks.service.evolution import evolution_for, has_ledger
    from waymarks.service.evolution_edits import forget_origin
    from waymarks.service.evolution_feedback import dry_run as rehearse
    from waymarks.service.trust import project_path

    # (a relative DIR is the command's directory's: Pi's project inside Pi)
    origin = project_path(os.path.expanduser(directory), app.cwd, "learn forget --origin")
    if not has_ledger(app.home):
        return refused("not_found", "nothing has been learned; see `waymarks learn list`")
    with evolution_for(app) as evo:
        planned = rehearse(evo, lambda: forget_origin(evo, origin))
        if not planned.ok:
            return refused(planned.code, planned.message)
        listed = [(c["id"], c["kind"], c["state"], cell(c["content"]))
                  for c in planned.data["claims"]]
        shown = "".join(f"\n  {i} {k} {st}: {text}" for i, k, st, text in listed)
        run = runtime()
        if dry_run:
            return Result({"outcome": "dry_run", **planned.data},
                          f"{planned.message}{shown}\nNothing changed; forget them with "
                          "--yes.")
        if not yes:
            if not (run.interactive and not run.json and sys.stdin is not None
                    and sys.stdin.isatty()):
                return refused("confirmation_required", f"{planned.message} See them with "
                               "--dry-run, confirm with --yes; nothing changed")
            run.progress.stop()  # the question has the terminal now
            click.echo(f"{planned.message}{shown}", err=True)
            if not click.confirm("Forget them?", default=False, err=True):
                return refused("declined", "nothing was forgotten")
        outcome = forget_origin(evo, origin)
    if not outcome.ok:
        return refused(outcome.code, outcome.message)
    return Result({"outcome": "forgotten", "event": outcome.event, **outcome.data},
                  outcome.message)
