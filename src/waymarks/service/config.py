"""Configuration: ``<home>/config.toml``, plus ``<project>/.waymarks/config.toml`` when the
project is trusted (an untrusted project's file is ignored, and ``config show`` says so).

A project's file may only make policy *stricter*, never looser: a repository someone
else wrote must not decide what leaves this machine, what counts as this project's
memory, or who may call the server. So:

- ``[privacy]``: the policy in force is the home's policy *met* with the project's
  (:meth:`ProviderPolicy.tightened_by`: a provider may receive a level only if both
  allow it, and is local only if both say so); a project ``defaultProvider`` counts only
  when it may receive no more than the home's default provider;
- ``[memory]``: ``crossSession`` may only be turned off and ``maxProjectSessions`` only
  lowered; ``sessionRoots`` comes from the home only (a root decides which files are
  read as this project's sessions);
- ``[mcp]`` (the HTTP token) and ``[personal]`` come from the home only;
- ``[context]`` budgets (``defaultContextWindow`` too) and ``[memory] maxResults`` may
  only be lowered: a budget changes how much of the person's memory goes out (the
  personal memory index is theirs, for every project), and a raised one floods the prompt.

Everything a project tried and was not allowed is listed in ``Settings.ignored``.

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

from pathlib import Path
from typing import Any, Final

import msgspec

from waymarks.core.privacy import (
    Classification,
    PrivacyConfigError,
    ProviderPolicy,
    setting_names,
)
from waymarks.core.provider_ids import provider_id_problem
from waymarks.core.text import echoed
from waymarks.files.reading import stamp_of
from waymarks.planner.budgets import Budgets
from waymarks.service.outcomes import ServiceError

#: the budgets and limits when no file sets them
_BUDGETS: Final = Budgets()
_PROJECT_SESSIONS: Final = 100

CONFIG_FILE = "config.toml"
PROJECT_CONFIG = Path(".waymarks") / CONFIG_FILE
#: a configuration file larger than this is refused unread (a repository's could be
#: gigabytes, read and parsed on every request)
MAX_CONFIG_BYTES: Final = 256 * 1024
#: tables and arrays nested deeper than this are refused (the deepest setting is 4)
MAX_DEPTH: Final = 16


class Settings(msgspec.Struct, frozen=True):
    policy: ProviderPolicy
    default_provider: str
    budgets: Budgets
    sources: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    raw: dict[str, Any] = msgspec.field(default_factory=dict)
    cross_session: bool = True
    max_project_sessions: int = _PROJECT_SESSIONS
    session_roots: tuple[Path, ...] = ()
    #: whether the *home's* default provider is a local one (its own policy says so): a
    #: host whose model is unknown then sends to an unknown, remote one
    #: (``planning.host_destination``). A project's file may not decide it: with a local
    #: home default, a project that named a remote default (or "tightened" the local one
    #: into a remote one) turned an MCP client's unknown model into a provider allowed
    #: sensitive text
    home_default_local: bool = False
    #: whether the *home's* file sets ``[context] defaultContextWindow``: the window in
    #: force is then the person's (a project may only lower it) and may widen a model's
    #: table window in the Claude Code hook (``model_limits.window_of``); a repository's
    #: alone may not
    home_sets_window: bool = False


_CACHE: dict[tuple[Any, ...], Settings] = {}


def load_settings(home: Path, project: str, trusted: bool) -> Settings:
    """The settings in force; the files are parsed again only when one of them changed
    (one request reads them from several places: planning, sources, personal memory)."""
    key = (home, project, trusted, *(stamp_of(p) for p in (
        home / CONFIG_FILE, Path(project) / PROJECT_CONFIG)))
    cached = _CACHE.get(key)
    if cached is None:
        cached = _load_settings(home, project, trusted)
        if len(_CACHE) >= 32:
            _CACHE.clear()
        _CACHE[key] = cached
    return cached


def origin_policy(home: Path, origin: str) -> ProviderPolicy | None:
    """The provider policy over text captured in the project ``origin`` (a learning job's
    source, sent by a queue that may serve another project or none): the home's,
    tightened by the project's file when the project is trusted here. ``None`` when a
    file cannot be read: nothing of it may be sent."""
    from waymarks.service.trust import TrustStore

    try:
        return load_settings(home, origin, origin in TrustStore(home).projects()).policy
    except ServiceError:
        return None


def unmarked_level(home: Path, origin: str) -> Classification:
    """The level of unmarked text captured in ``origin`` for learning (a statement, a work
    turn, an imported legacy memory): the policy's ``defaultClassification``, and
    ``local-only`` (nothing of it kept) when a configuration cannot be read."""
    policy = origin_policy(home, origin)
    return policy.default_classification if policy is not None else "local-only"


#: sections a project's configuration may not set at all
_HOME_ONLY: Final = ("mcp", "personal")


def _load_settings(home: Path, project: str, trusted: bool) -> Settings:
    merged: dict[str, Any] = {}
    sources: list[str] = []
    ignored: list[str] = []
    home_file, project_file = home / CONFIG_FILE, Path(project) / PROJECT_CONFIG
    # exists(), not is_file(): a folder or a FIFO in a configuration's place was skipped
    # without a word, the home's policy silently the defaults (_read refuses it); so was
    # a link that loops or whose target is gone
    if home_file.exists() or home_file.is_symlink():
        merged = _known_keys(_read(home_file), home_file)
        sources.append(str(home_file))
    local: dict[str, Any] = {}
    home_view: dict[str, Any] | None = None  # the home's settings, before a project's
    if project_file.exists() or project_file.is_symlink():
        if not in_project(project_file, project):
            ignored.append(f"{project_file} (a link out of the project: not read)")
        elif trusted:
            local = _known_keys(_read(project_file), project_file, ignored)
            sources.append(str(project_file))
        else:
            ignored.append(f"{project_file} (project not trusted)")
    try:
        privacy = _table(merged, "privacy")
        policy = ProviderPolicy.from_config(privacy)
        default_provider = _provider(privacy.get("defaultProvider", "remote"))
        home_default_local = policy.is_local(default_provider)
        home_context = merged.get("context")
        home_sets_window = isinstance(home_context, dict) and _count(
            home_context.get("defaultContextWindow"))
        if local:
            policy, default_provider = _tighten(policy, default_provider, local, project_file,
                                                ignored)
            home_view = {name: dict(table) if isinstance(table, dict) else table
                         for name, table in merged.items()}
            # copies: _merge changes the originals
            before = {name: dict(table) if isinstance(table := merged.get(name), dict)
                      else {} for name in ("context", "memory")}
            _merge(merged, {k: v for k, v in local.items() if k not in _HOME_ONLY
                            and k != "privacy" and _a_table_if_one(k, v, merged, project_file,
                                                                  ignored)})
            _keep_memory_limits(merged, before["memory"], project_file, ignored)
            _keep_budgets(merged, before, project_file, ignored)
            ignored.extend(f"{project_file}: [{name}] (only the home configuration may set it)"
                           for name in _HOME_ONLY if name in local)
        budgets, cross_session, max_sessions, roots = _limits(merged)
    except (PrivacyConfigError, ValueError) as exc:
        # a limit the home's file alone reads well is the project's: name that file alone
        # (both were named, and the person was sent to a home file holding nothing wrong)
        at_fault = [str(project_file)] if local and home_view is not None and \
            _reads_well(home_view) else sources
        provider = getattr(exc, "provider", None)
        if provider is not None:  # the file and line that hold it
            from waymarks.service.config_lines import where_provider  # (a refusal's alone)

            at_fault = [where_provider(provider, home_file, project_file if local else None)
                        or ", ".join(at_fault)]
        raise ServiceError("bad_config", f"{', '.join(at_fault)}: {_said(exc)}") from exc
    return Settings(policy, default_provider, budgets, tuple(sources), tuple(ignored), merged,
                    cross_session, max_sessions,
                    tuple(Path(r).expanduser() for r in roots), home_default_local,
                    home_sets_window)


def _said(exc: Exception) -> str:
    """What a refusal of a setting's value says, a credential in it redacted: the value
    is echoed so a typo is seen (``'normall'``), and a key pasted into the wrong setting
    (``remoteProviders.openai = "sk-proj-…"``) went out whole in every command's error,
    which the Claude Code hook sends the model to read (`waymarks status`). ``[evolution]``
    echoes no value at all (:mod:`waymarks.service.evolution_config`)."""
    from waymarks.core.secrets import redact  # (a refusal's alone: not on a plan's path)

    return redact(str(exc))[0]


def _limits(merged: dict[str, Any]) -> tuple[Budgets, bool, int, list[Any]]:
    """The budgets, ``crossSession``, ``maxProjectSessions`` and ``sessionRoots`` of the
    settings ``merged``, and the window and ``[personal] directory`` checked; a value
    that cannot be used raises ``ValueError`` naming it."""
    context = merged.get("context", {})
    memory = merged.get("memory", {})
    budgets = Budgets(
        max_pinned_tokens=_positive(context, "maxPinnedTokens", _BUDGETS.max_pinned_tokens),
        max_memory_tokens=_positive(context, "maxMemoryTokens", _BUDGETS.max_memory_tokens),
        max_results=_positive(memory, "maxResults", _BUDGETS.max_results),
        max_personal_tokens=_positive(context, "maxPersonalTokens",
                                      _BUDGETS.max_personal_tokens),
    )
    window = context.get("defaultContextWindow") if isinstance(context, dict) else None
    if window is not None and (not _count(window) or window > MAX_WINDOW):
        # read where a hook plans, "200k" or 200000.0 meant "no limit", in silence
        raise ValueError("defaultContextWindow must be a whole number of tokens from 1 "
                         f"to {MAX_WINDOW:,}, not {window!r}")
    cross_session = memory.get("crossSession", True) if isinstance(memory, dict) else True
    if not isinstance(cross_session, bool):
        raise ValueError(f"crossSession must be true or false, not {cross_session!r}")
    max_sessions = _positive(memory, "maxProjectSessions", _PROJECT_SESSIONS)
    roots = memory.get("sessionRoots", []) if isinstance(memory, dict) else []
    if not isinstance(roots, list) or not all(_a_path(r) for r in roots):
        raise ValueError("sessionRoots must be a list of directory paths")
    relative = [r for r in roots if not Path(r).expanduser().is_absolute()]
    if relative:  # it was read from each working directory: a repository's folder
        raise ValueError(f"sessionRoots: {relative[0]!r} is a relative path, which "
                         "would be read in every project you work in (a repository "
                         "could supply it); give an absolute one (~/… works)")
    personal = merged.get("personal")
    if isinstance(personal, dict) and "directory" in personal and not _a_path(
            personal["directory"]):
        raise ValueError("[personal] directory must be a directory path")
    return budgets, cross_session, max_sessions, roots


def _reads_well(settings: dict[str, Any]) -> bool:
    """Whether ``settings`` (the home's alone) hold limits that can be used."""
    try:
        _limits(settings)
    except ValueError:
        return False
    return True


def in_project(path: Path, project: str) -> bool:
    """Whether ``path`` (a project's configuration) is a file of the project, not a link
    to one elsewhere: a repository's link to ``~/.cargo/credentials.toml`` was read as its
    configuration, and ``config show`` printed the token it holds."""
    from waymarks.files.paths import leads_within  # (a project with a configuration's)

    return leads_within(path, Path(project))  # a loop of links: not the project's


def _table(config: dict[str, Any], name: str) -> dict[str, Any]:
    table = config.get(name, {})
    if not isinstance(table, dict):
        raise ValueError(f"[{name}] must be a table")
    return table


def _provider(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"defaultProvider must be a provider ID, not {value!r}")
    problem = provider_id_problem(value)
    if problem is not None:  # the check every provider ID gets (core/provider_ids.py)
        raise PrivacyConfigError(f"defaultProvider: the provider ID '{echoed(value)}' "
                                 f"{problem}; write it as the provider is named (e.g. "
                                 "ollama)", value)
    return value


def _tighten(policy: ProviderPolicy, default_provider: str, local: dict[str, Any],
             path: Path, ignored: list[str]) -> tuple[ProviderPolicy, str]:
    """The home policy met with a project's ``[privacy]`` (see the module docstring)."""
    table = _table(local, "privacy")
    if not table:
        return policy, default_provider
    theirs = {k: v for k, v in table.items() if k != "defaultProvider"}
    tightened = policy.tightened_by(ProviderPolicy.from_config(theirs)) if theirs else policy
    wanted = table.get("defaultProvider")
    if wanted is not None:
        wanted = _provider(wanted)
        if tightened.allowed(wanted) <= tightened.allowed(default_provider):
            return tightened, wanted
        ignored.append(f"{path}: [privacy] defaultProvider {wanted!r} (it may receive more "
                       f"than the home's default provider {default_provider!r})")
    return tightened, default_provider


def _keep_memory_limits(merged: dict[str, Any], home: dict[str, Any], path: Path,
                        ignored: list[str]) -> None:
    """After a project's ``[memory]`` was merged: restore what it may not loosen."""
    memory = merged.get("memory")
    if not isinstance(memory, dict):
        return
    if "sessionRoots" in memory and memory.get("sessionRoots") != home.get("sessionRoots"):
        ignored.append(f"{path}: [memory] sessionRoots (only the home configuration may "
                       "set it)")
        if "sessionRoots" in home:
            memory["sessionRoots"] = home["sessionRoots"]
        else:
            del memory["sessionRoots"]
    if home.get("crossSession", True) is False and memory.get("crossSession") is not False:
        ignored.append(f"{path}: [memory] crossSession (the home turned it off)")
        memory["crossSession"] = False


#: the largest ``defaultContextWindow`` (a model's window in tokens, not beyond this)
MAX_WINDOW: Final = 100_000_000

#: limits a project may only lower: (section, key, the default when the home sets none;
#: ``None``: no limit, so any value is a lower one)
_LOWER_ONLY: Final = (("context", "maxPinnedTokens", _BUDGETS.max_pinned_tokens),
                      ("context", "maxMemoryTokens", _BUDGETS.max_memory_tokens),
                      ("context", "maxPersonalTokens", _BUDGETS.max_personal_tokens),
                      ("context", "defaultContextWindow", None),
                      ("memory", "maxResults", _BUDGETS.max_results),
                      ("memory", "maxProjectSessions", _PROJECT_SESSIONS))


def _keep_budgets(merged: dict[str, Any], home: dict[str, dict[str, Any]], path: Path,
                  ignored: list[str]) -> None:
    """After a project's file was merged: a budget or limit it raised above the home's
    (or the default) is the home's again. A repository's ``maxPersonalTokens`` put the
    person's whole personal memory index into its plans; its other budgets flooded them."""
    for section, key, default in _LOWER_ONLY:
        table = merged.get(section)
        if not isinstance(table, dict) or key not in table:
            continue
        theirs, mine = table[key], home[section].get(key, default)
        if not _count(mine):
            continue  # no limit (or the home's own mistake, reported where it is read)
        if _count(theirs):
            if theirs <= mine:
                continue
            ignored.append(f"{path}: [{section}] {key} above the home's ({mine})")
        elif default is None:
            # not validated where it is read: text, 0 or a fraction meant "no window"
            ignored.append(f"{path}: [{section}] {key} (not a positive whole number; the "
                           f"home's {mine} stands)")
        else:
            continue  # refused as a bad value where it is read
        if key in home[section]:
            table[key] = mine
        else:
            del table[key]


def _count(value: object) -> bool:
    """A positive whole number (what every budget and limit must be)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _a_path(value: object) -> bool:
    """A path a configuration may name: a string without NUL (a NUL made every listing
    fail on ``os.scandir`` after a write had been appended)."""
    return isinstance(value, str) and "\x00" not in value


def _a_table_if_one(name: str, value: object, home: dict[str, Any], path: Path,
                    ignored: list[str]) -> bool:
    """Whether a project's top-level ``name = value`` may be merged: a section the home
    holds as a table (or ``[context]``, ``[memory]``) only as a table. ``memory = 0``
    replaced the home's whole ``[memory]`` table, its limits with it."""
    if isinstance(value, dict) or not (isinstance(home.get(name), dict)
                                       or name in ("context", "memory")):
        return True
    ignored.append(f"{path}: {name} (not a table; the home's [{name}] stands)")
    return False


#: the keys of each table this module reads (``[privacy]``'s and ``[evolution]``'s are
#: checked where they are read: ``ProviderPolicy.from_config``, ``evolution_config``)
_KEYS: Final = {"privacy": None, "evolution": None,
                "context": ("maxPinnedTokens", "maxMemoryTokens", "maxPersonalTokens",
                            "defaultContextWindow"),
                "memory": ("maxResults", "crossSession", "maxProjectSessions", "sessionRoots"),
                "mcp": ("token",), "personal": ("directory",)}


def _known_keys(document: dict[str, Any], path: Path,
                ignored: list[str] | None = None) -> dict[str, Any]:
    """``document`` with only the tables and keys Waymarks reads. A misspelt one
    (``[context] maxPinedTokens``, a ``[contxt]`` table, ``maxResults`` above any table)
    was ignored without a word, the setting the person meant not in force. In the home's
    file (``ignored`` ``None``) it is refused as an unknown ``[privacy]`` setting is
    (``bad_config``), naming it and the known ones. A project's is listed in ``ignored``
    and left out: a repository's file is a teammate's, maybe for a newer release, and
    refusing it refused every command and every prompt's context, a repository switching
    Waymarks off (it may only tighten); the home's settings stay in force."""
    known = {k: v for k, v in document.items() if k in _KEYS}
    unknown = sorted(str(k) for k in document if k not in _KEYS)
    wrong = {table: sorted(str(k) for k in value if k not in keys)
             for table, keys in _KEYS.items()
             if keys is not None and isinstance(value := known.get(table), dict)}
    said = [f"unknown table or setting {setting_names(unknown, quoted=True)} at the top "
            f"level; the tables are {', '.join(f'[{t}]' for t in _KEYS)} (a setting goes "
            "under its table's [header])"] if unknown else []
    said += [f"unknown [{table}] setting {setting_names(names, quoted=True)}; its settings "
             f"are {', '.join(_KEYS[table] or ())}" for table, names in wrong.items() if names]
    if not said:
        return document
    if ignored is None:
        raise ServiceError("bad_config", f"{path}: {said[0]}; fix or remove it")
    ignored.extend(f"{path}: {line} (not read)" for line in said)
    return {table: {k: v for k, v in value.items() if k not in wrong.get(table, ())}
            if table in wrong else value for table, value in known.items()}


def _read(path: Path) -> dict[str, Any]:
    import errno
    import tomllib  # here, not at import: most requests find no config file to read

    from waymarks.files.reading import read_regular

    try:  # a FIFO in its place is an error, never waited on
        document = tomllib.loads(read_regular(path, limit=MAX_CONFIG_BYTES).decode("utf-8"))
        if _deeper_than(document, MAX_DEPTH):
            raise RecursionError  # dotted keys and table headers nest without recursing
        return document
    except OSError as exc:
        if exc.errno != errno.EFBIG:
            raise ServiceError("bad_config", f"{path}: {exc.strerror or exc}; fix or remove it"
                               ) from exc
        raise ServiceError("bad_config", f"{path}: larger than {MAX_CONFIG_BYTES} bytes; a "
                           "configuration file is never that big: fix or remove it") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ServiceError("bad_config", f"{path}: {exc}; fix or remove it") from exc
    except RecursionError as exc:
        raise ServiceError("bad_config", f"{path}: nested too deeply (tables and arrays "
                           f"more than {MAX_DEPTH} levels deep); fix or remove it"
                           ) from exc


def _deeper_than(document: dict[str, Any], limit: int) -> bool:
    """Whether tables and arrays nest more than ``limit`` levels (walked without
    recursion: the parser builds ``x.x.x….x = 1`` of any depth without recursing, and
    what later encodes or merges it would recurse)."""
    level: list[Any] = [document]
    for _depth in range(limit):
        level = [child for value in level
                 for child in (value.values() if isinstance(value, dict) else value)
                 if isinstance(child, dict | list)]
        if not level:
            return False
    return True


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
