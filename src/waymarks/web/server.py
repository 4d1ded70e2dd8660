"""Serving the inspector: bind, print the URL with this launch's token, serve until
interrupted.

The socket is bound before the URL is printed, so the printed port is the real one (a
``--port 0`` asks the system for a free port) and a port in use fails before anything
is promised. Uvicorn's access log is off: the first request's URL carries the token.

What must stay true: the URL names the address the socket is bound to, never the name it
was given (``--host localhost`` binds 127.0.0.1 only, and a browser told ``localhost``
may try ``::1`` first, where another user of this machine can listen on the same port
and would be handed the token); and the listening socket is close-on-exec, so no child
this process starts (the detached worker an action can wake) holds the port. ``--open``
starts the browser with a page only this user can read that sends it on to the URL
(:func:`launch_page`), never with the URL itself: a command line is readable by every
user of the machine (``ps``), and the token would be handed to all of them; and it starts
it beside the server, in a thread, since a browser command may run until it is closed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import signal
import socket
import sys
import tempfile
import threading
import webbrowser
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from waymarks.core.loopback import url_host
from waymarks.core.text import escaped
from waymarks.web.security import Gate, host_names, is_loopback, moving_page, remote_warning

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


class BindError(OSError):
    """The address cannot be listened on (in use, not this machine's); nothing served."""


class Stopped(Exception):
    """The inspector stopped on ``signum`` (Ctrl-C, ``kill``, a closed terminal): said by
    the caller, who ends the process with :attr:`status`."""

    def __init__(self, signum: int, abandoned: tuple[str, ...] = ()) -> None:
        super().__init__(signum)
        self.signum = signum
        #: the pages a second Ctrl-C answered without waiting for their work (still
        #: running in a thread: the process must end without waiting for it either)
        self.abandoned = abandoned

    @property
    def status(self) -> int:
        return 128 + self.signum  # as a shell reports a process the signal ended

    @property
    def how(self) -> str:
        return "Ctrl-C" if self.signum == signal.SIGINT else signal.Signals(self.signum).name


class UnresolvedHost(BindError):
    """The ``--host`` names no address here, or one no interface of this machine has
    (another port would not help)."""


def bind(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (``[::1]`` as well as ``::1``), for the
    inspector and ``waymarks mcp --http`` alike; :class:`BindError` when it cannot
    (:class:`UnresolvedHost` when ``host`` names no address here)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except socket.gaierror as exc:  # (it was told to choose another --port)
        sock.close()
        raise UnresolvedHost(f"--host {shlex.quote(host)} does not resolve to an address here "
                             f"({exc.strerror or exc}); choose another --host, such as "
                             "127.0.0.1") from exc
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRNOTAVAIL:  # no interface here has it: no port would do
            raise UnresolvedHost(f"--host {shlex.quote(host)} is not an address of this "
                                 f"machine ({exc.strerror or exc}); choose another --host, "
                                 "such as 127.0.0.1") from exc
        if exc.errno == errno.EINVAL and family == socket.AF_INET6:
            # a link-local address (fe80::, with its %interface or without): no port would
            # do either (it was told to choose another --port)
            raise UnresolvedHost(f"--host {shlex.quote(host)} cannot be listened on "
                                 f"({exc.strerror or exc}: a link-local IPv6 address, "
                                 "fe80::, is refused so); choose another --host, such as "
                                 "127.0.0.1") from exc
        raise BindError(f"cannot listen on {url_host(host)}:{port}: "
                        f"{exc.strerror or exc}; choose another --port") from exc
    sock.listen(64)
    return sock  # close-on-exec, as Python makes every socket


def base_url(host: str, port: int) -> str:
    return f"http://{url_host(host)}:{port}"


def unspecified_loopback(address: str) -> str | None:
    """The loopback address that reaches a socket bound to every interface (``0.0.0.0``:
    ``127.0.0.1``; ``::``: ``::1``), else ``None``."""
    import ipaddress

    try:
        found = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return None
    if not found.is_unspecified:
        return None
    return "127.0.0.1" if found.version == 4 else "::1"


def launch_page(url: str) -> Path:
    """A page that sends the browser on to ``url``, in a file only this user can read
    (``mkstemp`` makes it 0600): what the browser is started with. The caller removes it;
    one not handed back (Ctrl-C, the launch's SIGTERM, a full disk meanwhile) is removed
    here, as the caller never learns its name."""
    fd, name = tempfile.mkstemp(prefix="waymarks-ui-", suffix=".html")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as page:
            page.write(moving_page(url))
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def serve(app: Waymarks, *, host: str, port: int, open_browser: bool = False,
          out: TextIO = sys.stdout, as_json: bool = False,
          opener: Callable[[str], object] = webbrowser.open) -> None:
    """Serve the inspector for ``app`` on ``host:port`` until interrupted. ``as_json``:
    announce it as one JSON line (``outcome``, ``url``, ``host``, ``port``, ``project``)
    instead of the text for people; nothing else is printed to ``out``."""
    import uvicorn

    from waymarks.web.app import build_app

    sock = bind(host, port)
    address, actual = sock.getsockname()[:2]
    if not is_loopback(host):  # said once it listens there, with the port it got
        print(remote_warning(str(address), int(actual)), file=sys.stderr, flush=True)
    gate = Gate(hosts=host_names(host, actual) if is_loopback(host) else None)
    web = build_app(app, gate)
    everywhere = unspecified_loopback(str(address))
    # (no browser opens http://0.0.0.0:…: this machine's own loopback reaches it)
    url = gate.url(base_url(everywhere or address, actual))
    page: Path | None = None
    try:
        # from before the URL is printed: a kill right after it (a script that read it)
        # ended the process without a word before the server's own handlers were in place
        with _ending_cleanly():
            _announce(url, app.cwd, host, actual, everywhere, out, as_json)
            page = launch_page(url) if open_browser else None
            if page is not None:
                # beside the server, never before it: the socket listens already, but a
                # browser command that returns only once it is closed (a terminal
                # browser, lynx or w3m, or a BROWSER command) waited for a page nobody
                # served, for ever
                threading.Thread(target=_start_browser,
                                 args=(opener, page.as_uri(), as_json),
                                 daemon=True, name="waymarks-ui-browser").start()
            from waymarks.spawn.http_guard import GuardedH11

            config = uvicorn.Config(web, log_level="warning", access_log=False,
                                    lifespan="off", http=GuardedH11)
            server = _server(config, web.state.inspector)
            server.run(sockets=[sock])
            if server.stopped_by is not None:  # said by the caller, with its status
                raise Stopped(server.stopped_by, server.abandoned)
    finally:
        web.state.inspector.close()
        sock.close()
        if page is not None:
            page.unlink(missing_ok=True)


def _announce(url: str, project: str, host: str, port: int, everywhere: str | None,
              out: TextIO, as_json: bool) -> None:
    """Say the inspector serves at ``url``: one JSON line, or the text for people."""
    if as_json:
        import json

        print(json.dumps({"outcome": "serving", "url": url, "host": host, "port": port,
                          "project": project}), file=out, flush=True)
        return
    # the project's path escaped as every command prints it: a folder named with an OSC
    # sequence (a cloned repository's) retitled the terminal or wrote its clipboard
    print(f"Waymarks inspector for {escaped(project)}:\n  {url}\n(this URL carries a token "
          "made for this launch; Ctrl-C stops the inspector)", file=out, flush=True)
    if everywhere:
        print(f"(from another machine, use this machine's address in place of "
              f"{url_host(everywhere)})", file=out, flush=True)


def _start_browser(opener: Callable[[str], object], uri: str, as_json: bool = False
                   ) -> None:
    """Start the browser on the launch page ``uri``; say so on standard error when none
    could be (no browser here, a server over SSH, a ``BROWSER`` command that failed):
    ``--open`` said nothing, and the person waited for a window. A ``BROWSER`` that is no
    command line (a quote left open: ``shlex`` refuses it) is one that failed: it raised
    here, a traceback in this thread and no word of the browser that would not come.
    ``as_json``: the browser writes to standard error (what it said came after the JSON
    line, on the output a program reads as JSON)."""
    try:
        with _stdout_on_stderr() if as_json else contextlib.nullcontext():
            started = opener(uri)
    except (ValueError, OSError, webbrowser.Error):
        started = False
    if not started:
        print("waymarks: --open: no browser could be started (none found here, or the "
              "BROWSER command failed); open the URL `waymarks ui` printed", file=sys.stderr,
              flush=True)


@contextlib.contextmanager
def _stdout_on_stderr() -> Iterator[None]:
    """Descriptor 1 as standard error meanwhile: what a process started then inherits.
    (Nothing else writes standard output once a ``--json`` inspector said it serves.)"""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


@contextlib.contextmanager
def _ending_cleanly() -> Iterator[None]:
    """While serving, ``kill`` (SIGTERM) and a closed terminal (SIGHUP) end the inspector
    as Ctrl-C does: its cleanup runs (the launch page, which holds the token, is removed)
    and the process then ends with the signal's status (128 + N), said by the caller
    (:class:`Stopped`; a bare ``SystemExit`` ended it without a word when the signal came
    before the server's own handlers). The server raises a signal it handled again once
    it stopped, with the handler that was there before: the default one killed the
    process before any cleanup."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def ended(number: int, frame: object) -> None:
        raise Stopped(number)

    # a signal set to be ignored stays ignored (``nohup waymarks ui &`` outlives its
    # terminal, as before)
    before = {number: signal.signal(number, ended)
              for number in (signal.SIGTERM, signal.SIGHUP)
              if signal.getsignal(number) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def _server(config: Any, inspector: Any = None) -> Any:
    """A uvicorn server that also stops gracefully on SIGHUP (uvicorn: SIGINT, SIGTERM),
    and, once stopped, tells which signal stopped it (:attr:`stopped_by`) rather than
    raising it again: raised again under the handler found at the start, it ended the
    process without a word (SIGTERM), or did nothing at all when SIGINT was ignored there
    (a ``&`` job of a script: status 0, and no "the inspector stopped").

    A first signal while pages are under way says at once which, and that Ctrl-C again
    stops now (the server waited for them, up to a held database's 30 s busy wait, in
    silence); a second Ctrl-C answers them at once (:meth:`Inspector.abandon`: the
    work of each is left running, to end with the process) and the server stops then
    (uvicorn's own forced exit cancelled them: a traceback on the terminal, a bare 500
    to the browser, and the process still waited for the work), without waiting for
    other connections, as uvicorn's forced exit does with no page under way."""
    import uvicorn

    class Server(uvicorn.Server):
        abandoned: tuple[str, ...] = ()

        @property
        def stopped_by(self) -> int | None:
            return self._captured_signals[0] if self._captured_signals else None

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            pending = tuple(inspector.under_way.values()) if inspector is not None else ()
            if self.should_exit and sig == signal.SIGINT and pending \
                    and not inspector.abandoned:
                self._captured_signals.append(sig)
                self.abandoned = pending
                inspector.abandon(lambda: setattr(self, "force_exit", True))
                return
            first = not self.should_exit
            super().handle_exit(sig, frame)
            if first and pending:
                print(f"waymarks: stopping the inspector once {_pages(pending)} answered "
                      f"({', '.join(pending)}; a database another process holds keeps a "
                      "page waiting up to 30 s); Ctrl-C again stops now", file=sys.stderr,
                      flush=True)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            handled = [signal.SIGINT, signal.SIGTERM]
            if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # (nohup: kept)
                handled.append(signal.SIGHUP)
            before = {number: signal.signal(number, self.handle_exit) for number in handled}
            try:
                yield
            finally:
                for number, handler in before.items():
                    signal.signal(number, handler)

    return Server(config)


def _pages(pending: tuple[str, ...]) -> str:
    return "the page under way is" if len(pending) == 1 else f"{len(pending)} pages are"
