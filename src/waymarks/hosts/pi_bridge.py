"""``waymarks bridge``: the Python side of the Pi extension (``hosts/pi_extension/``).

Line-delimited JSON-RPC over stdin/stdout, one long-lived process per Pi session. The
extension sends requests ``{"id", "method", "params"}`` and gets ``{"id", "result"}`` or
``{"id", "error": {"code", "message"}}``. Every request may carry ``sync``: the session
entries Pi has that the bridge has not seen yet, and Pi's current leaf.

While it handles a request the bridge may ask the extension for what only Pi can do,
with requests of its own (IDs ``w1``, ``w2`` …) that the extension answers on stdin:

- ``appendEntry {customType, data}`` → the entry as Pi stored it (``pi.appendEntry``);
- ``confirm {title, message}`` → ``{"decision": "accepted"|"declined"|"cancelled"|
  "unavailable"}`` (``ctx.ui.confirm``; no UI → unavailable);
- ``complete {system, prompt, maxTokens, provider, model, timeoutMs}`` → ``{text,
  provider, model, inputTokens, outputTokens}`` or ``{error: <ModelError code>}``
  (``ctx.modelRegistry.complete`` with Pi's active model; requests the extension sends
  while it runs are served meanwhile).

Methods: ``initialize``, ``sync``, ``plan``, ``command`` (``/context …`` text),
``remember``, ``notes`` (``/notes …``: ``promote`` answers with the prompt of the visible
promotion turn), ``tool`` (the tools of :mod:`waymarks.hosts.pi_tools`), ``sanitize``
(a provider payload, its conversation's messages after those the bridge holds:
:mod:`waymarks.hosts.pi_conversation`; or with ``history`` what stays in the conversation: a
compaction's or branch summary's input; fails closed), ``learn`` (capture on ``agent_end`` /
``session_compact``, when learning is on), ``evolve`` (one consolidation attempt whose
model call is the host request ``complete`` below; :mod:`waymarks.hosts.pi_model`),
``shutdown``. Logic lives here; the extension only
forwards. What each request's parameters must be, and the shape of a ``/context``
answer, are :mod:`waymarks.hosts.pi_requests`.

Every request's ``sync`` may also carry ``provider``: Pi's *active* model's provider,
which every rendering for a model uses from then on (plans, tools, payloads), so a
model switch in Pi takes effect at once. ``plan`` takes ``modelLimit`` (the active
model's context window) and ``fixed`` (character counts of what Pi sends anyway), so the
planner's hard-limit check runs inside Pi (:mod:`waymarks.hosts.model_limits`).

``/context …`` text is split with the ``/context`` quoting rules
(:func:`waymarks.core.arguments.tokenize`) and run by the same command table as the
command line (:mod:`waymarks.commands`), limited to what makes sense inside Pi
(:data:`~waymarks.commands.table.HOST_COMMANDS`). The bridge imports neither the CLI nor
the MCP server.
"""

from __future__ import annotations

import errno
import io
import json
import os
import sys
import time
from collections import deque
from pathlib import Path
from typing import IO, Any, Final

from waymarks.core.arguments import tokenize
from waymarks.core.egress import json_line
from waymarks.core.text import escaped
from waymarks.hosts.model_limits import pi_fixed_tokens, valid_limit
from waymarks.hosts.pi_claim import Claim, claim
from waymarks.hosts.pi_conversation import HeldConversation, Resync
from waymarks.hosts.pi_requests import (
    REMEMBER_HELP,
    BridgeError,
    asks_help,
    before_dashes,
    context_answer,
    entries_param,
    leading_id,
    leaf_param,
    plan_history,
    provider_note,
    provider_param,
)
from waymarks.hosts.pi_trust import bridge_trust
from waymarks.hosts.pi_wire import wire_line
from waymarks.ledger.host import HostSessionLog
from waymarks.ledger.log import SessionFileError
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import ServiceError
from waymarks.service.waits import waiting_at_most

#: the most a start waits for a database another process holds to learn where it stopped
#: reading the session (past it, the session is read whole): the default 30 s passed the
#: extension's 20 s for a start, and memory was off for the session
START_WAIT_MS: Final = 3000

PROTOCOL = "waymarks-pi-bridge-v1"

