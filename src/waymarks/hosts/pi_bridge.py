"""``waymarks bridge``: the Python side of the Pi extension (``hosts/pi_extension/``).

Line-delimited JSON-RPC over stdin/stdout, one long-lived process per Pi session. The
extension sends requests ``{"id", "method", "params"}`` and gets ``{"id", "result"}`` or
``{"id", "error": {"code", "message"}}``. Every request may carry ``sync``: the session
entries Pi has that the bridge has not seen yet, and Pi's current leaf.

While it handles a request the bridge may ask the extension for what only Pi can do,
with requests of its own (IDs ``w1``, ``w2`` …) that the extension answers on stdin:

- ``appendEntry {customType, data}`` → the entry as Pi stored it (``pi.appendEntry``);
- ``confirm {title, message}`` → ``{"decision": "accepted"|"declined"|"cancelled"|
  "unavailable"}`` (``ctx.ui.confirm``; no UI → unavailable).

Methods: ``initialize``, ``sync``, ``plan``, ``command`` (``/context …`` text),
``remember``, ``tool`` (``context_persistence`` / ``memory_recall``), ``sanitize``
(a provider payload; fails closed), ``learn`` (capture on ``agent_end`` /
``session_compact``, when learning is on), ``shutdown``. Logic lives here; the extension only
forwards.

``/context …`` text is split with the ``/context`` quoting rules
(:func:`waymarks.core.arguments.tokenize`) and run by the same command table as the
command line (:mod:`waymarks.commands`), limited to what makes sense inside Pi
(:data:`~waymarks.commands.table.HOST_COMMANDS`). The bridge imports neither the CLI nor
the MCP server.
"""

from __future__ import annotations

import json
import sys
import time
from collections import deque
from pathlib import Path
from typing import IO, Any

from waymarks.core.arguments import tokenize
from waymarks.ledger.host import HostSessionLog
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import ServiceError
from waymarks.service.ports import ConfirmationRequest, Decision

PROTOCOL = "waymarks-pi-bridge-v1"


