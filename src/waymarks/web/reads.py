"""What the inspector's pages show, read through the same service calls as the CLI.

Each function runs inside one request of the service (:meth:`Waymarks.begin`: the session
refreshed, the projection synced, sources indexed, trust and settings read once) and
returns plain values for a template; none of them holds a transaction while the page is
rendered (the service's reads end before the template starts).

What must stay true: stored text is returned as it is stored, and only the templates
(Jinja2 autoescape) turn it into markup; text meant for a model (the plan's blocks) is
the planner's own output, already through :mod:`waymarks.core.egress`. Lists are paged:
a page of memory reads that page's newest items, never the whole store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

import msgspec

from waymarks.commands.render import when as when
from waymarks.core.evolution.model import ClaimState
from waymarks.core.model import ENDING_CHANGES, Scope, Status
from waymarks.service.outcomes import ServiceError

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.service.provenance import Provenance
    from waymarks.service.views import ItemView

Kind = Literal["pin", "memory"]
PER_PAGE = 50
#: rows the overview shows at most of its docs passages, learned claims and sources (the
#: newest claims and sessions): its count says how many there are, and a line under the
#: table which command lists them all. The 200 oldest learned claims were shown under a
#: count of every one, and the newest never; the sources' count said 200 of more
SECTION_ROWS = 200
PRIVACY_REASON = "not allowed for this provider"  # the planner's privacy exclusion


class Page(msgspec.Struct, frozen=True):
    """One page of a longer list: ``number`` from 1, ``total`` items in all."""

    number: int
    total: int
    per_page: int = PER_PAGE

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.per_page


@dataclass
class Overview:
    project: str
    trusted: bool
    session: str | None
    pins: list[ItemView]
    pin_page: Page
    memory: list[ItemView]
    memory_page: Page
    updated: dict[str, int]
    personal: list[dict[str, Any]] = field(default_factory=list)
    docs: list[dict[str, Any]] = field(default_factory=list)
    #: each learned claim with its age in whole days (since its evidence date)
    learned: list[tuple[Any, int]] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: how many docs passages, learned claims and sources there are ("over 200": more
    #: sessions than were read), and, for a section cut to :data:`SECTION_ROWS`, what
    #: the page leaves out and where to see it
    counts: dict[str, str] = field(default_factory=dict)
    cut: dict[str, str] = field(default_factory=dict)


def page_number(raw: str | None) -> int:
    """A page number from the URL: a positive integer, else the first page."""
    try:
        value = int(raw or "1")
    except ValueError:
        return 1
    return value if value >= 1 else 1


def overview(app: Waymarks, pin_page: int = 1, memory_page: int = 1,
             per_page: int = PER_PAGE) -> Overview:
    """Everything the overview shows, for the app's project, in one service request.

    Only the rows up to the pages shown are read; the totals are counted in SQL (the
    overview read every pin, and checked every memory for its tally by status, to show
    50 of each: 1.2 s a page at 100k items)."""
    from waymarks.service.provenance import updated_at, visible_count

    with app.begin() as snapshot:
        session = snapshot.session
        pinned = visible_count(app, "pin")
        pin_p = Page(min(pin_page, Page(1, pinned, per_page).pages), pinned, per_page)
        shown_pins = app.items("pin", oldest=per_page, skip=pin_p.offset) if pinned else []
        total = visible_count(app, "memory")
        mem_p = Page(min(memory_page, Page(1, total, per_page).pages), total, per_page)
        # the page's rows alone: those before it are counted on the indexes, not read
        shown_memory = app.items("memory", recent=per_page, skip=mem_p.offset) if total \
            else []
        updated = updated_at(app, [*shown_pins, *shown_memory])
        result = Overview(app.cwd, snapshot.trusted,
                          session.session_id if session is not None else None,
                          shown_pins, pin_p, shown_memory, mem_p, updated)
        sources = _sources(app)
    result.personal, problem = _personal(app)
    result.problems += problem
    docs = _docs(app, result.problems)
    now = int(app.clock.now().timestamp() * 1000)
    claims = learned_claims(app.home, result.problems)
    rows = SECTION_ROWS
    result.docs, result.sources = docs[:rows], sources[:rows]  # (sources newest first)
    result.learned = [(claim, max(0, (now - _iso_ms(claim.updated_at)) // 86_400_000))
                      for claim in claims[-rows:]]  # the newest (claims are oldest first)
    result.counts = {"docs": str(len(docs)), "learned": str(len(claims)),
                     "sources": str(len(sources)) if len(sources) <= rows else f"over {rows}"}
    result.cut = _cut(len(docs), len(claims), len(sources))
    return result


def _cut(docs: int, claims: int, sources: int) -> dict[str, str]:
    """What the overview leaves out of each section longer than :data:`SECTION_ROWS`."""
    rows = SECTION_ROWS
    notes = {"docs": (docs, f"The first {rows} of {docs} passages are shown (every plan "
                            "reads them all)."),
             "learned": (claims, f"The newest {rows} of {claims} are shown; `waymarks learn "
                                 "list --all` lists every one."),
             "sources": (sources, f"The newest {rows} sessions are shown; `waymarks memory "
                                  "sources` lists them all.")}
    return {name: note for name, (count, note) in notes.items() if count > rows}


def _sources(app: Waymarks) -> list[dict[str, Any]]:
    """The project's sessions, newest first: one more than the overview shows, so that
    it can tell there are more."""
    from waymarks.service.sources import list_sources

    return [v.to_json() for v in list_sources(app, limit=SECTION_ROWS + 1)]


def _personal(app: Waymarks) -> tuple[list[dict[str, Any]], list[str]]:
    from waymarks.personal.entry import PersonalMemoryError
    from waymarks.personal.setup import personal_store

    try:
        entries, unread = personal_store(app).scan()
    except (OSError, PersonalMemoryError) as exc:
        return [], [f"personal memory could not be read: {type(exc).__name__}"]
    # what `personal list` names (a file that is no entry, a directory that is a file or
    # a link to nothing, a legacy file not converted): the section said "No personal
    # memory." and the person's file was left out without a word
    return [{"slug": e.slug, "name": e.name, "description": e.own_description,
             "type": e.type, "classification": e.classification, "body": e.body}
            for e in entries], [f"personal memory: not read: {u.file}: {u.reason}"
                                for u in unread]


def _docs(app: Waymarks, problems: list[str]) -> list[dict[str, Any]]:
    """The project's doc passages, each at the level a plan gives it: unmarked text at
    least at the policy's ``defaultClassification`` (shown as ``normal`` under a
    ``local-only`` default, while every plan held it back as ``local-only``). Each file no
    plan reads is added to ``problems``: a doc over 1 MB was left out without a word."""
    from waymarks.personal.docs import load_chunks
    from waymarks.service.planning import settings_for

    floor = settings_for(app).policy.default_classification
    unread: list[str] = []
    try:
        chunks = load_chunks(Path(app.cwd), floor, unread)
    except OSError:
        return []
    finally:
        problems += [f"engineering docs: not read: {why}" for why in unread]
    return [{"source": c.source, "status": c.status, "level": c.level, "text": c.text}
            for c in chunks]


def learned_claims(home: Path, problems: list[str]) -> list[Any]:
    """The learned claims; none, with the reason added to ``problems``, when the learned
    ledger cannot be read (pins and memory are shown anyway, as the CLI shows them: the
    overview and the timeline of every project were an error page)."""
    from waymarks.service.evolution import Evolution
    from waymarks.service.learning import has_ledger

    if not has_ledger(home):  # (a directory or a FIFO there is a damaged ledger, named
        # below: the pages showed no learned memory and no note, as if nothing was learned)
        return []
    try:
        with Evolution(home) as evo:
            return evo.claims(None)
    except ServiceError as exc:
        problems.append(str(exc))
        return []


def learned_claim(home: Path, claim_id: str) -> tuple[Any, list[dict[str, Any]]] | None:
    """One learned claim and the events that changed it, oldest first (the newest
    :data:`SECTION_ROWS`), as ``waymarks evolution show`` lists them: read from the
    claim's changes, not from the events whose subject is the claim (an undo's subject is
    the event it undoes: it was left out, and the event it undid was shown applied, with
    an Undo button the CLI then refused); nor every event of the home, read for one page."""
    from waymarks.service.evolution import Evolution, ledger_path
    from waymarks.service.evolution_edits import changed_since

    if not ledger_path(home).is_file():
        return None
    with Evolution(home) as evo:
        claim = evo.claim(claim_id)
        if claim is None:
            return None
        # ``undoable``: what `evolution undo` takes (every claim it changed still as it
        # left it): the feedback an undo undid offered Undo again, which was refused
        events = [{"seq": e.seq, "entryId": e.entry_id, "op": e.op, "applied": e.applied,
                   "reason": e.reason,
                   "undoable": e.applied and changed_since(evo, e) is None}
                  for e in reversed(evo.store.history(SECTION_ROWS, claim_id))]
    return claim, events


def item(app: Waymarks, kind: Kind, ref: str) -> Provenance | str:
    """The item ``ref`` (an ID or unique prefix) names, with its provenance; or why none."""
    from waymarks.commands.refs import resolve
    from waymarks.service.provenance import provenance

    with app.begin():
        found = resolve(app, kind, ref)
        if not isinstance(found, str):
            return found.message
        shown = provenance(app, kind, found)
    return shown if shown is not None else f"No {kind} {found} in this session or project"


@dataclass
class Explained:
    prompt: str
    provider: str
    providers: list[str]
    messages: list[dict[str, Any]]
    manifest: dict[str, Any]
    recall: dict[str, Any]
    withheld: list[dict[str, Any]]
    other_excluded: list[dict[str, Any]]
    budgets: dict[str, int]


def providers(app: Waymarks) -> tuple[str, list[str]]:
    """The default provider and every provider the policy names."""
    from waymarks.service.planning import settings_for

    settings = settings_for(app)
    policy = settings.policy
    names = {settings.default_provider, *policy.local_providers, *policy.remote_providers}
    return settings.default_provider, sorted(names)


def explain(app: Waymarks, prompt: str, provider: str | None) -> Explained:
    """What the planner would inject for ``provider`` (the default when ``None``) and why:
    the blocks in order with their budgets, the recall explanation (IDs, features, gates
    and scores, never the text of a claim), and what privacy withheld."""
    from waymarks.personal.setup import plan_with_memory
    from waymarks.recall.engine import explain as recall_explain
    from waymarks.service.planning import settings_for

    with app.begin():
        default, names = providers(app)
        chosen = provider if provider in names else default
        made = plan_with_memory(app, prompt, provider=chosen)
        report = recall_explain(app.recall(prompt, provider=chosen, every_candidate=True))
        budgets = settings_for(app).budgets
    manifest = made.manifest_json()
    excluded = [e for e in manifest["entries"] if e["decision"] == "excluded"]
    return Explained(
        prompt, chosen, names, [m.to_json() for m in made.messages], manifest, report,
        [e for e in excluded if PRIVACY_REASON in e["reason"]],
        [e for e in excluded if PRIVACY_REASON not in e["reason"]],
        {"pins": budgets.max_pinned_tokens, "memory": budgets.max_memory_tokens,
         "results": budgets.max_results})


def known_projects(app: Waymarks) -> list[str]:
    """The projects of this home: trusted ones and those with sessions (one header read
    per project folder)."""
    from waymarks.service.sessions_api import session_projects

    return sorted(set(app.trusted_projects()) | {app.cwd} | set(session_projects(app.home)))


class Event(msgspec.Struct, frozen=True):
    at: int
    kind: str  # pin | memory | learned
    what: str  # add | supersede | invalidate | expire | delete | learned | forget
    id: str
    scope: str


TIMELINE_KINDS = ("add", "supersede", "invalidate", "expire", "delete", "learned", "forget")
#: the values each timeline filter takes (none: any), the page's choices and its check:
#: a value outside them (a bookmark's ``?kind=pins``) matched nothing, under selects that
#: all said "any"; a learned claim's ``conflicted`` had no choice
TIMELINE_FILTERS: Final = {
    "scope": (*get_args(Scope), "learned"),
    "kind": ("pin", "memory", "learned"),
    "status": tuple(dict.fromkeys((*get_args(Status), *get_args(ClaimState)))),
}


def unknown_filter(chosen: dict[str, str]) -> str | None:
    """Why a timeline filter of ``chosen`` is none the page offers, else ``None``."""
    for name, value in chosen.items():
        offered = TIMELINE_FILTERS[name]
        if value and value not in offered:
            return (f"The timeline has no {name} {value!r}: choose one of "
                    f"{', '.join(offered)}, or none for any.")
    return None


class Timeline(msgspec.Struct, frozen=True):
    """The newest changes (at most :data:`TIMELINE_SHOWN`, oldest first), how many there
    are, and each day's count of each kind of change."""

    events: list[Event]
    total: int
    days: list[tuple[str, dict[str, int]]]


