"""Commands for context planning, its manifest, privacy and configuration."""

from __future__ import annotations

import json
import sys
from typing import Any

from waymarks.cli.commands import EXIT_REJECTED, Command, Env, Result, UsageError
from waymarks.core.arguments import ParsedArgs
from waymarks.service.app import Waymarks


def _int_option(args: ParsedArgs, name: str) -> int | None:
    value = args.options.get(name)
    if value is None:
        return None
    if not value.isdigit() or int(value) <= 0:
        raise UsageError(f"--{name} must be a positive integer, not {value!r}")
    return int(value)


def _plan(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.personal.setup import plan_with_memory

    prompt = args.options.get("prompt") or args.text()
    if not prompt.strip():
        raise UsageError("Usage: waymarks plan --prompt TEXT [--provider ID] "
                         "[--model-limit TOKENS] [--history TEXT]...")
    plan = plan_with_memory(app, prompt, provider=args.options.get("provider"),
                            model_limit=_int_option(args, "model-limit"),
                            history=args.repeated.get("history", ()),
                            fixed_tokens=_int_option(args, "fixed-tokens") or 0)
    data = {"messages": [m.to_json() for m in plan.messages], "manifest": plan.manifest_json()}
    if plan.fallback:
        return Result(data, f"Planner fell back: {plan.fallback}\n(no synthetic context)")
    text = "\n\n".join(f"--- {m.kind} (priority {m.priority}, ~{m.tokens} tokens)\n{m.content}"
                       for m in plan.messages)
    return Result(data, text)


def _manifest_or_empty(app: Waymarks) -> dict[str, Any]:
    from waymarks.service.planning import last_manifest

    return last_manifest(app) or {"entries": [], "blocks": [], "fallback": None,
                                  "note": "no plan yet: run `waymarks plan --prompt TEXT`"}


def _manifest(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    data = _manifest_or_empty(app)
    lines = [f"provider {data.get('provider')}, {data.get('totalTokens', 0)} tokens"
             + (f", FELL BACK: {data['fallback']}" if data.get("fallback") else "")]
    lines += [f"  {e['decision']:<8} {e['kind']:<7} {e['id'][:8]} "
              f"[{e.get('classification') or 'normal'}] {e['reason']}" for e in data["entries"]]
    return Result(data, "\n".join(lines))


def _filtered(decision: str) -> Any:
    def run(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
        entries = [e for e in _manifest_or_empty(app)["entries"] if e["decision"] == decision]
        text = "\n".join(f"{e['kind']:<7} {e['id']}  {e['reason']}" for e in entries)
        return Result({"items": entries}, text or f"Nothing {decision} in the last plan.")
    return run


def _tokens(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    data = _manifest_or_empty(app)
    blocks = data.get("blocks", [])
    text = "\n".join(f"{b['kind']:<9} {b['tokens']:>7}" for b in blocks)
    total = data.get("totalTokens", 0)
    return Result({"blocks": blocks, "totalTokens": total,
                   "modelLimit": data.get("modelLimit")},
                  (text + f"\n{'total':<9} {total:>7}") if blocks else "No plan yet.")


def _privacy(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.core.privacy import allowance_json
    from waymarks.service.planning import settings_for

    settings = settings_for(app)
    policy = settings.policy
    data: dict[str, Any] = {
        "defaultProvider": settings.default_provider,
        "localProviders": sorted(policy.local_providers),
        "remoteDefaultAllowed": allowance_json(policy.remote_default()),
        "remoteProviders": {name: allowance_json(policy.allowed(name))
                            for name in sorted(policy.remote_providers)},
        "defaultClassification": policy.default_classification,
        "redactSecrets": policy.redact_secrets,
        "configFiles": list(settings.sources), "ignored": list(settings.ignored)}
    text = (f"Default provider: {data['defaultProvider']}\n"
            f"Local providers (may see everything): {', '.join(data['localProviders']) or '-'}\n"
            f"Other providers may see: {', '.join(data['remoteDefaultAllowed'])}\n"
            + "".join(f"  {p}: {', '.join(levels)}\n"
                      for p, levels in data["remoteProviders"].items())
            + f"Unclassified items count as: {policy.default_classification}\n"
            + "Credentials redacted for remote providers: "
            + ("yes" if policy.redact_secrets else "NO (redactSecrets = false)"))
    return Result(data, text.rstrip())


def _sanitize(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.service.planning import settings_for
    from waymarks.tool.egress import outgoing_payload

    provider = args.options.get("provider")
    if not provider:
        raise UsageError("Usage: waymarks privacy sanitize --provider ID < payload.json")
    try:
        payload = json.loads((env.extra.get("stdin") or sys.stdin).read())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"standard input is not a JSON payload: {exc}") from exc
    outcome = outgoing_payload(payload, provider, settings_for(app).policy)
    if outcome.withheld or outcome.payload is None:
        data: dict[str, Any] = {"outcome": "rejected", "code": "withheld",
                                "message": outcome.reason,
                "id": None, "conflicts": []}
        return Result(data, f"Withheld: {outcome.reason}", EXIT_REJECTED)
    return Result(dict(outcome.payload), json.dumps(outcome.payload, ensure_ascii=False))


def _config_show(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.service.planning import settings_for

    settings = settings_for(app)
    data: dict[str, Any] = {"files": list(settings.sources),
                            "ignored": list(settings.ignored),
            "config": settings.raw,
            "effective": {"defaultProvider": settings.default_provider,
                          "maxPinnedTokens": settings.budgets.max_pinned_tokens,
                          "maxMemoryTokens": settings.budgets.max_memory_tokens,
                          "maxResults": settings.budgets.max_results}}
    lines = [f"Config files: {', '.join(data['files']) or '(none; defaults)'}"]
    lines += [f"Ignored: {i}" for i in data["ignored"]]
    lines += [f"  {k} = {v}" for k, v in data["effective"].items()]
    return Result(data, "\n".join(lines))


def _mcp(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    """A named ``--session`` must exist before the server starts (exit 2 otherwise, like
    any bad argument); HTTP off loopback needs ``--allow-remote`` and then warns."""
    import sys

    from waymarks.ledger.discovery import resolve_session
    from waymarks.ledger.log import SessionFileError
    from waymarks.mcp.http_transport import is_loopback, remote_warning, serve_http
    from waymarks.mcp.server import serve_stdio
    from waymarks.service.planning import settings_for

    named = env.extra.get("session")
    if isinstance(named, str):
        try:
            resolve_session(app.home, app.cwd, named)
        except SessionFileError as exc:
            raise UsageError(f"--session: {exc}") from exc
        app.current_session()  # an unreadable session fails now (exit 1), not per call
    http_only = sorted({"port", "host", "allow-remote"} & args.options.keys())
    if "http" not in args.options and http_only:
        raise UsageError(f"--{http_only[0]} applies to --http only: waymarks mcp --http "
                         f"--{http_only[0]} ...")
    app.keep_recall_index = True  # a long-lived process: hold the recall index in memory
    follow = None
    if "claude-code" in args.options:  # act on the session Claude Code's hooks last saw
        from waymarks.hosts.claude_code import follower

        follow = follower(app)
    if "http" not in args.options:
        serve_stdio(app, follow)
        return Result({}, "")
    host = args.options.get("host", "127.0.0.1")
    port = _int_option(args, "port") or 8765
    if not is_loopback(host) and "allow-remote" not in args.options:
        raise UsageError(
            f"--host {host} serves MCP over plain HTTP beyond this machine: the bearer token "
            "and memory would cross the network unencrypted. Keep the default --host "
            "127.0.0.1 and reach it through an SSH tunnel (ssh -L 8765:127.0.0.1:8765 ...) "
            "or a TLS proxy; or add --allow-remote to accept that risk")
    token = settings_for(app).raw.get("mcp", {}).get("token")
    if not isinstance(token, str) or len(token) < 16:
        raise UsageError("waymarks mcp --http needs a bearer token of at least 16 characters"
                         " in config.toml: [mcp] token = \"...\"")
    if not is_loopback(host):
        print(remote_warning(host, port), file=sys.stderr, flush=True)
    serve_http(app, host=host, port=port, token=token, follow=follow)
    return Result({}, "")


def _bridge(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.hosts.pi_bridge import serve

    app.close()  # the bridge opens its own, bound to the host's session
    serve(app.home)
    return Result({}, "")


def _pi(install: bool) -> Any:
    def run(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
        from waymarks.hosts import pi_install

        directory = pi_install.agent_dir(args.options.get("agent-dir"))
        try:
            path, changed = (pi_install.install if install else pi_install.uninstall)(directory)
        except (FileExistsError, FileNotFoundError) as exc:
            return Result({"outcome": "rejected", "code": "conflict", "message": str(exc)},
                          f"Refused: {exc}", EXIT_REJECTED)
        verb = ("Installed" if changed else "Already installed") if install else (
            "Removed" if changed else "Nothing to remove at")
        return Result({"path": str(path), "changed": changed, "installed": install},
                      f"{verb} {path}" + ("; restart Pi to load it" if install and changed
                                          else ""))
    return run


def _claude_code(install: bool) -> Any:
    def run(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
        from pathlib import Path

        from waymarks.hosts import claude_code_install as cc

        scope: cc.Scope = "user" if "user" in args.options else "project"
        try:
            if install:
                changes = cc.install(scope, Path(app.cwd), Path.home(), app.home)
            else:
                changes = cc.uninstall(scope, Path(app.cwd), Path.home(), app.home)
        except cc.InstallError as exc:
            return Result({"outcome": "rejected", "code": "invalid_config",
                           "message": str(exc)}, f"Refused: {exc}", EXIT_REJECTED)
        lines = [f"{c.path}: " + ", ".join([*(f"+{a}" for a in c.added),
                                             *(f"-{r}" for r in c.removed)]) for c in changes]
        verb = "installed" if install else "uninstalled"
        text = "\n".join(lines) if lines else f"Nothing to change: already {verb}."
        if install and lines:
            text += "\nRestart Claude Code to load the hooks and the MCP server."
        return Result({"scope": scope, "changes": [c.to_json() for c in changes]}, text)
    return run


PLAN_COMMANDS: dict[str, Command] = {
    "claude-code install": Command(
        "claude-code install [--project|--user]", "add Waymarks hooks and MCP server to "
        "Claude Code (project: .claude/settings.json and .mcp.json)", _claude_code(True),
        flags=frozenset({"project", "user"}), takes_positionals=False),
    "claude-code uninstall": Command(
        "claude-code uninstall [--project|--user]", "remove exactly what install added",
        _claude_code(False), flags=frozenset({"project", "user"}), takes_positionals=False),
    "pi install": Command("pi install [--agent-dir DIR]", "make Pi load the Waymarks extension",
                          _pi(True), frozenset({"agent-dir"}), takes_positionals=False),
    "pi uninstall": Command("pi uninstall [--agent-dir DIR]", "remove what `pi install` added",
                            _pi(False), frozenset({"agent-dir"}), takes_positionals=False),
    "bridge": Command("bridge", "the JSON-RPC bridge the Pi extension starts (stdio)",
                      _bridge, takes_positionals=False),
    "mcp": Command("mcp [--http [--port N] [--host ADDR [--allow-remote]]] [--claude-code]",
                   "serve context_persistence and memory_recall over MCP (stdio, or HTTP with"
                   " a token; off loopback only with --allow-remote)",
                   _mcp, frozenset({"port", "host"}),
                   frozenset({"http", "claude-code", "allow-remote"}),
                   takes_positionals=False),
    "plan": Command("plan --prompt TEXT [--provider ID] [--model-limit TOKENS] "
                    "[--history TEXT]...", "the context to add to one model request",
                    _plan, frozenset({"prompt", "provider", "model-limit", "history",
                                      "fixed-tokens"})),
    "manifest": Command("manifest", "what the last plan included and left out, and why",
                        _manifest, takes_positionals=False),
    "included": Command("included", "items the last plan included", _filtered("included"),
                        takes_positionals=False),
    "excluded": Command("excluded", "items the last plan left out, with the reason",
                        _filtered("excluded"), takes_positionals=False),
    "tokens": Command("tokens", "token estimates of the last plan's blocks", _tokens,
                      takes_positionals=False),
    "privacy": Command("privacy", "the privacy policy in force", _privacy,
                       takes_positionals=False),
    "privacy sanitize": Command("privacy sanitize --provider ID",
                                "sanitize a provider payload read on stdin", _sanitize,
                                frozenset({"provider"}), takes_positionals=False),
    "config show": Command("config show", "configuration files and effective settings",
                           _config_show, takes_positionals=False),
}
