"""The job queue's half of ``[evolution]`` in ``config.toml`` (EVOLUTION item 65).

Learning is a mode the person turns on once in the *home* configuration. The ``learn`` key
belongs to the consolidation half and is not read here; every other key of ``[evolution]``
is the queue's::

    [evolution]
    provider = "openai"          # the provider ID, as [privacy] names providers
    api = "openai"               # openai (chat completions) | anthropic (messages) |
                                 # claude-code (`claude -p`, no key needed)
    endpoint = "http://127.0.0.1:11434/v1"
    model = "qwen2.5:7b"
    keyEnv = "OPENAI_API_KEY"    # the NAME of the variable holding the key (never the key)
    fallbackModels = ["qwen2.5:3b"]   # same-provider backups, tried in order
    crossProviderFallback = true      # may a [[evolution.backups]] route be tried
    callsPerHour = 20            # shared by every process using this home
    sourceCalls = 4              # calls one source may use
    sourceModels = 2             # models one source may use
    timeoutMs = 120000           # one attempt
    sourceTimeMs = 300000        # all attempts of one source
    dailyEstimatedUsd = 1.0      # optional rolling-24 h ceiling; then every route needs prices
    inputUsdPerMTok = 0.15       # optional prices of the primary route
    outputUsdPerMTok = 0.60
    contextWindow = 32768        # optional: the model's window and output limit, in
    maxTokens = 4096             # tokens (item 53; below)
    [[evolution.backups]]        # other providers (same keys as above), tried by
                                 # priority = N (lower first), else by price, non-reasoning
                                 # (reasoning = true) before reasoning, then ID (item 64)
    provider = "anthropic"
    api = "anthropic"
    endpoint = "https://api.anthropic.com"
    model = "claude-haiku-4-5"
    keyEnv = "ANTHROPIC_API_KEY"

The model's limits (EVOLUTION item 53, as Pi's ``contextWindow``/``maxTokens`` bound Pi's
calls; :mod:`waymarks.core.evolution.limits`): ``maxTokens`` is the request's output
ceiling unless it is not below ``contextWindow`` (F3: then none, and 12,800 tokens of the
window are kept for the answer); an input the window cannot hold is not sent, and the model
cools down as for a context overflow. Undeclared, the request is sent as before (4,096
output tokens asked). A window that leaves no room for any input (12,800 tokens or less
with no ``maxTokens`` below it) is refused when the file is read, naming the fix. The
limits belong to their route's model: a ``fallbackModels`` entry does not inherit them.

With no ``endpoint`` and no ``api`` (or an ``[evolution]`` table that names no route at
all, e.g. only ``learn = true``), the route is Claude Code's headless mode (``claude -p``,
provider ``anthropic``), used only when a ``claude`` executable is on PATH (the adapter
decides), so a Claude Code user needs no key. With no ``[evolution]`` table there is no
route.

A project's ``.waymarks/config.toml`` (read only when the project is trusted) may only
TIGHTEN: lower the caps and timeouts, set or lower the daily ceiling, and turn
``crossProviderFallback`` off. Anything that would add or change where text goes
(provider, api, endpoint, model, keyEnv, fallbackModels, backups) is ignored and listed.

What must stay true: an invalid value fails closed with an error naming the key and the
fix, never echoing the value or the file (it may hold a pasted key); a key itself is never
read from a file, only the variable's name.
"""

from __future__ import annotations

import errno
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from waymarks.core.evolution.limits import RESERVED_OUTPUT_TOKENS, ModelLimits, output_ceiling
from waymarks.core.evolution_policy import ATTEMPT_DEADLINE_S, SOURCE_BUDGET_S
from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import setting_names
from waymarks.core.provider_ids import provider_id_problem
from waymarks.core.records import replace
from waymarks.core.text import echoed
from waymarks.service.config import CONFIG_FILE, MAX_CONFIG_BYTES, PROJECT_CONFIG, in_project
from waymarks.service.config_lines import line_of
from waymarks.service.outcomes import ServiceError

