"""``context_persistence``: the model's bounded way to read and propose changes to pins,
memory and project-memory sources (seed 001).

A call goes through three steps:

1. :meth:`ContextPersistence.prepare` applies the contract (sentinel, matrix, grammars),
   checks that a persistent session exists, and then either answers a read or plans a
   write: the exact target and its revision, the provenance (the latest user message on
   the active branch), and the write's own decision run as a dry run
   (:meth:`~waymarks.service.app.Waymarks.dry_run` with the core's ``decide_*``, the same
   rule the write runs: lengths, credentials, keys, reasons, scope and trust are the
   core's, never copied here). The answers come in this order: the request's own
   refusals; then the provider policy for the effective classification (markers and
   credentials can only raise it; a level the destination may not receive, and
   ``local-only`` always, is refused: the text already came through the model); only
   then what is stored (a conflict is ``rejected`` with the conflicting IDs, a duplicate
   is ``ok`` with the existing ID, a branch problem is rejected). All of it comes before
   anyone is asked; the core's rejection codes become the tool's error categories through
   one table (:data:`CATEGORIES`, :mod:`~waymarks.tool.persistence_answers`). Otherwise it
   returns the confirmation the person must see.
2. The host asks the person (a :class:`~waymarks.service.ports.Confirmer`, or MCP
   elicitation). ``unavailable`` (no UI) ends as ``unavailable``/``confirmation-required``;
   refusal, closure or abort as ``cancelled``, and so does an answer that is neither yes
   nor no (``confirmation-invalid``). Nothing is written before a yes.
3. :meth:`ContextPersistence.commit` prepares again (provider, trust, provenance and target
   are re-checked after the confirmation), requires that this exact confirmation was shown,
   and writes through the same service primitives as the CLI. Under the session lock, a
   guard re-checks the target's fingerprint, so a target changed by anyone meanwhile is
   refused, never overwritten.

When the branch holds no user message (an MCP client with no hook feeding the ledger),
the accepted confirmation itself is recorded as the person's act: a
``waymarks-confirmation-v1`` entry (action name only, no content) becomes the write's
provenance. It stays in the ledger even if the write is then refused.

Calls run one at a time per instance (one instance per session); the wait for the
person's answer is outside that lock, which is why step 3 re-checks everything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from waymarks.core.decisions import Decision as WriteDecision
from waymarks.core.decisions import (
    WriteContext,
    clean_reason,
    decide_memory,
    decide_pin,
    decide_status,
)
from waymarks.core.egress import Egress
from waymarks.core.marked_filter import filter_text
from waymarks.core.privacy import Classification, has_markers, highest
from waymarks.planner.render import ident
from waymarks.service.history import latest_user_entry
from waymarks.service.outcomes import (
    Duplicate,
    Rejected,
    ServiceError,
    WriteOutcome,
)
from waymarks.service.planning import egress_for
from waymarks.service.ports import (
    ConfirmationRequest,
    Confirmer,
    Decision,
    SessionFileError,
    SessionLog,
    epoch_ms,
)
from waymarks.service.search import find_items
from waymarks.service.shown import Shown
from waymarks.service.sources import list_sources, set_source_excluded
from waymarks.service.views import ItemView
from waymarks.service.write_path import unsaved
from waymarks.tool.confirmation import (
    CONFIRM_TITLE,
    effective_level,
    item_confirmation,
    shown_text,
)
from waymarks.tool.contract import ACTIONS, DEFAULT_RESULTS, Refusal, Request, parse_request
from waymarks.tool.egress import preview
from waymarks.tool.persistence_answers import (
    AFTER_EGRESS,
    Rejector,
    carrying,
    over_level,
    write_answer,
)
from waymarks.tool.persistence_answers import CATEGORIES as CATEGORIES
from waymarks.tool.results import PersistenceClass, ToolResult, listing, read_noted, result
from waymarks.tool.revisions import (
    Context,
    Revisions,
    SourceRefs,
    projected_state,
    source_state,
    view_state,
)

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

CONFIRMATION_RECORD: Final = "waymarks-confirmation-v1"
#: the person's answer; ``invalid``: the client answered with something that is not a
#: yes or a no (it ends as ``cancelled``/``confirmation-invalid``, like a closed dialog)
Answer = Decision | Literal["invalid"]
_NOT_ACCEPTED: Final = {"declined": "declined", "cancelled": "cancelled",
                        "invalid": "confirmation-invalid"}
_PERSISTENCE: Final[dict[str, PersistenceClass]] = {
    "read": "read", "canonical": "canonical", "derived": "derived-local-policy"}


class WritePlan(msgspec.Struct, frozen=True):
    request: Request
    target: str | None  # item ID, or session ID for source actions
    state: str | None  # the target's fingerprint when it was read
    provenance: str | None  # entry ID of the latest user message on the branch
    level: Classification | None  # the classification to store (raised, never lowered)
    confirmation: ConfirmationRequest
    carried: Classification | None = None  # the level of all the call carried (carrying)

    @property
    def question(self) -> str:
        """What the person is asked, whole: what a yes stands for. It names the session
        the write goes to and the message it cites (:func:`item_confirmation`), so a new
        user message or another session meanwhile is another question."""
        return f"{self.confirmation.title}\n\n{self.confirmation.message}"


class ContextPersistence:
    def __init__(self, app: Waymarks, *, provider: str | None = None, persistent: bool = True,
                 revisions: Revisions | None = None, refs: SourceRefs | None = None,
                 confirmed_via: str = "confirmation") -> None:
        """``provider``: where results go (the configured default when ``None``);
        ``persistent=False``: the host has no session file (every call is unavailable)."""
        self.app = app
        self.provider = provider
        self.persistent = persistent
        self.revisions = revisions or Revisions()
        self.refs = refs or SourceRefs()
        self.confirmed_via = confirmed_via
        self._lock = threading.Lock()
        self._shown = Shown()  # the questions shown, with expiry
        self._provenance_cache: tuple[tuple[str, int, str | None], str | None] | None = None

    # -- the whole call, for hosts with a synchronous confirmer ------------------------

    def call(self, arguments: object, confirmer: Confirmer) -> ToolResult:
        prepared = self.prepare(arguments)
        if isinstance(prepared, ToolResult):
            return prepared
        self.shown(prepared.question)
        try:
            decision = confirmer.confirm(prepared.confirmation)
        except Exception:  # noqa: BLE001 (a dialog that failed is not a yes)
            decision = "cancelled"
        return self.commit(arguments, decision)

    # -- step 1 -------------------------------------------------------------------------

    def prepare(self, arguments: object) -> ToolResult | WritePlan:
        request = parse_request(arguments)
        if isinstance(request, Refusal):
            return result(action_name(arguments), "rejected", error=request.category)
        with self._lock:
            return self._prepare(request)

    def shown(self, question: str) -> None:
        """Record that ``question`` (a plan's :attr:`WritePlan.question`) was put in
        front of the person."""
        self._shown.record(question)

    def _prepare(self, request: Request) -> ToolResult | WritePlan:
        """One request (:meth:`Waymarks.begin`): the session brought up to date once,
        then read or planned. A host that runs this tool is a session: its ledger is
        created on first use."""
        name = request.action.name
        try:
            if not self.persistent:
                return result(name, "unavailable", error="runtime-unavailable")
            self.app.current_session(create=True)
            with self.app.begin() as request_state:
                session = request_state.session
                if session is None:
                    return result(name, "unavailable", error="runtime-unavailable")
                if request.action.klass == "read":
                    return read_noted(self._read(request, session), self.app)
                if unsaved(session) is not None:  # (its message is the CLI's to show)
                    return result(name, "rejected", error="not-saved")
                return self._plan(request, session)
        except (ServiceError, SessionFileError, OSError):
            return result(name, "unavailable", error="runtime-unavailable")

    # -- step 3 -------------------------------------------------------------------------

    def commit(self, arguments: object, decision: Answer) -> ToolResult:
        request = parse_request(arguments)
        name = request.action.name if isinstance(request, Request) else None
        if isinstance(request, Refusal):
            return result(action_name(arguments), "rejected", error=request.category)
        if decision == "unavailable":
            return result(name, "unavailable", error="confirmation-required")
        if decision != "accepted":
            return result(name, "cancelled", error=_NOT_ACCEPTED[decision])
        with self._lock:
            plan = self._prepare(request)  # everything is checked again after the answer
            if isinstance(plan, ToolResult):
                return plan
            if not self._shown.spend(plan.question):
                return result(name, "rejected", error="changed-since-confirmation")
            done = self._execute(plan)
            return done if plan.carried is None else carrying(done, plan.carried,
                                                               self._egress())

    # -- reads --------------------------------------------------------------------------

    def _context(self, session: SessionLog) -> Context:
        return Context(session.session_id, self.app.cwd)

    def _now(self) -> int:
        return epoch_ms(self.app.clock.now())

    def _read(self, request: Request, session: SessionLog) -> ToolResult:
        action = request.action
        limit = int(request.get("maxResults", DEFAULT_RESULTS))
        if action.kind == "source":
            return self._sources(request, session, limit)
        active_only = bool(request.get("activeOnly", True))
        kind: Literal["pin", "memory"] = "pin" if action.kind == "pin" else "memory"
        egress = self._egress()  # trust and policy read once, not per item
        trusted = self.app.project_trusted
        if action.name.endswith("_find"):
            views = find_items(self.app, kind, str(request.get("query")),
                               active_only=active_only, limit=limit + 1,
                               admits=lambda v: (v.scope != "project" or trusted)
                               and findable(v, egress))
        elif active_only:
            views = self.app.items(kind, recent_active=limit + 1)
        else:
            views = self.app.items(kind, recent=limit + 1)
        shown = views[:limit]
        items = [self._item_meta(v, session, egress) for v in shown]
        previews: list[str] = []
        if action.name.endswith("_find"):
            previews = [preview(v.text, egress, v.classification)
                        if (v.scope != "project" or trusted)
                        and egress.admits(meta["classification"]) else ""
                        for v, meta in zip(shown, items, strict=True)]
        return listing(action.name, items, len(views) > limit, previews)

    def _item_meta(self, view: ItemView, session: SessionLog, egress: Egress
                   ) -> dict[str, Any]:
        # IDs as a model may see them: a hand-edited or foreign ledger line can make one
        # hold any text (a forged line, a local-only span, a credential)
        meta: dict[str, Any] = {
            "id": ident(egress, view.id, view.classification), "kind": view.kind,
            "scope": view.scope, "status": view.status,
            "classification": effective_level(view.text, view.classification, egress),
            "applies": view.applies, "createdAt": view.created_at,
        }
        if view.superseded_by:
            meta["supersededBy"] = ident(egress, view.superseded_by, view.classification)
        if view.status == "active":
            meta["revision"] = self.revisions.issue(
                view.id, view_state(view), self._context(session), session.leaf_id, self._now())
        return meta

    def _egress(self) -> Egress:
        """The destination provider's egress (an untrusted project's text is listed,
        never quoted: see the previews)."""
        return egress_for(self.app, self.provider)

    def _sources(self, request: Request, session: SessionLog, limit: int) -> ToolResult:
        views = list_sources(self.app, limit + 1)
        now = self._now()
        items = [{"id": self.refs.ref_for(v.session_id, now), "kind": "source",
                  "status": v.status, "excluded": v.excluded, "active": v.active,
                  "contributed": v.contributed, "heldBack": v.held_back,
                  "revision": self.revisions.issue(v.session_id, source_state(v),
                                                   self._context(session), session.leaf_id,
                                                   now)}
                 for v in views[:limit]]
        return listing(request.action.name, items, len(views) > limit)

    # -- planning a write ---------------------------------------------------------------

    def _plan(self, request: Request, session: SessionLog) -> ToolResult | WritePlan:
        action = request.action
        now = self._now()
        context = self._context(session)
        branch = session.branch_set()
        rejected = Rejector(action.name)
        if action.kind == "source":
            return self._plan_source(request, session, rejected)
        kind: Literal["pin", "memory"] = "pin" if action.kind == "pin" else "memory"
        target: ItemView | None = None
        if "id" in action.required:
            found = self.app.items(kind, ids=[str(request.get("id"))])
            if not found:
                return rejected("not-found")
            target = found[0]
            problem = self.revisions.check(str(request.get("targetRevision")), target.id,
                                           view_state(target), context, branch, now)
            if problem is not None:
                return rejected(problem)
            if target.status != "active":
                return rejected("not-active")
        egress = self._egress()
        level = self._level(request, target, egress)
        stored_level = level if request.get("content") is not None else None
        provenance = self._provenance(session)
        # The service's own decision, as a dry run: every rule of the write (lengths,
        # credentials, keys, reasons, scope, trust, branch, duplicates, conflicts) is
        # answered now, before the person is asked about a doomed write.
        decided = self.app.dry_run(_decider(request, target.id if target else None,
                                            stored_level, provenance))
        if isinstance(decided, Rejected) and decided.code not in AFTER_EGRESS:
            # the request itself is refused
            return carrying(write_answer(action.name, decided, egress), level, egress)
        refused = over_level(level, egress, rejected)
        if refused is not None:
            return refused
        if isinstance(decided, Rejected | Duplicate) and not self._withholds(decided):
            # what is stored answers only now
            return carrying(write_answer(action.name, decided, egress), level, egress)
        # a duplicate of (or a conflict with) an item this provider may not receive: the
        # answer would confirm the model's guess at its text, silently; the person is
        # asked as for any add, and the answer after it names no such item
        # an add of a stored text at a stricter level supersedes the stored item: say so
        replaces = decided.previous_id if target is None and not isinstance(
            decided, Rejected | Duplicate) and decided.operation == "supersede" else None
        return WritePlan(request, target.id if target else None,
                         view_state(target) if target else None, provenance, stored_level,
                         item_confirmation(request, target, stored_level,
                                           session.session_id, provenance, replaces), level)

    def _provenance(self, session: SessionLog) -> str | None:
        """The newest user message on the branch (cached per ledger state: one call
        prepares more than once, and the answer only changes when the ledger does)."""
        key = (session.session_id, session.offset, session.leaf_id)
        if self._provenance_cache is None or self._provenance_cache[0] != key:
            found = latest_user_entry(session)
            self._provenance_cache = (key, found)
        return self._provenance_cache[1]

    def _level(self, request: Request, target: ItemView | None,
               egress: Egress) -> Classification:
        """The level of everything the write would store, content, key and reason
        together (raised by markers and credentials; a replacement never lowers the level
        of what it replaces)."""
        content, key, reason = (request.get("content"), request.get("key"),
                                request.get("reason"))
        level = effective_level(content or "", request.get("classification"), egress)
        for extra in (key, reason):
            if extra:
                level = highest(level, effective_level(extra, None, egress))
        if target is not None and content is not None:
            level = highest(level, effective_level(target.text, target.classification, egress))
        return level

    def _plan_source(self, request: Request, session: SessionLog,
                     rejected: Rejector) -> ToolResult | WritePlan:
        now = self._now()
        session_id = self.refs.resolve(str(request.get("id")), now)
        view = next((v for v in list_sources(self.app) if v.session_id == session_id), None)
        if session_id is None or view is None:
            return rejected("unknown-reference")
        problem = self.revisions.check(str(request.get("targetRevision")), session_id,
                                       source_state(view), self._context(session),
                                       session.branch_set(), now)
        if problem is not None:
            return rejected(problem)
        excluding = request.action.name == "memory_source_exclude"
        if excluding and view.active and not view.excluded:
            return rejected("active-source")
        # the checks every other write's reason gets, before anyone is asked
        cleaned = clean_reason(str(request.get("reason") or ""))
        egress = self._egress()
        if isinstance(cleaned, Rejected):
            return write_answer(request.action.name, cleaned, egress)
        level = self._level(request, None, egress)
        refused = over_level(level, egress, rejected)
        if refused is not None:
            return refused
        if excluding == view.excluded:  # already so: nothing to ask about
            return carrying(result(request.action.name, "ok",
                                    persistence=_PERSISTENCE[request.action.klass]),
                             level, egress)
        lines = [f"Action: {request.action.name}",
                 "Persistence: derived local policy (SQLite only; no session file changes)",
                 f"Source: session {session_id} ({view.status}; {view.contributed} project "
                 f"items contributed, {view.held_back} held back)"]
        if request.get("reason"):
            lines.append(f"Reason: {shown_text(str(request.get('reason')))}")
        return WritePlan(request, session_id, source_state(view), None, None,
                         ConfirmationRequest(CONFIRM_TITLE, "\n".join(lines)), level)

    # -- executing a confirmed write ----------------------------------------------------

    def _execute(self, plan: WritePlan) -> ToolResult:
        action = plan.request.action
        name = action.name
        persistence = _PERSISTENCE[action.klass]
        if action.kind == "source":
            assert plan.target is not None
            try:
                changed = set_source_excluded(self.app, plan.target,
                                              name == "memory_source_exclude",
                                              plan.request.get("reason"))
            except ServiceError as exc:
                known = exc.code in ("active_source", "not_found")
                return result(name, "rejected" if known else "unavailable",
                              error=exc.code.replace("_", "-") if known
                              else "runtime-unavailable", persistence=persistence)
            return result(name, "committed" if changed else "ok", persistence=persistence)
        unavailable = result(name, "unavailable", error="runtime-unavailable",
                             persistence=persistence)
        try:
            provenance = plan.provenance or self.app.append_record(
                CONFIRMATION_RECORD, {"action": name, "confirmedVia": self.confirmed_via})
        except (ServiceError, SessionFileError, OSError):
            return unavailable  # no mutation was attempted
        session = self.app.current_session()
        size = session.offset if session is not None else 0
        try:
            outcome = self._dispatch(plan, provenance)
        except (ServiceError, SessionFileError, OSError) as exc:
            if isinstance(exc, ServiceError) and not isinstance(exc.__cause__, OSError):
                return unavailable  # (a write's io_error is the OSError of its append)
            # The append may not have returned. If the ledger did not grow, nothing reached
            # it; otherwise completion cannot be established from here.
            grown = session is None or _grew(session, size)
            return result(name, "indeterminate", persistence=persistence) if grown \
                else unavailable
        if isinstance(outcome, Rejected | Duplicate) and self._withholds(outcome):
            return result(name, "ok", persistence=persistence, duplicate=True) if isinstance(
                outcome, Duplicate) else result(name, "rejected", error=CATEGORIES["conflict"])
        return write_answer(name, outcome, self._egress())

    def _withholds(self, outcome: Rejected | Duplicate) -> bool:
        """Whether the answer would name an item the destination may not receive."""
        named = [outcome.id] if isinstance(outcome, Duplicate) else list(outcome.conflicts)
        egress = self._egress()
        for item_id in named:
            state = self.app.projection.view.get(item_id)
            if state is not None and not egress.admits(
                    egress.level(state.text, state.item.classification)):
                return True
        return False

    def _dispatch(self, plan: WritePlan, provenance: str) -> WriteOutcome:
        request, app = plan.request, self.app
        guard = _TargetGuard(plan)
        target = plan.target or ""
        content = str(request.get("content", ""))
        level = plan.level
        reason = request.get("reason")
        match request.action.name:
            case "pin_add":
                return app.pin(content, scope=request.get("scope"), classification=level,
                               source=provenance, guard=guard)
            case "pin_supersede":
                return app.pin(content, classification=level, source=provenance,
                               supersedes=target, guard=guard)
            case "pin_unpin":
                return app.unpin(target, reason, guard=guard)
            case "memory_add":
                return app.remember(content, scope=request.get("scope"), classification=level,
                                    key=request.get("key"), sources=(provenance,), guard=guard)
            case "memory_supersede":
                return app.supersede_memory(target, content, classification=level,
                                            sources=(provenance,), guard=guard)
            case "memory_invalidate":
                return app.set_memory_status(target, "invalid", reason, guard=guard)
            case _:
                return app.set_memory_status(target, "expired", reason, guard=guard)


def _decider(request: Request, target: str | None, level: Classification | None,
             provenance: str | None) -> Callable[[WriteContext], WriteDecision]:
    """The service decision the write will make (see :meth:`ContextPersistence._dispatch`,
    which reaches the same ``decide_*`` rule through the service's write methods)."""
    content = str(request.get("content", ""))
    scope, reason = request.get("scope"), request.get("reason")
    sources = (provenance,) if provenance else ()  # else: the confirmation, on the branch
    name, ref = request.action.name, target or ""
    if name in ("pin_add", "pin_supersede"):
        return lambda ctx: decide_pin(ctx, content, scope=scope, classification=level,
                                      source=provenance, source_file=None,
                                      supersedes=target)
    if name in ("memory_add", "memory_supersede"):
        return lambda ctx: decide_memory(ctx, content, scope=scope, classification=level,
                                         key=request.get("key"), sources=sources,
                                         supersedes=target)
    status = {"pin_unpin": "deleted", "memory_invalidate": "invalid"}.get(name, "expired")
    kind: Literal["pin", "memory"] = "pin" if request.action.kind == "pin" else "memory"
    return lambda ctx: decide_status(ctx, kind, ref, status, reason)


class _TargetGuard:
    """Runs under the session lock: the target must still be exactly as it was read."""

    def __init__(self, plan: WritePlan) -> None:
        self.plan = plan

    def __call__(self, ctx: WriteContext) -> Rejected | None:
        if self.plan.target is None:
            return None
        state = ctx.view.get(self.plan.target)
        if state is None or projected_state(state) != self.plan.state:
            return Rejected("target_changed", "The target changed since it was read")
        return None


def _grew(session: SessionLog, size: int) -> bool:
    try:
        session.refresh()
    except (SessionFileError, OSError):
        return True
    return session.offset + session.partial_tail > size


def action_name(arguments: object) -> str | None:
    """The action, only when it is a known one (so an error never echoes input)."""
    action = arguments.get("action") if isinstance(arguments, dict) else None
    return action if isinstance(action, str) and action in ACTIONS else None


def findable(view: ItemView, egress: Egress) -> bool:
    """Whether a find may match ``view`` by its words: the destination may receive it,
    every span of it included (a span withheld under an exact allow list, such as
    ``["normal", "sensitive"]`` for an ``internal`` span, still matched its words); one
    whose spans it may all receive is found."""
    level = effective_level(view.text, view.classification, egress)
    return egress.admits(level) and (not has_markers(view.text) or filter_text(
        view.text, egress.allowed, view.classification or egress.default_level).dropped == 0)