#: the newest changes the timeline lists (its day chart counts them all)
TIMELINE_SHOWN: Final = 200


def timeline(app: Waymarks, *, scope: str | None = None, kind: str | None = None,
             status: str | None = None, problems: list[str] | None = None) -> Timeline:
    """The changes to this project's memory: items added or superseding another, status
    changes (at the item's last change), learned claims and forgets (none when the
    learned ledger cannot be read: why is added to ``problems``). The items' changes are
    counted per day in the store, and only those of the newest are read (each request
    read, verified and decoded every item: 3 s at 20k, under the inspector's one lock)."""
    problems = [] if problems is None else problems
    from waymarks.service.provenance import updated_at

    events: list[Event] = []
    counted: list[tuple[str, str, int]] = []
    with app.begin():
        session = app.refresh()
        sid = session.session_id if session is not None else ""
        for item_kind in ("pin", "memory"):
            if kind not in (None, "", item_kind):
                continue
            counted += app.projection.timeline_days(item_kind, sid, app.cwd, scope or "",
                                                    status or "")
            ids = app.projection.timeline_newest(item_kind, sid, app.cwd, TIMELINE_SHOWN,
                                                 scope or "", status or "")
            views = [v for v in (app.items(item_kind, ids=ids) if ids else [])
                     if scope in (None, "", v.scope) and status in (None, "", v.status)]
            changed = updated_at(app, views)
            for v in views:
                events.append(Event(v.created_at, item_kind,
                                    "supersede" if v.supersedes else "add", v.id, v.scope))
                ended = ENDING_CHANGES.get(v.status)
                if ended is not None:
                    events.append(Event(changed[v.id], item_kind, ended, v.id, v.scope))
    learned: list[Event] = []
    if kind in (None, "", "learned") and scope in (None, "", "learned"):
        learned = _learned_events(app.home, status, problems)
    days = {day: counts for day, counts in buckets(learned)}
    for day, what, count in counted:
        tally = days.setdefault(day, dict.fromkeys(TIMELINE_KINDS, 0))
        tally[what] = tally.get(what, 0) + count
    shown = sorted([*events, *learned], key=lambda e: (e.at, e.id))[-TIMELINE_SHOWN:]
    return Timeline(shown, len(learned) + sum(count for _d, _w, count in counted),
                    sorted(days.items()))