APIS: Final = ("openai", "anthropic", "claude-code")
#: the consolidation half's key: read there, ignored here
OTHERS_KEYS: Final = frozenset({"learn"})
_ROUTE_KEYS: Final = frozenset({"provider", "api", "endpoint", "model", "keyEnv",
                                "inputUsdPerMTok", "outputUsdPerMTok", "priority",
                                "reasoning", "contextWindow", "maxTokens"})
#: the largest window or output limit taken for a real one (tokens)
MAX_MODEL_TOKENS: Final = 100_000_000
_TIGHTEN_INT: Final = ("callsPerHour", "sourceCalls", "sourceModels", "timeoutMs",
                       "sourceTimeMs")
_TOP_KEYS: Final = (_ROUTE_KEYS | set(_TIGHTEN_INT)
                    | {"fallbackModels", "crossProviderFallback", "dailyEstimatedUsd",
                       "backups"})
_ENV_NAME: Final = lazy(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


class EvolutionConfigError(ValueError):
    """``[evolution]`` cannot be honoured; the message names the file and key, never a
    value."""


@dataclass(frozen=True, slots=True)
class RouteConfig:
    """One way to reach a model. ``key_env`` is a variable's name, never a key."""

    provider: str
    api: str
    model: str
    endpoint: str | None = None
    key_env: str | None = None
    input_usd_per_mtok: float | None = None
    output_usd_per_mtok: float | None = None
    #: a backup's explicit place (lower first); backups without one follow, by price
    priority: int | None = None
    #: a reasoning model (slower, costlier for this task): after others of equal price
    reasoning: bool = False
    #: the model's context window and output limit in tokens (item 53), when declared
    context_window: int | None = None
    max_tokens: int | None = None

    @property
    def limits(self) -> ModelLimits | None:
        """What the configuration declares about this route's model (None: nothing)."""
        return ModelLimits.from_host(self.context_window, self.max_tokens)

    @property
    def priced(self) -> bool:
        return self.input_usd_per_mtok is not None and self.output_usd_per_mtok is not None

    def to_json(self) -> dict[str, object]:
        """For status: where calls go, never a key (only whether its variable is named)."""
        from waymarks.core.secrets import redact

        return {"provider": self.provider, "api": self.api, "model": self.model,
                "endpoint": shown_endpoint(self.endpoint),
                # a second guard: a key in the place of the name is never shown
                "keyEnv": None if self.key_env is None else redact(self.key_env)[0],
                "priced": self.priced,
                "contextWindow": self.context_window, "maxTokens": self.max_tokens}


CLAUDE_CODE_ROUTE: Final = RouteConfig("anthropic", "claude-code", "default")

#: a query parameter whose name says it carries a credential (``key``, ``api_key``,
#: ``access_token``, ``sig``, ...): its value is never shown
_CREDENTIAL_PARAM: Final = lazy(r"(?i)key|token|secret|passw|pwd|sig|auth|credential|"
                                r"session|code")


def shown_endpoint(endpoint: str | None) -> str | None:
    """An endpoint as status may show it (text and JSON): without its userinfo
    (``user:password@``), with the value of every credential-named query parameter
    replaced by ``[REDACTED]``, no fragment, and anything else credential-shaped redacted
    as stored text is (:func:`waymarks.core.secrets.redact`). A configured endpoint may
    embed a key; only the call itself uses it as written."""
    if endpoint is None:
        return None
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    from waymarks.core.secrets import redact

    try:
        parts = urlsplit(endpoint)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return "[an endpoint that is not a URL]"
    netloc = (f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
    query = "&".join(f"{name}={'[REDACTED]' if _CREDENTIAL_PARAM.search(name) else value}"
                     for name, value in parse_qsl(parts.query, keep_blank_values=True))
    return redact(urlunsplit((parts.scheme, netloc, parts.path, query, "")))[0]


def backup_order(route: RouteConfig) -> tuple[int, float, float, bool, str, str]:
    """EVOLUTION item 64: backups with an explicit ``priority`` first (lower first), then
    by price (input + output per million tokens; unknown prices last), then non-reasoning
    models before reasoning ones, then by provider and model ID."""
    if route.priority is not None:
        return (0, float(route.priority), 0.0, False, route.provider, route.model)
    price = (route.input_usd_per_mtok + route.output_usd_per_mtok  # type: ignore[operator]
             if route.priced else math.inf)
    return (1, 0.0, price, route.reasoning, route.provider, route.model)


@dataclass(frozen=True, slots=True)
class EvolutionConfig:
    primary: RouteConfig | None = None
    fallback_models: tuple[str, ...] = ()
    backups: tuple[RouteConfig, ...] = ()
    cross_provider_fallback: bool = True
    calls_per_hour: int = 20
    source_calls: int = 4
    source_models: int = 2
    timeout_ms: int = int(ATTEMPT_DEADLINE_S * 1000)
    source_time_ms: int = int(SOURCE_BUDGET_S * 1000)
    daily_usd: float | None = None
    sources: tuple[str, ...] = ()
    ignored: tuple[str, ...] = field(default=())
    #: the primary is Claude Code's headless mode because ``[evolution]`` named no route
    #: (a default for Claude Code users, never a route the person configured)
    implicit_primary: bool = False

    def routes(self) -> list[RouteConfig]:
        """Every configured route in the order they are tried: the primary, its listed
        same-provider fallback models, then (if allowed) the backups."""
        if self.primary is None:
            return []
        found = [self.primary]
        # another model of the provider: the primary's limits are not its own
        found += [replace(self.primary, model=m, context_window=None, max_tokens=None)
                  for m in self.fallback_models if m != self.primary.model]
        if self.cross_provider_fallback:
            found += sorted((b for b in self.backups if b.provider != self.primary.provider),
                            key=backup_order)
        return found

    def narrowed_by(self, other: EvolutionConfig) -> EvolutionConfig:
        """These routes under the tighter of both files' switches and caps: a job is sent
        under its origin's configuration as well as the queue's (both read from one home,
        each tightened by its own project's file, which may only tighten)."""
        usd = [d for d in (self.daily_usd, other.daily_usd) if d is not None]
        return replace(self, cross_provider_fallback=self.cross_provider_fallback
                       and other.cross_provider_fallback,
                       calls_per_hour=min(self.calls_per_hour, other.calls_per_hour),
                       source_calls=min(self.source_calls, other.source_calls),
                       source_models=min(self.source_models, other.source_models),
                       timeout_ms=min(self.timeout_ms, other.timeout_ms),
                       source_time_ms=min(self.source_time_ms, other.source_time_ms),
                       daily_usd=min(usd) if usd else None)

    def limits_json(self) -> dict[str, object]:
        return {"callsPerHour": self.calls_per_hour, "sourceCalls": self.source_calls,
                "sourceModels": self.source_models, "timeoutMs": self.timeout_ms,
                "sourceTimeMs": self.source_time_ms, "dailyEstimatedUsd": self.daily_usd,
                "crossProviderFallback": self.cross_provider_fallback}


def load_evolution_config(home: Path, project: str | None = None, *,
                          trusted: bool = False) -> EvolutionConfig:
    """The queue's configuration in force: the home's ``[evolution]``, tightened by the
    project's when the project is trusted."""
    home_file = home / CONFIG_FILE
    table = _section(home_file)
    config = _parse(table, home_file) if table is not None else EvolutionConfig()
    sources = [str(home_file)] if table is not None else []
    if project is None:
        return replace(config, sources=tuple(sources))
    project_file = Path(project) / PROJECT_CONFIG
    if not project_file.is_file() or not in_project(project_file, project):
        return replace(config, sources=tuple(sources))
    if not trusted:
        return replace(config, sources=tuple(sources),
                       ignored=(*config.ignored, f"{project_file} (project not trusted)"))
    theirs = _section(project_file)
    if theirs is None:
        return replace(config, sources=tuple(sources))
    sources.append(str(project_file))
    return replace(_tighten(config, theirs, project_file), sources=tuple(sources))


def origin_evolution_config(home: Path, origin: str) -> EvolutionConfig | None:
    """The configuration over text captured in the project ``origin`` (a learning job's
    source, sent by a queue that may run from another directory or none): the home's,
    tightened by the project's file when the project is trusted here, as
    :func:`~waymarks.service.config.origin_policy` reads its privacy. ``None`` when a file
    cannot be honoured: nothing of it may be sent."""
    from waymarks.service.trust import TrustStore

    try:
        return load_evolution_config(home, origin,
                                     trusted=origin in TrustStore(home).projects())
    except (EvolutionConfigError, ServiceError):
        return None


def _section(path: Path) -> dict[str, Any] | None:
    """``[evolution]`` of ``path``; None when the file or the table is absent. A FIFO or a
    device in its place is an error, never waited on (``evolution status`` hung on one)."""
    from waymarks.files.reading import read_regular

    try:
        raw = read_regular(path, limit=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise EvolutionConfigError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes; a "
                                       "configuration file is never that big: fix or remove "
                                       "it") from None
        raise EvolutionConfigError(f"{path}: cannot be read ({exc.strerror or exc}); fix it "
                                   "(a regular file) or remove it") from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        # the parser's message can quote the offending text: say where, not what
        raise EvolutionConfigError(f"{path}: not valid TOML (UTF-8); fix or remove it") \
            from None
    table = document.get("evolution")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise EvolutionConfigError(f"{path}: [evolution] must be a table")
    return table


def _parse(table: dict[str, Any], path: Path) -> EvolutionConfig:
    where = f"{path}: [evolution]"
    unknown = sorted(k for k in table if k not in _TOP_KEYS and k not in OTHERS_KEYS)
    if unknown:
        raise EvolutionConfigError(f"{where} has unknown keys {setting_names(unknown)}; the keys "
                                   f"are {', '.join(sorted(_TOP_KEYS))}")
    # an [evolution] table that names no route means Claude Code's headless mode (a Claude
    # Code user needs no key); it is used only where `claude` is on PATH
    primary = _route(table, where, path=path) if (_ROUTE_KEYS & set(table)) \
        else CLAUDE_CODE_ROUTE
    backups_raw = table.get("backups", [])
    if not isinstance(backups_raw, list) or not all(isinstance(b, dict) for b in backups_raw):
        raise EvolutionConfigError(f"{where} backups must be [[evolution.backups]] tables")
    backups: list[RouteConfig] = []
    for index, entry in enumerate(backups_raw):
        extra = sorted(k for k in entry if k not in _ROUTE_KEYS)
        if extra:
            raise EvolutionConfigError(f"{where} backups[{index}] has unknown keys "
                                       f"{setting_names(extra)}")
        backups.append(_route(entry, f"{where} backups[{index}]", need_model=True, path=path))
    if not (_ROUTE_KEYS & set(table)) and backups:
        raise EvolutionConfigError(f"{where} names backups but no primary route; set "
                                   "provider/api/model first")
    fallback = table.get("fallbackModels", [])
    if not isinstance(fallback, list) or not all(_name(m) for m in fallback):
        raise EvolutionConfigError(f"{where} fallbackModels must be a list of model IDs")
    # a backup of the primary's own provider is never tried (routes() leaves it out): say
    # so, where it was dropped without a word
    ignored = tuple(f"{where} backups[{i}] (the primary's provider: another model of it "
                    "goes in fallbackModels)" for i, b in enumerate(backups)
                    if b.provider == primary.provider)
    return EvolutionConfig(
        primary=primary, fallback_models=tuple(fallback), backups=tuple(backups),
        ignored=ignored,
        implicit_primary=primary is CLAUDE_CODE_ROUTE,
        cross_provider_fallback=_bool(table, "crossProviderFallback", True, where),
        calls_per_hour=_int(table, "callsPerHour", 20, where, 1, 10_000),
        source_calls=_int(table, "sourceCalls", 4, where, 1, 100),
        source_models=_int(table, "sourceModels", 2, where, 1, 10),
        timeout_ms=_int(table, "timeoutMs", int(ATTEMPT_DEADLINE_S * 1000), where, 1000,
                        int(ATTEMPT_DEADLINE_S * 1000)),
        source_time_ms=_int(table, "sourceTimeMs", int(SOURCE_BUDGET_S * 1000), where, 1000,
                            int(SOURCE_BUDGET_S * 1000)),
        daily_usd=_usd(table, "dailyEstimatedUsd", where),
    )


def _is_url(endpoint: object) -> bool:
    """An endpoint the HTTP client can call: ``http(s)://``, a host, a valid port if any,
    printable characters only. Before, ``http://[::1/v1`` passed the pattern, and every
    call failed as ``unknown`` (the sources piling up failures) instead of a config error
    that status calls "not a URL"."""
    from urllib.parse import urlsplit

    if not (isinstance(endpoint, str) and endpoint.isprintable()
            and re.fullmatch(r"https?://[^\s]+", endpoint)):
        return False
    try:
        parts = urlsplit(endpoint)
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        return False
    return bool(parts.hostname)


def _route(table: dict[str, Any], where: str, need_model: bool = False,
           path: Path | None = None) -> RouteConfig:
    api = table.get("api")
    endpoint = table.get("endpoint")
    if api is None:
        api = "claude-code" if endpoint is None else "openai"
    if api not in APIS:
        raise EvolutionConfigError(f"{where} api must be one of {', '.join(APIS)}")
    if endpoint is not None and not _is_url(endpoint):
        raise EvolutionConfigError(f"{where} endpoint must be an http:// or https:// URL "
                                   "with a host (and a port from 0 to 65535)")
    if api != "claude-code" and endpoint is None:
        raise EvolutionConfigError(f"{where} api {api} needs an endpoint URL")
    model = table.get("model", None if (need_model or api != "claude-code") else "default")
    if not _name(model):
        raise EvolutionConfigError(f"{where} model must be a model ID (1-200 characters)")
    provider = table.get("provider", "anthropic" if api in ("anthropic", "claude-code")
                         else None)
    if not _name(provider):
        raise EvolutionConfigError(f"{where} provider must be the provider's ID, as "
                                   "[privacy] names it (e.g. \"openai\", \"ollama\")")
    assert isinstance(provider, str)  # (_name's)
    if (problem := provider_id_problem(provider)) is not None:  # (every provider ID's check)
        line = line_of(provider, path) if path is not None else None
        raise EvolutionConfigError(f"{where} provider{f' (line {line})' if line else ''}: the "
                                   f"provider ID '{echoed(provider)}' {problem}; write it as "
                                   "[privacy] names it (e.g. \"openai\", \"ollama\")")
    from waymarks.core.secrets import holds_credential

    key_env = table.get("keyEnv")
    if key_env is not None and (not isinstance(key_env, str)
                                or not _ENV_NAME.fullmatch(key_env)
                                or holds_credential(key_env) or _looks_random(key_env)):
        # a pasted key (hf_..., gsk_..., Mistral's 32 letters and digits) has the
        # characters of a name: the credential rules, or its shape, tell it apart, and the
        # error never shows it
        raise EvolutionConfigError(f"{where} keyEnv must be the NAME of an environment "
                                   "variable (letters, digits, _), never the key itself")
    priority = table.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)
                                 or not 0 <= priority <= 1000):
        raise EvolutionConfigError(f"{where} priority must be a whole number 0-1000 "
                                   "(lower is tried first)")
    window = _tokens(table, "contextWindow", where, 1024)
    ceiling = _tokens(table, "maxTokens", where, 1)
    if window is not None and window <= RESERVED_OUTPUT_TOKENS and output_ceiling(
            ModelLimits(window, ceiling)) is None:
        raise EvolutionConfigError(
            f"{where} contextWindow leaves no room for input: without a maxTokens below "
            f"it, {RESERVED_OUTPUT_TOKENS} tokens are kept for the answer; set maxTokens "
            "to the model's output limit (below contextWindow), or remove contextWindow")
    return RouteConfig(str(provider).strip().lower(), api, str(model), endpoint, key_env,
                       _usd(table, "inputUsdPerMTok", where),
                       _usd(table, "outputUsdPerMTok", where), priority,
                       _bool(table, "reasoning", False, where), window, ceiling)


