"""The inspector as a Starlette application: routes, templates, the project in view.

Pages read through :mod:`waymarks.web.reads` and act through :mod:`waymarks.web.actions`
(the command table); this module only picks the project, parses the request and renders.
Every route is behind :class:`waymarks.web.security.GateMiddleware`.

What must stay true:

- templates are rendered with autoescape on for every file, and stored text passes the
  ``reveal`` filter first (control and bidirectional-format characters shown as ``\\u202e``
  escapes), so hostile text is shown as text and cannot act or reorder the page;
- an action is two requests: ``/confirm`` rehearses it (every check, nothing written) and
  shows what will run, or the refusal instead of the question; ``/act`` runs it; both are
  POSTs under the gate's CSRF check, kept out of the browser's history (a GET of either
  is sent to the overview);
- a handler reads its form on the event loop, then does all its work (the service, the
  template) in a worker thread under the inspector's one lock (:func:`_off_loop`): calls
  on the service objects stay serialized (SQLite objects are shared, and a request may
  close another project's service: only :data:`KEPT_PROJECTS` stay open), while the
  loop stays free. Served on the loop, a database another process held locked stopped
  every request for its 30 s busy wait, static files and the gate's own refusals too;
- an error no handler expected is a page with the gate's headers (a bare 500 from the
  server had none), naming its type, never a traceback.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

import jinja2
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from waymarks.commands.sessions import repair_lines
from waymarks.core.text import escaped, typed_id
from waymarks.core.text import shell_command as command
from waymarks.service.outcomes import ServiceError
from waymarks.service.sessions_api import follow_newest
from waymarks.web import actions, reads
from waymarks.web.security import Gate, GateMiddleware

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

HERE: Final = Path(__file__).parent
MAX_FIELD: Final = 20_000  # characters of one form field (a pin is at most 4,000)
#: services of other projects kept open (each holds a database connection): the most
#: recently viewed; one viewed again after it was closed is opened anew
KEPT_PROJECTS: Final = 8
#: worker threads the pages may use at once (they run one at a time, under one lock)
PAGE_THREADS: Final = 2


def reveal(text: object) -> str:
    """``text`` with every character that is neither printable nor a line break or tab
    escaped (``\\u202e``): a right-to-left override or a zero-width joiner is seen, not
    obeyed. Escaping for HTML is autoescape's job, after this."""
    return "" if text is None else escaped(str(text), keep="\n\t")


def short(text: object) -> str:
    """An item's ID shortened to its first 8 characters, as the CLI lists it; an ID of
    another kind (``personal:home-address``, ``docs:…``) whole: cut, every personal
    entry read "personal"."""
    shown = reveal(text)
    return shown if ":" in shown else shown[:8]


def segment(text: object) -> str:
    """An ID as one path segment of a link: every character but letters, digits and
    ``-._~`` percent-encoded, so an ID holding ``/``, ``?``, ``#`` or ``%`` (any text a
    hand-written or foreign ledger line carries) names its own page."""
    return quote(str(text), safe="")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["reveal"] = reveal
    env.filters["when"] = reads.when
    env.filters["short"] = short
    env.filters["command"] = command
    env.filters["segment"] = segment
    env.filters["compact"] = lambda value: json.dumps(value, ensure_ascii=False,
                                                      sort_keys=True)
    return env


