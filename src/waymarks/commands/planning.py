"""What reaches a model: ``recall``, ``plan`` and its manifest (``manifest``,
``included``, ``excluded``, ``tokens``), the privacy policy and the configuration."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from waymarks.commands.base import EXIT_REJECTED, Group, Result, command, runtime
from waymarks.commands.options import COUNT

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

PROVIDER = click.option(
    "--provider", metavar="ID",
    help="The destination provider whose privacy policy applies (default: the configured "
         "defaultProvider). E.g. --provider ollama")


def register_planning(root: click.Group) -> None:
    @command(root, "recall", summary="The memory a query is about: the digest a host would "
             "inject (at most 3 claims), or with --explain the scored candidates.",
             examples=["waymarks recall \"what port does the database use?\"",
                       "waymarks recall --history \"Which database?\" \"and the port?\"",
                       "waymarks recall --explain \"database port\""])
    @click.option("--history", multiple=True, metavar="TEXT",
                  help="An earlier user turn (repeat for several, oldest first): follow-ups "
                       "keep its subject. E.g. --history \"Which database?\"")
    @PROVIDER
    @click.option("--explain", "explain_", is_flag=True,
                  help="Show the scored candidates and the gates' verdicts (no claim text), "
                       "of the same plan as the recall (--history too). E.g. --explain")
    @click.argument("query", nargs=-1, required=True, metavar="QUERY")
    def recall(history: tuple[str, ...], provider: str | None, explain_: bool,
               query: tuple[str, ...]) -> Result:
        """For ranked matches with their text and scores, see `waymarks memory search`."""
        from waymarks.commands.recalling import recall_result

        if not " ".join(query).strip():  # (`recall ""` answered "Nothing recalled.", 0)
            raise click.UsageError("give the query to recall, e.g. waymarks recall "
                                   "\"what port does the database use?\"")
        return recall_result(runtime().app(), query, history, provider, explain_)

    @command(root, "plan", summary="The context Waymarks would add to one model request: "
             "pins, recalled memory, personal index, docs, earlier turns.",
             examples=["waymarks plan --prompt \"how long do we keep kafka events?\"",
                       "waymarks plan --provider ollama --model-limit 8000 --prompt \"hi\"",
                       "waymarks plan how long do we keep kafka events"])
    @click.option("--prompt", metavar="TEXT",
                  help="The person's request (or give it as the words after the options). "
                       "E.g. --prompt \"fix the flaky test\"")
    @PROVIDER
    @click.option("--model-limit", type=COUNT, metavar="TOKENS",
                  help="The model's context size: if the mandatory parts do not fit, the "
                       "planner adds nothing. E.g. --model-limit 128000")
    @click.option("--history", multiple=True, metavar="TEXT",
                  help="An earlier user turn, for follow-ups (repeat for several). E.g. "
                       "--history \"Which database?\"")
    @click.option("--fixed-tokens", type=COUNT, metavar="TOKENS",
                  help="Tokens the host already uses (system prompt, tools), counted against "
                       "--model-limit. E.g. --fixed-tokens 2000")
    @click.argument("words", nargs=-1, metavar="[PROMPT]")
    def plan(prompt: str | None, provider: str | None, model_limit: int | None,
             history: tuple[str, ...], fixed_tokens: int | None,
             words: tuple[str, ...]) -> Result:
        """Pins come first (mandatory), then memory recall chose for this request, then
        earlier turns compaction removed; `waymarks manifest` says why each item was
        included or left out."""
        from waymarks.personal.setup import plan_with_memory

        if prompt is not None and words:  # the words were dropped without a word
            raise click.UsageError("give the request either with --prompt TEXT or as the "
                                   "words after the options, not both (quote it: --prompt "
                                   "\"fix the flaky test\")")
        text = prompt or " ".join(words)
        if not text.strip():
            raise click.UsageError("give the request: --prompt TEXT")
        if fixed_tokens is not None and model_limit is None:  # it counts only against one
            raise click.UsageError("--fixed-tokens is counted against --model-limit: give "
                                   "the model's context size too, e.g. --model-limit 128000")
        made = plan_with_memory(runtime().app(), text, provider=provider,
                                model_limit=model_limit, history=history,
                                fixed_tokens=fixed_tokens or 0)
        data = {"messages": [m.to_json() for m in made.messages],
                "manifest": made.manifest_json()}
        notes = "".join(f"\nnote: {n}" for n in made.notes)
        if made.fallback:
            return Result(data, f"Planner fell back: {made.fallback}\n(no synthetic context)"
                          + notes)
        return Result(data, "\n\n".join(
            f"--- {m.kind} (priority {m.priority}, ~{m.tokens} tokens)\n{m.content}"
            for m in made.messages) + notes)

    @command(root, "manifest", summary="What the last plan included and left out, and why "
             "(IDs and reasons, never content).", examples=["waymarks manifest"])
    def manifest() -> Result:
        from waymarks.commands.render import cell, unambiguous

        data = _manifest_or_empty(runtime().app())
        if data.get("note"):  # no plan yet (it printed "provider None, 0 tokens")
            return Result(data, _sentence(data["note"]))
        data["totalTokens"] = _total(data)  # (a fallback saved before said 0)
        lines = [f"provider {data.get('provider')}, {data.get('totalTokens', 0)} tokens"
                 + (f", FELL BACK: {data['fallback']}" if data.get("fallback") else "")
                 + _made(data)]
        shown = unambiguous((e["id"] for e in data["entries"]), _short)
        lines += [f"  {e['decision']:<8} {e['kind']:<7} {cell(shown[e['id']])} "
                  f"[{e.get('classification') or 'normal'}] {e['reason']}"
                  for e in data["entries"]]
        return Result(data, "\n".join(lines))

    for decision, summary in (("included", "Items the last plan included."),
                              ("excluded", "Items the last plan left out, with the reason.")):
        _decision_command(root, decision, summary)

    @command(root, "tokens", summary="Token estimates of the last plan's blocks.",
             examples=["waymarks tokens", "waymarks tokens --json"])
    def tokens() -> Result:
        data = _manifest_or_empty(runtime().app())
        blocks = data.get("blocks", [])
        total = _total(data)
        fixed = _fixed(data)
        rows = [*((b["kind"], b["tokens"]) for b in blocks), *([("fixed", fixed)] if fixed
                                                               else [])]
        fallback = data.get("fallback")
        added = sum(b["tokens"] for b in blocks)
        text = "\n".join(f"{kind:<9} {n:>7}" for kind, n in
                         [*rows, *([("total", total)] if rows else [])])
        if not blocks:  # a plan that fell back has no blocks, and is no "no plan yet"
            from waymarks.commands.render import cell

            text = (f"The last plan fell back and added nothing: {cell(str(fallback))}\n"
                    + text if fallback else "No plan yet.").rstrip("\n")
        return Result({"blocks": blocks, "fixedTokens": fixed, "addedTokens": added,
                       "totalTokens": total, "modelLimit": data.get("modelLimit"),
                       "fallback": fallback}, text)


def _fixed(manifest: dict[str, Any]) -> int:
    """What the host sends anyway (system prompt, tools, conversation): in the total, and
    listed by `tokens`, so the rows add up (they did not after a host's plan); as the plan
    was given it, else, in a manifest saved before it was stored, what the rows leave of
    the total."""
    blocks = manifest.get("blocks", [])
    return int(manifest.get("fixedTokens", max(0, manifest.get("totalTokens", 0)
                                                - sum(b["tokens"] for b in blocks))))


def _total(manifest: dict[str, Any]) -> int:
    """The plan's total, as `manifest` and `tokens` both give it: a plan that fell back
    added nothing, so its total is the host's own part (one saved before the planner
    said so has 0 under a fixed part of 2000)."""
    if manifest.get("fallback") and not manifest.get("blocks"):
        return _fixed(manifest)
    return int(manifest.get("totalTokens", 0))


def _decision_command(root: click.Group, decision: str, summary: str) -> None:
    @command(root, decision, summary=summary, examples=[f"waymarks {decision}"])
    def run() -> Result:
        data = _manifest_or_empty(runtime().app())
        if data.get("note"):  # no plan yet: "Nothing included in the last plan." said one ran
            return Result({"items": [], "note": data["note"]}, _sentence(data["note"]))
        from waymarks.commands.render import cell, unambiguous

        entries = [e for e in data["entries"] if e["decision"] == decision]
        shown = unambiguous((e["id"] for e in data["entries"]), _whole)
        text = "\n".join(f"{e['kind']:<7} {cell(shown[e['id']])}  {e['reason']}"
                         for e in entries)
        return Result({"items": entries}, text or f"Nothing {decision} in the last plan.")


def _made(data: dict[str, Any]) -> str:
    """When the manifest's plan was made (``, made 2026-12-06 22:30:12 UTC``), or nothing
    for one saved before it was kept: the last plan saved may be older than the last plan
    made (one on a full disk saves none)."""
    from waymarks.core.codec import iso_to_ms, utc_text

    made = utc_text(iso_to_ms(data.get("madeAt", "")), "%Y-%m-%d %H:%M:%S")
    return "" if made == "-" else f", made {made} UTC"


def _sentence(note: object) -> str:
    """A manifest's note (``no plan yet: …``) as a sentence."""
    text = str(note)
    return text[:1].upper() + text[1:] + "."