def _learned_events(home: Path, status: str | None, problems: list[str]) -> list[Event]:
    """Each learned claim's appearance (learned, or a correction's new claim) and its
    forgetting, each at its own event's time, from the evolution ledger's events (one
    event per claim, at its last change, lost the day it was learned once forgotten)."""
    from waymarks.service.evolution import Evolution
    from waymarks.service.learning import has_ledger

    if not has_ledger(home):  # (as in learned_claims)
        return []
    try:
        with Evolution(home) as evo:
            states = {claim.id: claim.state for claim in evo.claims(None)}
            history = evo.store.history(_ALL_EVENTS)
    except ServiceError as exc:
        problems.append(str(exc))
        return []
    events: list[Event] = []
    for event in history:
        for change in event.changes:
            if status not in (None, "", states.get(change.claim_id)):
                continue
            if change.before is None:
                what = "learned"
            elif change.after["state"] == "forgotten" != change.before["state"]:
                what = "forget"
            else:
                continue
            events.append(Event(_iso_ms(event.at), "learned", what, change.claim_id,
                                "learned"))
    return events


#: the learned events a timeline reads at most (the page shows the latest 200)
_ALL_EVENTS: Final = 100_000


def _iso_ms(text: str) -> int:
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


def buckets(events: list[Event]) -> list[tuple[str, dict[str, int]]]:
    """Events per day (UTC), each day with a count per kind of change."""
    days: dict[str, dict[str, int]] = {}
    for event in events:
        day = when(event.at)[:10] if event.at else "unknown"
        counts = days.setdefault(day, dict.fromkeys(TIMELINE_KINDS, 0))
        counts[event.what] = counts.get(event.what, 0) + 1
    return sorted(days.items())


def open_project(app: Waymarks, project: str | None) -> Waymarks | None:
    """The service for another known project of the same home (``None``: not known)."""
    from waymarks.service.app import Waymarks

    if not project or project == app.cwd:
        return app
    if project not in known_projects(app):
        return None
    # a known project whose folder is gone: refused by the page (web.app._refuse_gone)
    other = Waymarks(app.home, cwd=project, project_may_be_gone=True)
    try:
        other.current_session()
    except ServiceError:
        other.close()
        raise
    return other