def _looks_random(name: str) -> bool:
    """Whether a ``keyEnv`` looks like a key without a known prefix rather than a name: 20
    characters or more, letters and digits, no underscore (Mistral's keys are 32 letters
    and digits: no credential rule knows them). A conventional name (``OPENAI_API_KEY``,
    ``MistralKey``, ``my_key``) has an underscore or is short."""
    return (len(name) >= 20 and "_" not in name and any(c.isdigit() for c in name)
            and any(c.isalpha() for c in name))


def _tokens(table: dict[str, Any], key: str, where: str, low: int) -> int | None:
    """An optional token count (item 53); the value is never echoed."""
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not \
            low <= value <= MAX_MODEL_TOKENS:
        raise EvolutionConfigError(f"{where} {key} must be a whole number of tokens from "
                                   f"{low} to {MAX_MODEL_TOKENS}")
    return value


def _name(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value.strip()) <= 200 and value == value.strip()


def _bool(table: dict[str, Any], key: str, default: bool, where: str) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise EvolutionConfigError(f"{where} {key} must be true or false")
    return value


def _int(table: dict[str, Any], key: str, default: int, where: str, low: int,
         high: int) -> int:
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise EvolutionConfigError(f"{where} {key} must be a whole number from {low} to "
                                   f"{high}")
    return value