def _whole(item_id: str, unique: int = 0) -> str:
    """An ID as ``included`` and ``excluded`` show it: whole, unless longer than
    :data:`LONG_ID` (:func:`_short`)."""
    return _short(item_id, max(unique, len(item_id))) if len(item_id) <= LONG_ID else \
        _short(item_id, unique)


#: an ID longer than this (a teammate's line may make one 100,000 characters) is cut
LONG_ID = 64


def _short(item_id: str, unique: int = 0) -> str:
    """An item's UUID by its first 8 characters, as lists show it; any other ID whole
    (``personal:<slug>``: cut, every personal line read ``personal``), or by its first 12
    and ``…`` when longer than :data:`LONG_ID` (a teammate's ID of 100,000 characters was
    printed whole); past them to its first ``unique`` characters (the fewest no other ID
    shown starts with: ``render.unambiguous``), a UUID then whole."""
    import re

    if re.fullmatch(r"[0-9a-f]{8}-[0-9a-f-]{27}", item_id):
        return item_id[:8] if unique <= 8 else item_id
    cut = max(12, unique)
    return item_id if len(item_id) <= max(LONG_ID, cut) else item_id[:cut] + "…"


def _manifest_or_empty(app: Waymarks) -> dict[str, Any]:
    from waymarks.service.planning import last_manifest

    return last_manifest(app) or {  # (the command that makes one where the person is)
        "entries": [], "blocks": [], "fallback": None,
        "note": f"no plan yet: run `{app.command_prefix} plan --prompt TEXT`"}


