"""Configuration: ``<home>/config.toml``, plus ``<project>/.waymarks/config.toml`` when the
project is trusted (an untrusted project's file is ignored, and ``config show`` says so).

Keys (all optional)::

    [privacy]
    defaultProvider = "remote"            # destination assumed when none is named
    localProviders = ["ollama"]           # exact IDs of providers that run locally
    remoteDefaultAllowed = "normal"       # highest level any other provider may see
    [privacy.remoteProviders]             # exact allow list: provider -> highest level
    openai = "internal"
    [context]
    maxPinnedTokens = 16000
    maxMemoryTokens = 8000
    maxPersonalTokens = 1000              # the personal memory index in every plan
    [memory]
    maxResults = 12
    crossSession = true                   # project memory from this project's other sessions
    maxProjectSessions = 100              # sibling session files checked (active not counted)
    sessionRoots = ["~/.pi/agent/sessions"]  # more roots in Pi's layout to look in
    [personal]
    directory = "~/.pi/memory"            # personal memory entries (default <home>/memory)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waymarks.core.privacy import PrivacyConfigError, ProviderPolicy
from waymarks.planner.select import Budgets
from waymarks.service.outcomes import ServiceError

CONFIG_FILE = "config.toml"
PROJECT_CONFIG = Path(".waymarks") / CONFIG_FILE


@dataclass(frozen=True, slots=True)
class Settings:
    policy: ProviderPolicy
    default_provider: str
    budgets: Budgets
    sources: tuple[str, ...] = ()
    ignored: tuple[str, ...] = field(default=())
    raw: dict[str, Any] = field(default_factory=dict)
    cross_session: bool = True
    max_project_sessions: int = 100
    session_roots: tuple[Path, ...] = ()


_CACHE: dict[tuple[Any, ...], Settings] = {}


def load_settings(home: Path, project: str, trusted: bool) -> Settings:
    """The settings in force; the files are parsed again only when one of them changed
    (one request reads them from several places: planning, sources, personal memory)."""
    key = (home, project, trusted, *(_signature(p) for p in (
        home / CONFIG_FILE, Path(project) / PROJECT_CONFIG)))
    cached = _CACHE.get(key)
    if cached is None:
        cached = _load_settings(home, project, trusted)
        if len(_CACHE) >= 32:
            _CACHE.clear()
        _CACHE[key] = cached
    return cached


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def _load_settings(home: Path, project: str, trusted: bool) -> Settings:
    merged: dict[str, Any] = {}
    sources, ignored = [], []
    for path, allowed in ((home / CONFIG_FILE, True), (Path(project) / PROJECT_CONFIG, trusted)):
        if not path.is_file():
            continue
        if not allowed:
            ignored.append(f"{path} (project not trusted)")
            continue
        _merge(merged, _read(path))
        sources.append(str(path))
    privacy = merged.get("privacy", {})
    context = merged.get("context", {})
    memory = merged.get("memory", {})
    try:
        policy = ProviderPolicy.from_config(privacy)
        budgets = Budgets(
            max_pinned_tokens=_positive(context, "maxPinnedTokens", 16000),
            max_memory_tokens=_positive(context, "maxMemoryTokens", 8000),
            max_results=_positive(memory, "maxResults", 12),
            max_personal_tokens=_positive(context, "maxPersonalTokens", 1000),
        )
        cross_session = memory.get("crossSession", True) if isinstance(memory, dict) else True
        if not isinstance(cross_session, bool):
            raise ValueError(f"crossSession must be true or false, not {cross_session!r}")
        max_sessions = _positive(memory, "maxProjectSessions", 100)
        roots = memory.get("sessionRoots", []) if isinstance(memory, dict) else []
        if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
            raise ValueError("sessionRoots must be a list of directory paths")
    except (PrivacyConfigError, ValueError) as exc:
        raise ServiceError("bad_config", f"{', '.join(sources)}: {exc}") from exc
    default_provider = str(privacy.get("defaultProvider", "remote"))
    return Settings(policy, default_provider, budgets, tuple(sources), tuple(ignored), merged,
                    cross_session, max_sessions,
                    tuple(Path(r).expanduser() for r in roots))


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ServiceError("bad_config", f"{path}: {exc}; fix or remove it") from exc


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _positive(section: Any, key: str, default: int) -> int:
    value = section.get(key, default) if isinstance(section, dict) else default
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{key} must be a positive integer, not {value!r}")
    return value