class Inspector:
    """The state of one launch: the service of the project it started in, the services
    of other projects viewed since (the :data:`KEPT_PROJECTS` most recent), the gate, the
    templates."""

    def __init__(self, app: Waymarks, gate: Gate) -> None:
        self.app = app
        self.gate = gate
        self.env = environment()
        #: every link and form starts with the launch's path (:attr:`Gate.prefix`); a
        #: global, so the imported macros see it too
        self.env.globals["base"] = gate.prefix
        self.others: dict[str, Waymarks] = {}
        #: held by every request's work (:func:`_off_loop`): the services are not shared
        #: between threads at once
        self.lock = threading.Lock()
        #: the worker threads pages may hold at once (waiting on the lock): past them a
        #: request waits on the loop, and the default pool stays free for static files
        self.limiter: Any = None
        #: the pages under way (their worker's work, or their turn to start it): what the
        #: first Ctrl-C says it waits for
        self.under_way: dict[int, str] = {}
        #: set by a second Ctrl-C (:meth:`abandon`): the pages under way are answered at
        #: once, their work left to end with the process
        self.abandoned = False
        self._loop: Any = None
        self._stop_now: Any = None
        self._then: Callable[[], None] = lambda: None
        #: whether the home has been seen (a launch before the first command has none:
        #: the first write makes it, as a command's would)
        self.home_seen = app.home.is_dir()

    def check_home(self) -> None:
        """Refuse every page once the home seen is gone (moved or deleted while the
        inspector runs): one page said "could not answer (FileNotFoundError)", then the
        next made a new, empty home at the path and showed it as if nothing had changed."""
        if self.app.home.is_dir():
            self.home_seen = True
        elif self.home_seen:
            raise ServiceError("home_gone", (
                f"{self.app.home}: the Waymarks home this inspector was started on is gone "
                "(moved or deleted while it runs); nothing was read or written, and no new "
                "home was made. Put it back, or stop the inspector (Ctrl-C) and start "
                "`waymarks ui` again, with WAYMARKS_HOME naming where the home is now"))

    def abandon(self, then: Callable[[], None]) -> None:
        """Answer every page under way now, without waiting for its work (a second
        Ctrl-C; called in the signal handler, on the loop's thread); ``then`` once the
        last of them is answered (the server stops at once, as a second Ctrl-C stops it
        when no page is under way)."""
        self.abandoned, self._then = True, then
        if self._loop is not None and self._stop_now is not None:
            self._loop.call_soon_threadsafe(self._stop_now.set)

    def close(self) -> None:
        """Close the other projects' services, once no request's work holds them (a
        forced stop may leave one waiting out a busy database: at most its wait; an
        abandoned one is not waited for, and what it holds is left to the process's end)."""
        held = self.lock.acquire(timeout=0 if self.abandoned else 35)
        if not held and self.abandoned:
            return
        try:
            for other in self.others.values():
                other.close()
            self.others.clear()
        finally:
            if held:
                self.lock.release()

    def service(self, request: Request) -> Waymarks | None:
        """The service of the project in view, on its newest session (a session started
        since the last request is the one a new command would act on)."""
        project = request.query_params.get("project")
        if not project or project == self.app.cwd:
            _refuse_gone(self.app.cwd)  # the launch's own folder too
            follow_newest(self.app)
            return self.app
        kept = self.others.pop(project, None)  # kept again last: the most recently viewed
        if kept is None:
            kept = reads.open_project(self.app, project)
            if kept is None:
                return None
            while len(self.others) >= KEPT_PROJECTS:
                self.others.pop(next(iter(self.others))).close()  # the least recently viewed
        try:
            _refuse_gone(project)
        except ServiceError:
            kept.close()
            raise
        self.others[project] = kept
        follow_newest(kept)
        return kept

    def render(self, name: str, app: Waymarks | None, status: int = 200,
               **values: Any) -> HTMLResponse:
        project = app.cwd if app is not None else self.app.cwd
        query = "" if project == self.app.cwd else "?" + _encode({"project": project})
        html = self.env.get_template(name).render(
            csrf=self.gate.csrf, project=project, home_project=self.app.cwd,
            project_query=query, **values)
        return HTMLResponse(html, status_code=status)

    def problem(self, message: str, status: int = 400,
                heading: str = "Nothing was done") -> HTMLResponse:
        """A page saying what went wrong; ``heading`` says whether anything was done (an
        action that failed after it started may have written: it must not say no)."""
        return self.render("problem.html", None, status, message=message, heading=heading)


def _refuse_gone(project: str) -> None:
    """Refuse a project whose folder is gone, as the CLI's ``--cwd`` refuses it."""
    if not os.path.isdir(project):
        raise ServiceError("invalid_argument", f"{project}: not a directory (the project's "
                           "folder is gone); its records stay in the home")