def privacy_group() -> Group:
    privacy = Group("privacy", default="show",
                    help="The privacy policy: which provider may receive which levels.",
                    examples=["waymarks privacy",
                              "waymarks privacy sanitize --provider openai < payload.json"])

    @command(privacy, "show", summary="The policy in force (home and trusted project "
             "configuration met).", examples=["waymarks privacy", "waymarks privacy show"])
    def show() -> Result:
        from waymarks.commands.render import cell
        from waymarks.core.privacy import allowance_json
        from waymarks.service.planning import settings_for

        settings = settings_for(runtime().app())
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
        # provider names as config.toml spells them, one line each (a name holding a line
        # break printed a line of its own)
        text = (f"Default provider: {cell(data['defaultProvider'])}\n"
                "Local providers (may see everything): "
                f"{', '.join(map(cell, data['localProviders'])) or '-'}\n"
                f"Other providers may see: {', '.join(data['remoteDefaultAllowed'])}\n"
                + "".join(f"  {cell(p)}: {', '.join(levels)}\n"
                          for p, levels in data["remoteProviders"].items())
                + f"Unclassified items count as: {policy.default_classification}\n"
                + "Credentials redacted for remote providers: "
                + ("yes" if policy.redact_secrets else "NO (redactSecrets = false)"))
        return Result(data, text.rstrip())

    @command(privacy, "sanitize", summary="Clean a provider payload read on standard input "
             "(OpenAI Chat or Responses, Anthropic Messages, Gemini); withheld whole if anything "
             "goes wrong.",
             examples=["waymarks privacy sanitize --provider openai < payload.json"])
    @click.option("--provider", metavar="ID", required=True,
                  help="The provider the payload goes to. E.g. --provider openai")
    def sanitize(provider: str) -> Result:
        from waymarks.commands.render import refused  # the documented shape
        from waymarks.service.planning import destination, settings_for
        from waymarks.tool.egress import outgoing_payload

        run = runtime()
        if run.stdin is None and run.read_stdin is None:  # a host's slash command, the web
            raise click.UsageError(  # (its standard input is the host's protocol stream)
                "privacy sanitize reads a payload on standard input, which only the command "
                "line has: run `waymarks privacy sanitize --provider ID < payload.json`")
        settings = settings_for(run.app())
        to = destination(settings, provider)  # a refusal before anything is read
        # the command line's reader: a closed standard input (<&-) or an endless one
        # (< /dev/zero) is one line and exit 2, not a traceback
        text = run.stdin.read() if run.stdin is not None \
            else run.read_stdin(MAX_PAYLOAD_BYTES)  # type: ignore[misc]
        try:  # the payload is what is wrong, not the command line: bad_input (it was usage)
            payload = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return refused("bad_input", f"standard input is not a JSON payload: {exc}; give "
                           "the provider request's JSON body; nothing was written")
        except RecursionError:
            return refused("bad_input", "standard input is not a JSON payload: nested too "
                           "deep; nothing was written")
        outcome = outgoing_payload(payload, to, settings.policy)
        if outcome.withheld or outcome.payload is None:  # (refused: the documented shape)
            refusal = refused("withheld", outcome.reason or "withheld")
            return Result(refusal.data, f"Withheld: {outcome.reason}", EXIT_REJECTED)
        return Result(dict(outcome.payload), json.dumps(outcome.payload, ensure_ascii=False))

    return privacy