class Bridge:
    def __init__(self, home: Path, stdin: IO[str], stdout: IO[str]) -> None:
        self.home = home
        self.stdin = stdin
        self.stdout = stdout
        self.app: Waymarks | None = None
        self.ledger: HostSessionLog | None = None
        self.has_ui = False
        self.provider: str | None = None
        self._capture: Any = None  # learning capture (hosts.pi_capture), opened on first use
        self._waiting: deque[dict[str, Any]] = deque()
        self._asking: set[str] = set()  # host requests awaiting their answers
        self._answers: dict[str, dict[str, Any]] = {}  # answers read by a nested wait
        self._evolution: Any = None  # hosts.pi_model.PiEvolution, opened on first evolve
        self._next = 0
        self._tool: Any = None
        self._table: Any = None
        self._remember: Any = None
        self._retired: list[Waymarks] = []  # services a later initialize replaced
        self._claim = Claim()  # the hold on the session Pi opened (hosts.pi_claim)
        self._warming: Any = None  # the thread building the learned claims' ranking
        self._sanitized: Any = None  # earlier requests' messages as sanitized (egress.Memo)
        self._held = HeldConversation()  # the last provider payload's conversation

    # -- transport ----------------------------------------------------------------------

    def serve(self) -> None:
        """Answer requests until ``shutdown`` or the end of standard input. Pi gone (its
        end of standard output closed): what it sent before still runs, answered to no
        one (a turn's ``learn`` behind the answer that could not be written was lost);
        then the bridge ends as a shutdown does and raises ``BrokenPipeError`` (the caller
        stops writing to standard output: no one is there to tell)."""
        gone = stopped = False
        while not stopped:
            message: dict[str, Any] | None = None
            try:
                message = self._waiting.popleft() if self._waiting else self._read()
                if message is None:
                    break
                if "method" in message:  # (else a late answer nobody waits for any more)
                    stopped = self._handle(message) == "stop"
            except BrokenPipeError:  # answers from now on go nowhere (held to the end)
                gone = True
                self.stdout = open(os.devnull, "w", encoding="utf-8",  # noqa: SIM115
                                   errors="surrogateescape")
                stopped = message is not None and message.get("method") == "shutdown"
        if gone:
            if not stopped:
                self.rpc_shutdown({})
            raise BrokenPipeError(errno.EPIPE, "the Pi extension stopped reading")

    def _read(self) -> dict[str, Any] | None:
        while True:
            line = self.stdin.readline()
            if not line:
                return None
            why = None
            try:  # bytes that are not UTF-8 arrive as lone surrogates (see ``serve``)
                line.encode("utf-8")
                message = json.loads(line)
            except UnicodeEncodeError:
                why = "not UTF-8"
            except (ValueError, RecursionError) as exc:
                why = "nested too deep" if isinstance(exc, RecursionError) else "not JSON"
            else:
                if isinstance(message, dict):
                    return message
                why = "not a JSON object"
            self._send({"id": leading_id(line), "error": {  # answered; the bridge lives on
                "code": "invalid_argument", "message": f"the request is {why}"}})

    def _send(self, message: dict[str, Any]) -> None:
        self.stdout.write(wire_line(message))
        self.stdout.flush()

    def _handle(self, message: dict[str, Any]) -> str | None:
        request_id, method = message.get("id"), message.get("method")
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        try:
            handler = getattr(self, f"rpc_{method}", None)
            if not isinstance(method, str) or handler is None:
                raise BridgeError("unknown_method", f"no method {method!r}")
            if method not in ("initialize", "shutdown") and self.app is None:
                raise BridgeError("not_initialized", "call initialize first")
            if isinstance(params.get("sync"), dict):
                self._sync(params["sync"])
            if self.app is None:
                result = handler(params)
            else:  # waiting for the database well within the extension's timeout for it
                with waiting_at_most(self.app, params.get("busyTimeoutMs")):
                    result = handler(params)
        except (BridgeError, ServiceError) as exc:  # shown as it is: escaped, one line
            self._send({"id": request_id, "error": {"code": exc.code,
                                                    "message": escaped(str(exc))}})
            return None
        except Exception as exc:  # noqa: BLE001 (a bug must not take Pi's session down)
            self._send({"id": request_id, "error": {"code": "internal",
                                                    "message": type(exc).__name__}})
            return None
        self._send({"id": request_id, "result": result})
        return "stop" if method == "shutdown" else None

    def ask_host(self, method: str, params: dict[str, Any], *,
                 serve_meanwhile: bool = False) -> Any:
        """A request to the extension, answered before the current request completes.

        With ``serve_meanwhile`` (a model call, which may take minutes) the extension's own
        requests that arrive meanwhile are handled at once, so a prompt's ``plan`` never
        waits behind a consolidation call; ``evolve`` waits, and ``shutdown`` cancels the
        call (``HostGone``) and is handled afterwards."""
        from waymarks.hosts.pi_model import HostGone

        self._next += 1
        request_id = f"w{self._next}"
        self._asking.add(request_id)
        try:
            self._send({"id": request_id, "method": method, "params": params})
            while True:
                if request_id in self._answers:
                    message = self._answers.pop(request_id)
                else:
                    read = self._read()
                    if read is None:
                        if serve_meanwhile:
                            raise HostGone()
                        raise BridgeError("host_gone", "the Pi extension closed the bridge")
                    message = read
                if "method" not in message:
                    if message.get("id") == request_id:
                        if "error" in message:
                            raise BridgeError("host_error", str(message["error"]))
                        return message.get("result")
                    if message.get("id") in self._asking:
                        self._answers[str(message.get("id"))] = message  # an outer wait's
                    continue
                if serve_meanwhile and message.get("method") == "shutdown":
                    self._waiting.append(message)
                    raise HostGone()
                if serve_meanwhile and message.get("method") != "evolve":
                    if self._handle(message) == "stop":
                        raise HostGone()
                    continue
                self._waiting.append(message)  # a request of its own: handled afterwards
        finally:
            self._asking.discard(request_id)

    # -- methods ------------------------------------------------------------------------

    def rpc_initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.service.planning import PI_UNKNOWN_PROVIDER

        cwd = params.get("cwd") or "."
        if not isinstance(cwd, str):
            raise BridgeError("invalid_argument", "initialize cwd must be the project "
                              "directory, as text")
        provider = provider_param(params.get("provider"), None)
        session_file, header, ledger = params.get("sessionFile"), params.get("header"), None
        self._claim.release()  # (a second initialize: this one decides again)
        self._claim = claim(self.home, session_file, header.get("id") if isinstance(
            header, dict) else None, cwd, params.get("trusted"))
        if isinstance(session_file, str) and isinstance(header, dict) \
                and self._claim.why is None:
            ledger = HostSessionLog.sent(Path(session_file), header,
                                         entries_param(params.get("entries")), self._append)
        app = Waymarks(self.home, cwd=cwd, session=ledger, keep_recall_index=True,
                       project_may_be_gone=True)  # (Pi's folder may be gone: items are read)
        if ledger is not None:
            self._start(app, ledger, header, params)
        if self.app is not None:
            # a second initialize (a re-sent session): the tool binds to the new service at
            # its next use; the old one stays open until shutdown, since a model call the
            # bridge serves requests during may still hold it
            self._retired.append(self.app)
            self._tool = None
        self.app, self.ledger, self.provider = app, ledger, provider
        self.has_ui = bool(params.get("hasUI"))
        app.can_create_session, app.command_prefix = ledger is not None, "/context"
        app.new_session_hint = "a new session (Pi's /new)"  # (hints name what works in Pi)
        app.host_provider = provider or PI_UNKNOWN_PROVIDER  # Pi's model's, once named
        app.trust_override = bridge_trust(params.get("trusted"), app.cwd)
        if self._warming is None:  # off the request path: built on the first plan, it
            # took 15 s at 60k learned claims, past the extension's 5 s (no context)
            from waymarks.service.evolution_recall import warm_on_a_thread

            self._warming = warm_on_a_thread(self.home, self._warm_failed)
        return {"protocol": PROTOCOL, "persistent": ledger is not None,
                "trusted": app.project_trusted, "heldBack": self._claim.why,
                "conversationTails": True}  # (hosts/pi_conversation.py)

    def _warm_failed(self, exc: BaseException) -> None:
        """Log why the learned claims' ranking was not built (its kind, never content):
        plans build it as they need it, as before the bridge built it as it started."""
        from datetime import UTC, datetime

        from waymarks.service.logs import log_event

        log_event(self.home, datetime.now(UTC), "pi_learned_warm_failed",
                  code=type(exc).__name__)

    @staticmethod
    def _start(app: Waymarks, ledger: HostSessionLog, header: Any,
               params: dict[str, Any]) -> None:
        """Read the session Pi sent: from where the projection stopped reading it at the
        last start when the bytes before are the ones it read (a start costs what Pi
        recorded since, not the session's length), else whole."""
        from waymarks.service.sessions_api import host_checkpoint

        try:  # (a database another process holds: read whole, well within the start's 20 s)
            with waiting_at_most(app, START_WAIT_MS):
                checkpoint = host_checkpoint(app, ledger.path, header.get("id"))
            ledger.start(checkpoint)
        except SessionFileError as exc:  # e.g. a header that is not Pi's
            app.close()
            raise BridgeError("invalid_argument", f"initialize header: {exc}") from None
        if "leafId" in params:  # null: Pi's leaf is reset (an empty branch)
            ledger.set_leaf(leaf_param(params["leafId"]))
        ledger.saves_later()  # Pi writes its file once it holds a reply (ledger.host)

    def rpc_sync(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"entries": self.ledger.entry_count if self.ledger else 0}

    def rpc_plan(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.personal.setup import plan_with_memory
        from waymarks.service.planning import PINS_FIX, prompt_read

        prompt = params.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise BridgeError("invalid_argument", "plan needs the prompt text")
        history = plan_history(params.get("history"))
        started = time.perf_counter()
        read, rest = prompt_read(prompt)  # what recall reads (a paste of 8 MB took 5 s)
        plan = plan_with_memory(self._app(), read,
                                provider=provider_param(params.get("provider"), self.provider),
                                model_limit=valid_limit(params.get("modelLimit")),
                                fixed_tokens=pi_fixed_tokens(params.get("fixed")) + rest,
                                history=history)
        return {"messages": [{"kind": m.kind, "content": m.content, "tokens": m.tokens}
                             for m in plan.messages if m.kind != "request"],
                "fallback": plan.fallback,
                # the extension tells the person (their pins went nowhere), as Claude Code's
                # hook does; a fallback for the model's own limit stays silent
                "pinsLeftOut": f"{plan.fallback}; {PINS_FIX}" if plan.pins_left_out else None,
                # and why learned memory was left out (its ranking still being built, its
                # ledger unreadable: a plan's notes are learned memory's)
                "learnedLeftOut": plan.notes[0] if plan.notes else None,
                # a full disk: planned from the database as it is (the hook says so too)
                "stale": self._app().stale_note,
                "providerRefused": provider_note(params.get("provider")),  # (pi_requests)
                "ms": round((time.perf_counter() - started) * 1000, 3)}

    def rpc_command(self, params: dict[str, Any]) -> dict[str, Any]:
        """``/context …``: one command of the table (``--json`` before its name too, as on
        the command line). Help is an answer (exit 0); a bad argument is exit 2 with the
        message; the session is never switched from here."""
        import click

        from waymarks.commands.base import Runtime, Shown, invoke
        from waymarks.commands.results import session_noted
        from waymarks.commands.table import HOST_COMMANDS, build
        from waymarks.core.arguments import ArgumentError

        text = params.get("text")
        if not isinstance(text, str) or not text.strip():
            text = "status"
        try:
            tokens = tokenize(text)
        except ArgumentError as exc:
            return context_answer(str(exc), {"code": "invalid_argument"}, 2)
        at = next((i for i, t in enumerate(tokens) if t.lower() != "--json"), len(tokens))
        if at == len(tokens):  # `--json` alone: `--json status`, as `/context` is `status`
            tokens.append("status")
        if tokens[at].lower() in ("-h", "--help"):  # help is help (docs/hosts.md), after --json too
            return context_answer(
                "/context runs the waymarks commands that make sense inside Pi: "
                f"{', '.join(sorted(HOST_COMMANDS))}. `/context COMMAND -h` is a "
                "command's help; `/context` alone is `status`.",
                {"commands": sorted(HOST_COMMANDS)}, 0)
        if (name := tokens[at].lower()) not in HOST_COMMANDS:
            return context_answer(f"/context offers: {', '.join(sorted(HOST_COMMANDS))}",
                                  {"code": "invalid_argument"}, 2)
        if [t.lower() for t in tokens] == ["notes", "promote"]:
            return self.rpc_notes({"text": "promote"})  # /context notes promote: the turn
        if (name in ("recall", "plan") and self.provider
                and not any(t.lower().startswith("--provider") for t in before_dashes(tokens))):
            tokens[at + 1:at + 1] = ["--provider", self.provider]  # Pi's active one
        if self._table is None:
            self._table = build("/context")
        app = self._app()
        run = Runtime(open_app=lambda: app, interactive=False)
        app.refresh_problem = None  # (what this command finds, as a process of its own)
        try:
            result = invoke(self._table, tokens, run, prog="/context")
        except Shown as shown:
            result = shown.result
        except (click.UsageError, click.ClickException) as exc:
            return context_answer(exc.format_message(), {"code": "invalid_argument"}, 2)
        except ArgumentError as exc:
            return context_answer(str(exc), {"code": "invalid_argument"}, 2)
        except ServiceError as exc:
            return context_answer(str(exc), {"code": exc.code}, 2)
        result = session_noted(result, app.refresh_problem)  # as the command line notes it
        # `--json` shows the document, as on the command line (a listing's text is empty)
        return context_answer(json_line(result.data) if run.json else result.text,
                              result.data, result.exit_code)

    def rpc_remember(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.core.privacy import PrivacyConfigError
        from waymarks.personal.curation import PrefillTooLong, curation_prompt
        from waymarks.service.planning import egress_for

        text = params.get("text") if isinstance(params.get("text"), str) else None
        if text is not None and asks_help(text):
            return {"prompt": None, "exitCode": 0, "message": REMEMBER_HELP}
        if text is not None and text.strip().split(None, 1)[:1] == ["--"]:
            text = text.strip()[2:].strip()  # `--` before text that starts with `-`
        try:  # Pi starts it as the person's turn: it stays for every later model
            return {"prompt": curation_prompt(text, egress_for(self._app(), self.provider,
                                                               history=True))}
        except PrefillTooLong as exc:  # the one rule, the command line's and MCP's
            return {"prompt": None, "exitCode": 2, "message": str(exc)}
        except PrivacyConfigError as exc:  # no model of the conversation may receive any
            return {"prompt": None, "exitCode": 2, "message": f"Nothing to curate: {exc}"}

    def rpc_notes(self, params: dict[str, Any]) -> dict[str, Any]:
        """``/notes …``: ``promote`` answers with the prompt for the visible promotion turn
        (``prompt`` None and a message when there are no lesson notes); anything else is
        the ``notes`` command of the table, as ``/context notes …`` runs it."""
        from waymarks.core.privacy import PrivacyConfigError
        from waymarks.personal.notes import left_out, promote_prompt

        raw = params.get("text")
        text = raw if isinstance(raw, str) else ""
        if text.strip().lower() != "promote":
            return self.rpc_command({"text": f"notes {text}".strip()})
        try:  # the prompt becomes the person's turn, sent again to every later model
            prompt, lessons = promote_prompt(self._app(), self.provider, history=True)
        except PrivacyConfigError as exc:
            return {"prompt": None, "message": f"Nothing to promote: {exc}"}
        if prompt is None:
            held = left_out(self._app(), lessons)
            return {"prompt": None, "message": (
                f"The {held} lesson note(s) on this branch hold text that not every model "
                "of this conversation may receive (a local-only part, say), and the "
                "promotion stays in the conversation: none is promoted here. `waymarks "
                "notes promote` in a terminal prints the prompt for you to paste where you "
                "choose." if held else "There are no lesson notes on this branch to "
                "promote (add one with /notes add -- TEXT).")}
        return {"prompt": prompt, "lessons": len(lessons)}

    def rpc_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.hosts.pi_tools import run_tool

        result = run_tool(self, params.get("name"), params.get("arguments"))
        if result is None:
            raise BridgeError("unknown_tool", "no such tool")
        return result

    def rpc_sanitize(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.service.planning import host_destination, settings_for
        from waymarks.tool.egress import Memo, outgoing_payload

        if self._sanitized is None:  # (by policy: a provider or setting changed finds none)
            self._sanitized = Memo()
        try:  # (what is new in the conversation, after the messages held)
            payload = self._held.payload(params)
        except Resync as exc:
            return {"resync": True, "why": str(exc)}
        joined = params.get("conversation") is not None
        app = self._app()
        settings = settings_for(app)
        outcome = outgoing_payload(payload, host_destination(
            app, provider_param(params.get("provider"), self.provider), settings), settings.policy,
            history=params.get("history") is True, memo=self._sanitized)
        result = {"withheld": True, "reason": outcome.reason} \
            if outcome.withheld or outcome.payload is None \
            else {"withheld": False, "payload": outcome.payload}
        return self._held.answer(result) if joined else result

    def rpc_learn(self, params: dict[str, Any]) -> dict[str, Any]:
        """Learning capture for ``agent_end`` / ``session_compact`` (never a model call;
        nothing when learning is off): a content-free count of what was captured.
        ``users``: the IDs of the user entries the turn that ended added (the extension's
        word; only those can become statements)."""
        from waymarks.hosts.pi_capture import PiCapture, turn_ended
        from waymarks.service.capture_turns import turn_ids

        if self._capture is None:
            self._capture = PiCapture(self.home)
        app = self._app()
        done: dict[str, Any] = self._capture.capture(str(params.get("event")), self.ledger,
                                                     app.cwd, turn_ids(params.get("users")),
                                                     app.trust_override)
        if params.get("event") == "agent_end" and self.ledger is not None:
            done.update(turn_ended(self.home, app.cwd, self.ledger, params.get("turn"),
                                   done.get("captured"), app.trust_override))
        return done

    def rpc_evolve(self, params: dict[str, Any]) -> dict[str, Any]:
        """One consolidation attempt with Pi's active model (``provider``, ``model``),
        the call made by the extension (:mod:`waymarks.hosts.pi_model`); sent by the
        extension's timer, never on a prompt's path. A content-free attempt summary."""
        from waymarks.hosts.pi_model import PiEvolution

        if self._evolution is None:
            self._evolution = PiEvolution(self._ask_for_model)
        result: dict[str, Any] = self._evolution.run(
            self._app(), params.get("provider"), params.get("model"),
            window=params.get("contextWindow"), max_tokens=params.get("maxTokens"))
        return result

    def _ask_for_model(self, method: str, params: dict[str, Any]) -> Any:
        """``ask_host`` for a model call: other requests served meanwhile; an error
        answer becomes ``HostFailed`` (its text stays here)."""
        from waymarks.hosts.pi_model import HostFailed

        try:
            return self.ask_host(method, params, serve_meanwhile=True)
        except BridgeError as exc:
            raise HostFailed(exc.code) from None

    def rpc_shutdown(self, params: dict[str, Any]) -> dict[str, Any]:
        if self._evolution is not None:
            self._evolution.close()
        if self._capture is not None:
            self._capture.close()
        for app in (*self._retired, *([self.app] if self.app is not None else [])):
            app.close()
        self._claim.release()
        return {"stopped": True}

    # -- helpers ------------------------------------------------------------------------

    def _app(self) -> Waymarks:
        assert self.app is not None
        return self.app

    def app_now(self) -> Waymarks:
        return self._app()

    def persistence(self) -> Any:
        """The ``context_persistence`` tool, rendering for the active provider."""
        from waymarks.tool.persistence import ContextPersistence

        if self._tool is None:
            self._tool = ContextPersistence(self._app(), provider=self.provider,
                                            persistent=self.ledger is not None,
                                            confirmed_via="pi-ui-confirm")
        self._tool.provider = self.provider
        return self._tool

    @property
    def remember(self) -> Any:
        """The ``remember`` tool's record of what the person was shown."""
        from waymarks.personal.tools import Remember

        if self._remember is None:
            self._remember = Remember()
        return self._remember

    def _sync(self, sync: dict[str, Any]) -> None:
        provider = sync.get("provider")
        if isinstance(provider, str) and provider:
            # Pi's active model's (one no provider ID may be: an unknown model's): a switch
            # applies at once, to what names none too (a write's privacy notice)
            self.provider = provider = provider_param(provider, None) or provider
            if self.app is not None:
                self.app.host_provider = provider
        if self.ledger is None:
            return
        self.ledger.feed(entries_param(sync.get("entries")))
        if "leafId" in sync:  # null: Pi's leaf is reset (``/tree`` to the first message)
            self.ledger.set_leaf(leaf_param(sync["leafId"]))

    def _append(self, entry: dict[str, Any]) -> dict[str, Any]:
        if entry.get("type") != "custom":
            raise BridgeError("unsupported", "only custom entries are appended through Pi")
        written = self.ask_host("appendEntry", {"customType": entry.get("customType"),
                                                "data": entry.get("data")})
        if not isinstance(written, dict):
            raise BridgeError("host_error", "Pi did not return the appended entry")
        return written


def serve(home: Path) -> None:
    """Serve on standard input and output, whatever the locale: UTF-8, and a line that is
    not UTF-8 decoded losslessly (``surrogateescape``) so it is answered, not fatal."""
    for stream in (sys.stdin, sys.stdout):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    Bridge(home, sys.stdin, sys.stdout).serve()