def _usd(table: dict[str, Any], key: str, where: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if (not isinstance(value, int | float) or isinstance(value, bool)
            or not math.isfinite(value) or value < 0):
        raise EvolutionConfigError(f"{where} {key} must be a number of US dollars, 0 or more")
    return float(value)


def _tighten(config: EvolutionConfig, theirs: dict[str, Any], path: Path) -> EvolutionConfig:
    """The home's configuration with what a project may tighten applied (see above)."""
    where = f"{path}: [evolution]"
    ignored = list(config.ignored)
    for key in sorted(theirs):
        if key in OTHERS_KEYS:
            continue
        if key in _ROUTE_KEYS or key in ("fallbackModels", "backups"):
            ignored.append(f"{path}: [evolution] {key} (only the home configuration may "
                           "choose where text goes)")
        elif key not in _TOP_KEYS:
            raise EvolutionConfigError(f"{where} has unknown keys {setting_names([key])}")
    changes: dict[str, Any] = {}
    limits = {"callsPerHour": ("calls_per_hour", 1, 10_000), "sourceCalls": ("source_calls",
              1, 100), "sourceModels": ("source_models", 1, 10),
              "timeoutMs": ("timeout_ms", 1000, int(ATTEMPT_DEADLINE_S * 1000)),
              "sourceTimeMs": ("source_time_ms", 1000, int(SOURCE_BUDGET_S * 1000))}
    for key, (attr, low, high) in limits.items():
        if key in theirs:
            wanted = _int(theirs, key, 0, where, low, high)
            current = getattr(config, attr)
            if wanted <= current:
                changes[attr] = wanted
            else:
                ignored.append(f"{path}: [evolution] {key} above the home's ({current})")
    if "crossProviderFallback" in theirs:
        if not _bool(theirs, "crossProviderFallback", True, where):
            changes["cross_provider_fallback"] = False
        elif not config.cross_provider_fallback:
            ignored.append(f"{path}: [evolution] crossProviderFallback (the home turned it "
                           "off)")
    if "dailyEstimatedUsd" in theirs:
        wanted_usd = _usd(theirs, "dailyEstimatedUsd", where)
        if config.daily_usd is None or (wanted_usd is not None
                                        and wanted_usd <= config.daily_usd):
            changes["daily_usd"] = wanted_usd
        else:
            ignored.append(f"{path}: [evolution] dailyEstimatedUsd above the home's")
    return replace(config, ignored=tuple(ignored), **changes)