#: the largest provider payload `privacy sanitize` reads (as `import` reads at most)
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024


def _shown(raw: Any, table: str = "") -> Any:
    """The configuration as ``config show`` prints it: the MCP server's bearer token as
    whether it is set, and credential-like values and names redacted. An agent that runs
    the command reads its output into the model's context, which got the token whole (and
    a key pasted as a setting's or a table's name, ``"sk-proj-…" = 1``)."""
    import itertools

    from waymarks.core.secrets import redact

    if isinstance(raw, dict):
        shown: dict[str, Any] = {}
        for key, value in raw.items():
            name = redact(key)[0]
            # two keys pasted as names redact alike: each listed ("(2)"), none dropped
            name = next(f"{name} ({n})" for n in itertools.count(2)
                        if f"{name} ({n})" not in shown) if name in shown else name
            shown[name] = (f"[set: {len(value)} characters, not shown]"
                           if table == "mcp" and key == "token" and isinstance(value, str)
                           else _shown(value, key if not table else f"{table}.{key}"))
        return shown
    if isinstance(raw, list):
        return [_shown(value, table) for value in raw]
    return redact(raw)[0] if isinstance(raw, str) else raw


def _learning_ignored(app: Any) -> list[str]:
    """What the learning settings ignore of a project's file (``[evolution]`` routes, a
    project's ``learn = true``): the raw ``config`` block shows them merged, and without
    these lines a person read them as in force."""
    from waymarks.service.evolution_config import EvolutionConfigError, load_evolution_config
    from waymarks.service.learning import LearningConfigError, learning_state

    try:
        ignored = [*load_evolution_config(app.home, app.cwd,
                                          trusted=app.project_trusted).ignored,
                   *learning_state(app.home, app.cwd if app.project_trusted else None).ignored]
        if not app.project_trusted and learning_state(app.home, app.cwd).project_off:
            # what `learn status` honours: a project may turn learning off, trusted or not
            ignored.append("(its [evolution] learn = false is honoured all the same: a "
                           "project may turn learning off)")
        return ignored
    except (EvolutionConfigError, LearningConfigError) as exc:
        return [f"[evolution] cannot be read: {exc}"]


def config_group() -> Group:
    config = Group("config", default="show", help="Configuration files and settings.",
                   examples=["waymarks config", "waymarks config show --json"])

    @command(config, "show", summary="Configuration files read, what was ignored, and the "
             "effective settings.", examples=["waymarks config show"])
    def show() -> Result:
        from waymarks.commands.render import cell
        from waymarks.service.planning import settings_for

        app = runtime().app()
        settings = settings_for(app)
        data: dict[str, Any] = {
            "files": list(settings.sources),
            "ignored": list(dict.fromkeys([*settings.ignored, *_learning_ignored(app)])),
            "config": _shown(settings.raw),
            "effective": {"defaultProvider": settings.default_provider,
                          "maxPinnedTokens": settings.budgets.max_pinned_tokens,
                          "maxMemoryTokens": settings.budgets.max_memory_tokens,
                          "maxPersonalTokens": settings.budgets.max_personal_tokens,
                          "defaultContextWindow": _window(settings.raw),
                          "maxResults": settings.budgets.max_results}}
        lines = [f"Config files: {', '.join(map(cell, data['files'])) or '(none; defaults)'}"]
        lines += [f"Ignored: {cell(i)}" for i in data["ignored"]]
        unset = "not set (a known model's window, else no limit)"  # the window alone may be
        lines += [f"  {k} = {unset if v is None else cell(str(v))}"
                  for k, v in data["effective"].items()]
        return Result(data, "\n".join(lines))

    return config


def _window(raw: dict[str, Any]) -> int | None:
    """``[context] defaultContextWindow`` as the settings read it (validated there)."""
    context = raw.get("context")
    return context.get("defaultContextWindow") if isinstance(context, dict) else None