class BridgeError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


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
        self._next = 0
        self._tool: Any = None
        self._table: Any = None

    # -- transport ----------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            message = self._waiting.popleft() if self._waiting else self._read()
            if message is None:
                return
            if "method" not in message:
                continue  # a late answer to a callback nobody waits for any more
            if self._handle(message) == "stop":
                return

    def _read(self) -> dict[str, Any] | None:
        while True:
            line = self.stdin.readline()
            if not line:
                return None
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                return message

    def _send(self, message: dict[str, Any]) -> None:
        self.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
        self.stdout.flush()

    def _handle(self, message: dict[str, Any]) -> str | None:
        request_id, method = message.get("id"), message.get("method")
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        try:
            handler = getattr(self, f"rpc_{method}", None)
            if not isinstance(method, str) or handler is None:
                raise BridgeError("unknown_method", f"no method {method!r}")
            if method != "initialize" and self.app is None:
                raise BridgeError("not_initialized", "call initialize first")
            if isinstance(params.get("sync"), dict):
                self._sync(params["sync"])
            result = handler(params)
        except (BridgeError, ServiceError) as exc:
            self._send({"id": request_id, "error": {"code": exc.code, "message": str(exc)}})
            return None
        except Exception as exc:  # noqa: BLE001 (a bug must not take Pi's session down)
            self._send({"id": request_id, "error": {"code": "internal",
                                                    "message": type(exc).__name__}})
            return None
        self._send({"id": request_id, "result": result})
        return "stop" if method == "shutdown" else None

    def ask_host(self, method: str, params: dict[str, Any]) -> Any:
        """A request to the extension, answered before the current request completes."""
        self._next += 1
        request_id = f"w{self._next}"
        self._send({"id": request_id, "method": method, "params": params})
        while True:
            message = self._read()
            if message is None:
                raise BridgeError("host_gone", "the Pi extension closed the bridge")
            if message.get("id") == request_id and "method" not in message:
                if "error" in message:
                    raise BridgeError("host_error", str(message["error"]))
                return message.get("result")
            self._waiting.append(message)  # a request of its own: handled afterwards

    # -- methods ------------------------------------------------------------------------

    def rpc_initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        cwd = str(params.get("cwd") or ".")
        self.has_ui = bool(params.get("hasUI"))
        self.provider = params.get("provider") if isinstance(params.get("provider"), str) \
            else None
        session_file, header = params.get("sessionFile"), params.get("header")
        if isinstance(session_file, str) and isinstance(header, dict):
            self.ledger = HostSessionLog.from_entries(
                Path(session_file), header, params.get("entries") or [], self._append)
            self.ledger.set_leaf(params.get("leafId"))
        self.app = Waymarks(self.home, cwd=cwd, session=self.ledger, keep_recall_index=True)
        self.app.can_create_session = self.ledger is not None
        trusted = params.get("trusted")
        if isinstance(trusted, bool):
            self.app.trust_override = trusted
        return {"protocol": PROTOCOL, "persistent": self.ledger is not None,
                "trusted": self.app.project_trusted}

    def rpc_sync(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"entries": len(self.ledger.entries) if self.ledger else 0}

    def rpc_plan(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.personal.setup import plan_with_memory

        prompt = params.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise BridgeError("invalid_argument", "plan needs the prompt text")
        started = time.perf_counter()
        plan = plan_with_memory(self._app(), prompt,
                                provider=params.get("provider") or self.provider,
                                model_limit=params.get("modelLimit"))
        return {"messages": [{"kind": m.kind, "content": m.content, "tokens": m.tokens}
                             for m in plan.messages if m.kind != "request"],
                "fallback": plan.fallback,
                "ms": round((time.perf_counter() - started) * 1000, 3)}

    def rpc_command(self, params: dict[str, Any]) -> dict[str, Any]:
        """``/context …``: one command of the table. Help is an answer (exit 0); a bad
        argument is exit 2 with the message; the session is never switched from here."""
        import click

        from waymarks.commands.base import Runtime, Shown, invoke
        from waymarks.commands.table import HOST_COMMANDS, build
        from waymarks.core.arguments import ArgumentError

        text = params.get("text")
        if not isinstance(text, str) or not text.strip():
            text = "status"
        try:
            tokens = tokenize(text)
        except ArgumentError as exc:
            return {"text": str(exc), "data": {"code": "invalid_argument"}, "exitCode": 2}
        if not tokens or tokens[0].lower() not in HOST_COMMANDS:
            return {"text": f"/context offers: {', '.join(sorted(HOST_COMMANDS))}",
                    "data": {"code": "invalid_argument"}, "exitCode": 2}
        if self._table is None:
            self._table = build("/context")
        app = self._app()
        run = Runtime(open_app=lambda: app, interactive=False)
        try:
            result = invoke(self._table, tokens, run, prog="/context")
        except Shown as shown:
            result = shown.result
        except (click.UsageError, click.ClickException) as exc:
            return {"text": exc.format_message(), "data": {"code": "invalid_argument"},
                    "exitCode": 2}
        except ArgumentError as exc:
            return {"text": str(exc), "data": {"code": "invalid_argument"}, "exitCode": 2}
        except ServiceError as exc:
            return {"text": str(exc), "data": {"code": exc.code}, "exitCode": 2}
        return {"text": result.text, "data": result.data, "exitCode": result.exit_code}

    def rpc_remember(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.personal.curation import MAX_PREFILL_CHARS, curation_prompt

        text = params.get("text") if isinstance(params.get("text"), str) else None
        if text is not None and not text.strip():
            text = None
        if text is not None and len(text) > MAX_PREFILL_CHARS:
            return {"prompt": None, "message": f"the text has {len(text)} characters; the "
                    f"limit is {MAX_PREFILL_CHARS}. Nothing was saved"}
        return {"prompt": curation_prompt(text)}

    def rpc_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.tool.recall import memory_recall

        name, arguments = params.get("name"), params.get("arguments")
        if name == "memory_recall":
            query = arguments.get("query") if isinstance(arguments, dict) else None
            answer = memory_recall(self._app(), query)
            return {"text": json.dumps(answer, ensure_ascii=False), "details": answer}
        if name != "context_persistence":
            raise BridgeError("unknown_tool", "no such tool")
        result = self._persistence().call(arguments, _HostConfirmer(self))
        return {"text": result.text, "details": result.details}

    def rpc_sanitize(self, params: dict[str, Any]) -> dict[str, Any]:
        from waymarks.service.planning import settings_for
        from waymarks.tool.egress import outgoing_payload

        provider = params.get("provider") or self.provider
        settings = settings_for(self._app())
        outcome = outgoing_payload(params.get("payload"),
                                   provider or settings.default_provider, settings.policy)
        if outcome.withheld or outcome.payload is None:
            return {"withheld": True, "reason": outcome.reason}
        return {"withheld": False, "payload": outcome.payload}

    def rpc_learn(self, params: dict[str, Any]) -> dict[str, Any]:
        """Learning capture for ``agent_end`` / ``session_compact`` (never a model call;
        nothing when learning is off): a content-free count of what was captured."""
        from waymarks.hosts.pi_capture import PiCapture

        if self._capture is None:
            self._capture = PiCapture(self.home)
        done: dict[str, Any] = self._capture.capture(str(params.get("event")), self.ledger,
                                                     self._app().cwd)
        return done

    def rpc_shutdown(self, params: dict[str, Any]) -> dict[str, Any]:
        if self._capture is not None:
            self._capture.close()
        if self.app is not None:
            self.app.close()
        return {"stopped": True}

    # -- helpers ------------------------------------------------------------------------

    def _app(self) -> Waymarks:
        assert self.app is not None
        return self.app

    def _persistence(self) -> Any:
        from waymarks.tool.persistence import ContextPersistence

        if self._tool is None:
            self._tool = ContextPersistence(self._app(), provider=self.provider,
                                            persistent=self.ledger is not None,
                                            confirmed_via="pi-ui-confirm")
        return self._tool

    def _sync(self, sync: dict[str, Any]) -> None:
        if self.ledger is None:
            return
        entries = sync.get("entries")
        self.ledger.feed(entries if isinstance(entries, list) else [], leaf=sync.get("leafId"))

    def _append(self, entry: dict[str, Any]) -> dict[str, Any]:
        if entry.get("type") != "custom":
            raise BridgeError("unsupported", "only custom entries are appended through Pi")
        written = self.ask_host("appendEntry", {"customType": entry.get("customType"),
                                                "data": entry.get("data")})
        if not isinstance(written, dict):
            raise BridgeError("host_error", "Pi did not return the appended entry")
        return written


class _HostConfirmer:
    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def confirm(self, request: ConfirmationRequest) -> Decision:
        if not self.bridge.has_ui:
            return "unavailable"
        answer = self.bridge.ask_host("confirm", {"title": request.title,
                                                  "message": request.message})
        decision = answer.get("decision") if isinstance(answer, dict) else None
        if decision in ("accepted", "declined", "cancelled", "unavailable"):
            return decision  # type: ignore[no-any-return]
        return "cancelled"


def serve(home: Path) -> None:
    Bridge(home, sys.stdin, sys.stdout).serve()