def _encode(values: dict[str, str]) -> str:
    from urllib.parse import urlencode

    return urlencode(values)


async def _form(request: Request) -> dict[str, str]:
    """The form's fields (the first of each name); :class:`actions.BadAction` when one is
    longer than :data:`MAX_FIELD` (never cut short: a shortened text is another text)."""
    form = await request.form()
    values: dict[str, str] = {}
    for key, value in form.multi_items():
        if isinstance(value, str) and key not in values:
            if len(value) > MAX_FIELD:
                raise actions.BadAction(f"the field {key!r} is longer than {MAX_FIELD:,} "
                                        "characters; nothing was done")
            if "\x00" in value:  # an HTML page cannot carry it back: U+FFFD was stored
                raise actions.BadAction(f"the field {key!r} holds a NUL character, which "
                                        "the confirmation page cannot carry back as it is; "
                                        "nothing was done")
            # line breaks as the confirmation page will carry them back (a lone CR came
            # back as LF: the text stored was not the text confirmed)
            values[key] = value.replace("\r\n", "\n").replace("\r", "\n")
    return values


def build_app(app: Waymarks, gate: Gate) -> Starlette:
    """The ASGI application of one launch."""
    inspector = Inspector(app, gate)

    def overview(request: Request) -> Response:
        service = inspector.service(request)
        if service is None:
            return inspector.problem("Unknown project: choose one from the list.")
        data = reads.overview(service, reads.page_number(request.query_params.get("pins")),
                              reads.page_number(request.query_params.get("memory")))
        return inspector.render("overview.html", service, o=data,
                                projects=reads.known_projects(inspector.app))

    def health(request: Request) -> Response:
        service = inspector.service(request)
        if service is None:
            return inspector.problem("Unknown project: choose one from the list.")
        summary = request.query_params.get("summary") == "1"
        report = service.health()
        # a database set aside and rebuilt is said, as `waymarks health` says it (the
        # summary said "integrity ok" of a repair nobody was told of)
        return inspector.render("health_summary.html" if summary else "health.html",
                                service, health=report, repairs=repair_lines(report))

    def item(request: Request) -> Response:
        service = inspector.service(request)
        kind = request.path_params["kind"]
        if service is None or kind not in ("pin", "memory"):
            return inspector.problem("Unknown project or kind (pin, memory).", 404)
        shown = reads.item(service, kind, request.path_params["ref"])
        if isinstance(shown, str):
            return inspector.problem(shown, 404)
        return inspector.render("item.html", service, p=shown, kind=kind)

    def learned(request: Request) -> Response:
        # typed as the CLI takes it: a learned claim's hex ID in either case
        found = reads.learned_claim(inspector.app.home, typed_id(request.path_params["ref"]))
        if found is None:
            return inspector.problem("No learned claim has exactly that ID.", 404)
        claim, events = found
        return inspector.render("learned.html", inspector.service(request),
                                claim=claim, events=events, cut=reads.SECTION_ROWS)

    def explain(request: Request, form: dict[str, str]) -> Response:
        service = inspector.service(request)
        if service is None:
            return inspector.problem("Unknown project: choose one from the list.")
        if request.method == "GET":
            default, names = reads.providers(service)
            return inspector.render("explain.html", service, e=None, prompt="",
                                    provider=default, providers=names)
        prompt = form.get("prompt", "").strip()
        if not prompt:
            default, names = reads.providers(service)
            return inspector.render("explain.html", service, 400, e=None,
                                    prompt="", provider=default, providers=names,
                                    error="Type a prompt to explain.")
        shown = reads.explain(service, prompt, form.get("provider") or None)
        return inspector.render("explain.html", service, e=shown, prompt=prompt,
                                provider=shown.provider, providers=shown.providers)

    def timeline(request: Request) -> Response:
        service = inspector.service(request)
        if service is None:
            return inspector.problem("Unknown project: choose one from the list.")
        chosen = {k: request.query_params.get(k) or "" for k in reads.TIMELINE_FILTERS}
        unknown = reads.unknown_filter(chosen)
        if unknown is not None:
            return inspector.problem(unknown)
        problems: list[str] = []
        shown = reads.timeline(service, scope=chosen["scope"], kind=chosen["kind"],
                               status=chosen["status"], problems=problems)
        peak = max((sum(c.values()) for _d, c in shown.days), default=0)
        return inspector.render("timeline.html", service, events=shown.events,
                                total=shown.total, days=shown.days, peak=peak, chosen=chosen,
                                kinds=reads.TIMELINE_KINDS, problems=problems,
                                filters=reads.TIMELINE_FILTERS)

    def confirm(request: Request, form: dict[str, str]) -> Response:
        service = inspector.service(request)
        if service is None:  # never shown as if for the launch project
            return inspector.problem("Unknown project: choose one from the list.")
        try:
            action, line = actions.command_line(form.get("action", ""), form)
        except actions.BadAction as exc:
            return inspector.problem(str(exc))
        refused = actions.rehearse(service, line)  # every refusal before the question
        typed, session = actions.typed(service, line, refused)
        if refused is not None:
            return inspector.render("done.html", service, action=action,
                                    done=refused, checked=True, typed=typed,
                                    status=400 if refused.failed else 200)
        fields = {k: v for k, v in form.items() if k not in ("csrf",)}
        return inspector.render("confirm.html", service, action=action, typed=typed,
                                session=session, fields=fields)

    def act(request: Request, form: dict[str, str]) -> Response:
        service = inspector.service(request)
        if service is None:
            return inspector.problem("Unknown project: choose one from the list.")
        if form.get("confirmed") != "yes":
            return inspector.problem("Not confirmed: nothing was done.")
        try:
            action, line = actions.command_line(form.get("action", ""), form)
        except actions.BadAction as exc:
            return inspector.problem(str(exc))
        done = actions.run(service, line)
        typed, _session = actions.typed(service, line, done)
        return inspector.render("done.html", service, action=action, done=done,
                                checked=False, typed=typed,
                                status=400 if done.failed else 200)

    async def root_redirect(request: Request) -> Response:
        return RedirectResponse(gate.prefix + "/", status_code=303)

    def posted(endpoint: Callable[[Request], Awaitable[Response]]
               ) -> Callable[[Request], Awaitable[Response]]:
        """``endpoint`` for a POST; a GET of its URL (a reload, Back, a bookmark of an
        action's page) is sent to the overview of its project: it was a bare "Method Not
        Allowed"."""
        async def route(request: Request) -> Response:
            if request.method == "POST":
                return await endpoint(request)
            project = request.query_params.get("project")
            query = "?" + _encode({"project": project}) if project else ""
            return RedirectResponse(gate.prefix + "/" + query, status_code=303)

        return route

    served = partial(_off_loop, inspector)
    routes = [
        Route("/", served(overview)),
        Route("/index.html", root_redirect),
        Route("/health", served(health)),
        Route("/item/{kind}/{ref:path}", served(item)),
        Route("/learned/{ref:path}", served(learned)),
        Route("/explain", served(explain, form=True), methods=["GET", "POST"]),
        Route("/timeline", served(timeline)),
        Route("/confirm", posted(served(confirm, form=True)), methods=["GET", "POST"]),
        Route("/act", posted(served(act, form=True)), methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    # under the launch's path only: its cookie is sent to nothing else (see security)
    web = Starlette(routes=[Mount(gate.prefix, routes=routes)], exception_handlers={
        ServiceError: _service_error(inspector), actions.BadAction: _bad_form(inspector)})
    web.add_middleware(GateMiddleware, gate=gate)
    web.add_middleware(KeptOutOfHistory)  # outermost: the gate's own refusals too
    web.state.inspector = inspector  # the server closes the other projects' services
    return web


class KeptOutOfHistory:
    """Every answer to a POST tells htmx not to push the POST's URL into the browser's
    history (``HX-Push-Url: false``; a boosted form pushes its action's URL): the address
    bar keeps the page the form was on, so a reload or Back asks for a page, never
    ``GET /act``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)["HX-Push-Url"] = "false"
            await send(message)

        await self.app(scope, receive, sending)


def _off_loop(inspector: Inspector, handler: Callable[..., Response], *,
              form: bool = False) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` as an endpoint: the form read on the loop (``form``: passed on; a GET
    has none), the rest in a worker thread under the inspector's lock (module note)."""
    import asyncio

    import anyio
    import anyio.to_thread

    async def endpoint(request: Request) -> Response:
        fields = (await _form(request) if request.method != "GET" else {}) if form else None

        def work() -> Response:
            with inspector.lock:
                try:
                    inspector.check_home()
                    return handler(request, fields) if form else handler(request)
                except (ServiceError, actions.BadAction):
                    raise  # their own pages (the exception handlers)
                except Exception as exc:  # noqa: BLE001 (a page, never a bare 500)
                    acting = request.url.path.endswith("/act")  # it may have written
                    return inspector.problem(
                        f"The inspector could not answer ({type(exc).__name__}). " + (
                            "The action may have been made: look at the list before "
                            "trying it again" if acting else "Nothing was changed by this "
                            "page") + "; `waymarks health` in a terminal says more.", 500,
                        heading="The action may have been made" if acting
                        else "Nothing was done")

        if inspector.limiter is None:  # made on the loop, on first use
            inspector.limiter = anyio.CapacityLimiter(PAGE_THREADS)
        if inspector._loop is not asyncio.get_running_loop():  # (a test's client: many)
            inspector._loop, inspector._stop_now = asyncio.get_running_loop(), anyio.Event()
            if inspector.abandoned:
                inspector._stop_now.set()
        inspector.under_way[id(request)] = _described(request, fields, inspector.gate.prefix)
        worker = asyncio.ensure_future(anyio.to_thread.run_sync(
            work, limiter=inspector.limiter, abandon_on_cancel=True))
        stop_now = asyncio.ensure_future(inspector._stop_now.wait())  # a second Ctrl-C
        try:
            await asyncio.wait((worker, stop_now), return_when=asyncio.FIRST_COMPLETED)
        finally:
            del inspector.under_way[id(request)]
            if inspector.abandoned and not inspector.under_way:
                inspector._then()  # (its answer is sent before the server next looks)
            stop_now.cancel()
            if not worker.done():
                worker.cancel()  # its thread runs on, to end with the process
        if worker.done() and not worker.cancelled():
            return worker.result()  # (or its error, for the exception handlers)
        acting = request.url.path.endswith("/act")
        return inspector.problem(
            "The inspector was stopped (Ctrl-C twice) before this page was answered. " + (
                "An action still waiting for its turn to write (a database another "
                "process holds, or another page's work) was not made; one already writing "
                "is whole or absent: look at the list before trying it again"
                if acting else "Nothing was changed by this page"), 503,
            heading="The inspector stopped")

    return endpoint


def _described(request: Request, fields: dict[str, str] | None, prefix: str) -> str:
    """A page under way as the first Ctrl-C names it: ``POST /act (pin)``, never a
    field's text (the launch's path left out: it carries a secret)."""
    page = request.url.path.removeprefix(prefix) or "/"
    action = (fields or {}).get("action", "")
    known = f" ({action})" if action in actions.ACTIONS else ""
    return f"{request.method} {page}{known}"


def _bad_form(inspector: Inspector) -> Any:
    async def handle(request: Request, exc: Exception) -> Response:
        return inspector.problem(str(exc))

    return handle


def _service_error(inspector: Inspector) -> Any:
    async def handle(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "code", "error")
        refused = isinstance(exc, ServiceError) and exc.refusal  # the request's: a 400
        return inspector.problem(f"The service could not answer ({code}): {exc}",
                                 400 if refused else 500)

    return handle
