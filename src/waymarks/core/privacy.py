"""Privacy lattice, inline classification markers and the provider policy.

Levels, from least to most restrictive: ``normal < internal < sensitive < local-only``.

Inline markers classify part of a text: ``[ds4:LEVEL]…[/ds4:LEVEL]`` (any of the four
levels, ASCII letters in any case). The rules:

- A closed span has the higher of its marker's level and the level around it; markers
  may nest. A marker never lowers a level: ``[ds4:normal]`` inside sensitive text is
  still sensitive, and an explicit classification is the floor of every span.
- A *leading* marker (only whitespace before it) that is never closed classifies the
  rest of the text.
- Anything else that does not pair up (a stray or mismatched closing tag, an opening tag
  left open elsewhere) makes the text *unbalanced*: the whole text takes the highest
  level of any marker in it.
- A marker immediately preceded by a backslash is literal text, never a marker. Output
  keeps that backslash (``strip_markers(..., unescape=True)`` removes it for display),
  so stripping and sanitizing are idempotent and a second pass cannot activate it.
- Removing tags can never leave a working tag behind (``[ds4:[ds4:normal]internal]``):
  stripping repeats until none is left, and such text counts as unbalanced.

The provider policy says which levels a provider may receive. A provider is *local*
only when its exact ID (trimmed, case-insensitive) is listed in ``localProviders``; local
providers may receive everything. Every other provider is remote and receives up to
``remoteDefaultAllowed`` (default ``normal``) or its own ``remoteProviders`` entry.
``local-only`` can never be allowed for a remote provider: such configuration is rejected.
No provider is local by default, because a provider ID alone does not prove that the
transport stays on this machine (an ``ollama`` endpoint may be remote).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Final, Literal, TypeGuard

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.model import Classification as Classification  # re-exported
from waymarks.core.provider_ids import provider_id_problem
from waymarks.core.text import escaped

Destination = Literal["local", "remote"]

LEVELS: Final[tuple[Classification, ...]] = ("normal", "internal", "sensitive", "local-only")
_RANK: Final[dict[str, int]] = {level: rank for rank, level in enumerate(LEVELS)}
_LEVEL_OF: Final[dict[str, Classification]] = {level: level for level in LEVELS}
#: levels a provider may receive, keyed by the highest one it may receive
_UP_TO: Final[dict[str, frozenset[Classification]]] = {
    level: frozenset(LEVELS[: rank + 1]) for rank, level in enumerate(LEVELS)
}
_STRICTEST: Final[Classification] = "local-only"

#: what replaces prohibited text in provider-facing copies; it names no content
WITHHELD: Final = "[withheld by privacy policy]"
#: stands in for text removed from tool history re-sent to a provider; output-only: a tool
#: refuses any argument that holds it, so a redacted call can never be replayed
OMITTED: Final = "[waymarks:omitted]"

#: group 1: an escaping backslash; group 2: "/" on a closing tag; group 3: the level
_MARKER: Final = lazy(
    r"(\\?)\[(/?)ds4:(normal|internal|sensitive|local-only)\]", re.IGNORECASE | re.ASCII
)
#: every marker contains "ds4:" in some letter case, so "4:" is a cheap superset test
_MARKER_HINT: Final = "4:"


class PrivacyConfigError(ValueError):
    """Privacy configuration that cannot be honoured; the message names the setting, and
    ``provider`` the provider ID at fault, when it is one (its file's line is found by it)."""

    def __init__(self, message: str, provider: str | None = None) -> None:
        super().__init__(message)
        self.provider = provider


def is_level(value: object) -> TypeGuard[Classification]:
    return isinstance(value, str) and value in _RANK


def level_rank(level: str) -> int:
    """``normal`` 0 … ``local-only`` 3; ``ValueError`` for anything else."""
    rank = _RANK.get(level)
    if rank is None:
        raise ValueError(f"unknown classification {level!r}; use one of {', '.join(LEVELS)}")
    return rank


def highest(first: Classification, *others: Classification) -> Classification:
    """The most restrictive of the given levels."""
    best = first
    for level in others:
        if _RANK[level] > _RANK[best]:
            best = level
    return best


def levels_up_to(level: Classification) -> frozenset[Classification]:
    """Every level at or below ``level``."""
    return _UP_TO[level]


def _floor(explicit: str | None) -> Classification:
    """An explicit classification as a floor; an unknown one fails closed to local-only."""
    if explicit is None:
        return "normal"
    return explicit if is_level(explicit) else _STRICTEST


# --- markers ---------------------------------------------------------------------------


def has_markers(text: str) -> bool:
    """True when ``text`` holds a working (unescaped) marker tag."""
    if _MARKER_HINT not in text:
        return False
    return any(not m.group(1) for m in _MARKER.finditer(text))


def tag_spans(text: str, *, escaped: bool = False) -> list[tuple[int, int]]:
    """Where ``text``'s working tags are, ``(start, end)`` in order; with ``escaped``, the
    escaped ones as well (their backslash included)."""
    if _MARKER_HINT not in text:
        return []
    return [m.span() for m in _MARKER.finditer(text) if escaped or not m.group(1)]


def _strip_pass(text: str) -> tuple[str, int, Classification | None]:
    """Remove working tags once: (text, tags removed, highest level among them)."""
    count = 0
    top: Classification | None = None

    def drop(match: re.Match[str]) -> str:
        nonlocal count, top
        if match.group(1):
            return match.group(0)
        count += 1
        level = _LEVEL_OF[match.group(3).lower()]
        top = level if top is None else highest(top, level)
        return ""

    return _MARKER.sub(drop, text), count, top


def _strip_all(text: str) -> tuple[str, int, Classification | None]:
    """Remove working tags until none is left (removal may join a new one together).

    A pass removes one layer: text nested as ``[ds4:`` x k then ``internal]`` x k took k
    passes over all of it (2 s at 56 KB of tool output, minutes at a megabyte, on every
    provider request). Past :data:`_PASSES` layers the rest is finished in one scan
    (:func:`_strip_scan`), which reaches the same text."""
    total = 0
    top: Classification | None = None
    for _ in range(_PASSES):
        if _MARKER_HINT not in text:
            return text, total, top
        text, count, level = _strip_pass(text)
        if not count:
            return text, total, top
        total += count
        if level is not None:
            top = level if top is None else highest(top, level)
    text, count, level = _strip_scan(text)
    if level is not None:
        top = level if top is None else highest(top, level)
    return text, total + count, top


#: regex passes before the scan takes over (nesting deeper than this is not written by hand)
_PASSES: Final = 4
#: a working tag, matched at the end of what the scan has kept
_TAG_AT_END: Final = lazy(r"(\\?)\[/?ds4:(normal|internal|sensitive|local-only)\]\Z",
                          re.IGNORECASE | re.ASCII)
#: the longest tag, escape included (``\[/ds4:local-only]``)
_LONGEST_TAG: Final = 18


def _strip_scan(text: str) -> tuple[str, int, Classification | None]:
    """:func:`_strip_pass` repeated until nothing changes, in one left-to-right scan: a tag
    is removed as soon as its ``]`` is kept, so a tag joined by a removal is found when
    its own ``]`` arrives. Escaped tags stay, as in a pass."""
    kept: list[str] = []
    count = 0
    top: Classification | None = None
    for char in text:
        kept.append(char)
        if char != "]":
            continue
        tail = "".join(kept[-_LONGEST_TAG:])
        found = _TAG_AT_END.search(tail)
        if found is None or found.group(1):
            continue
        del kept[len(kept) - (found.end() - found.start()):]
        count += 1
        level = _LEVEL_OF[found.group(2).lower()]
        top = level if top is None else highest(top, level)
    return "".join(kept), count, top


def strip_markers(text: str, *, unescape: bool = False) -> str:
    """``text`` without marker tags; idempotent. Escaped tags stay literal, backslash and
    all, unless ``unescape`` (for display only: the result may then hold working tags)."""
    if _MARKER_HINT not in text:
        return text
    stripped = _strip_all(text)[0]
    if unescape:
        stripped = _MARKER.sub(lambda m: m.group(0)[len(m.group(1)):], stripped)
    return stripped


def classify(text: str, explicit: str | None = None) -> Classification:
    """The highest of ``explicit`` (default ``normal``) and every marker in ``text``.

    This is the level of the text as a whole: an item holding a ``local-only`` span is
    ``local-only``. Never lower than ``explicit``; an unknown ``explicit`` counts as
    ``local-only`` (fail closed)."""
    base = _floor(explicit)
    if _MARKER_HINT not in text:
        return base
    _, count, top = _strip_all(text)
    return highest(base, top) if count and top is not None else base


class Segment(msgspec.Struct, frozen=True):
    """A run of marker-free text and the level that applies to it."""

    text: str
    #: the highest of :attr:`levels`
    level: Classification
    #: every level that applies to the run: the floor and each enclosing marker's. Under an
    #: exact allow list (``["normal", "sensitive"]``) an ``internal`` span inside a
    #: ``sensitive`` item is still ``internal`` text: the run is sent only if all are allowed
    levels: frozenset[Classification]


class MarkedText(msgspec.Struct, frozen=True):
    """A text split by its markers into classified segments (tags removed)."""

    segments: tuple[Segment, ...]
    #: the highest level of any part: ``classify(text, base)``
    level: Classification
    #: working tags removed
    markers: int
    #: False when markers do not pair up: one segment, the whole text at ``level``
    balanced: bool
    #: a leading marker left open, classifying the rest of the text
    open_tail: bool

    @property
    def text(self) -> str:
        return "".join(segment.text for segment in self.segments)


def parse_marked(text: str, base: str | None = None) -> MarkedText:
    """Split ``text`` into segments by its markers; ``base`` is the explicit floor."""
    floor = _floor(base)
    tokens = [m for m in _MARKER.finditer(text) if not m.group(1)] \
        if _MARKER_HINT in text else []
    if not tokens:
        return MarkedText((Segment(text, floor, frozenset((floor,))),) if text else (),
                          floor, 0, True, False)
    segments: list[Segment] = []
    stack: list[tuple[Classification, Classification, int]] = []  # (effective, tag, start)
    current = floor
    top = floor
    position = 0
    balanced = True
    for match in tokens:
        level = _LEVEL_OF[match.group(3).lower()]
        top = highest(top, level)
        if not balanced:
            continue
        start = match.start()
        if start > position:
            segments.append(_segment(text[position:start], current, floor, stack))
        position = match.end()
        if match.group(2):
            if not stack or stack[-1][1] != level:
                balanced = False
                continue
            stack.pop()
            current = stack[-1][0] if stack else floor
        else:
            current = highest(current, level)
            stack.append((current, level, start))
    open_tail = False
    if balanced and stack:
        leading = len(stack) == 1 and not text[: stack[0][2]].strip()
        open_tail = leading
        balanced = leading
    if balanced:
        if position < len(text):
            segments.append(_segment(text[position:], current, floor, stack))
        joined = "".join(segment.text for segment in segments)
        if not has_markers(joined):
            return MarkedText(tuple(segments), top, len(tokens), True, open_tail)
    stripped, count, emerged = _strip_all(text)
    if emerged is not None:
        top = highest(top, emerged)
    # markers that do not pair up say nothing of which run is which: the whole text is at
    # its highest level, and so at every level below it (fail closed under exact lists)
    return MarkedText((Segment(stripped, top, levels_up_to(top)),) if stripped else (), top,
                      count, False, False)


def _segment(text: str, level: Classification, floor: Classification,
             stack: list[tuple[Classification, Classification, int]]) -> Segment:
    return Segment(text, level, frozenset((floor, *(tag for _, tag, _ in stack))))


# --- provider policy -------------------------------------------------------------------


def normalize_provider(provider: str) -> str:
    """Provider IDs match exactly, ignoring surrounding space and letter case."""
    return provider.strip().lower()


Allowance = frozenset[Classification]


def _empty() -> Mapping[str, Allowance]:
    return MappingProxyType({})


#: keys of the ``[privacy]`` table; ``defaultProvider`` belongs to the service
#: the team ledger as a destination (:mod:`waymarks.core.team`): never a local provider
TEAM_PROVIDER: Final = "team"
_CONFIG_KEYS: Final = ("localProviders", "remoteDefaultAllowed", "remoteProviders",
                       "defaultClassification", "redactSecrets")
_FOREIGN_KEYS: Final = frozenset({"defaultProvider"})
_ALL: Final[Allowance] = frozenset(LEVELS)


#: an unknown setting's name shown in a refusal: what looks like a setting's name, words
#: in camel case (``localProvder``) or joined by ``_`` or ``-`` (TOML's own habit:
#: ``local_providers`` for ``localProviders`` was "1 not shown", the person not told which
#: line to fix); no digit, which an AWS key ID or a hex API key holds
_SHOWN_NAME: Final = lazy(r"[A-Za-z]{1,32}|[A-Za-z]{1,24}(?:[_-][A-Za-z]{1,24}){1,5}")


def setting_names(keys: list[str], quoted: bool = False) -> str:
    """Unknown setting names for a refusal, as far as they look like setting names (in
    quotes if ``quoted``): a key pasted in the place of a name (``"sk-proj-…" = 1``,
    ``"AKIA…" = 1``, 32 hex digits) is counted, never echoed; so is a run of letters whose
    case changes as a random key's does, in any of its words. (Not the secret scanner:
    it imports this module, and a name of letters alone, none random, holds no key.)"""
    from waymarks.core.secret_values import _random_part

    shown = [repr(key) if quoted else key for key in keys
             if _SHOWN_NAME.fullmatch(key)
             and not any(_random_part(word) for word in re.split(r"[_-]", key))]
    hidden = len(keys) - len(shown)
    return ", ".join(shown + ([f"{hidden} not shown (not a setting name)"] if hidden else []))


class ProviderPolicy(msgspec.Struct, frozen=True):  # __post_init__ normalises its fields
    """Which classifications each provider may receive, as exact allow lists.

    DS4's semantics: a remote rule is the exact set of levels a provider may receive
    (``["normal", "sensitive"]`` allows those two and not ``internal``); a level alone
    (``"internal"``) is the older ceiling style and means every level up to it, read
    unchanged. ``defaultClassification`` is the level of an item that has none;
    ``redactSecrets`` (default on) redacts credential-like values for remote providers.
    Construction validates and normalises (IDs trimmed and lower-cased); invalid values
    raise ``PrivacyConfigError``."""

    local_providers: frozenset[str] = frozenset()
    remote_default_allowed: Allowance | str = frozenset({"normal"})
    remote_providers: Mapping[str, Allowance | str] = msgspec.field(default_factory=_empty)
    default_classification: Classification = "normal"
    redact_secrets: bool = True

    def __post_init__(self) -> None:
        local: set[str] = set()
        if isinstance(self.local_providers, str):
            raise PrivacyConfigError("localProviders must be a list of provider IDs")
        for provider in self.local_providers:
            local.add(_provider_id(provider, "localProviders"))
        if TEAM_PROVIDER in local:
            raise PrivacyConfigError(
                f"localProviders: {TEAM_PROVIDER!r} is the team ledger in the repository, "
                "which every clone reads: it is never local (it takes normal and internal "
                f"text only; remoteProviders.{TEAM_PROVIDER} may narrow that); remove it")
        default = _remote_allowance(self.remote_default_allowed, "remoteDefaultAllowed")
        if not isinstance(self.remote_providers, Mapping):
            raise PrivacyConfigError("remoteProviders must map provider IDs to allow lists")
        remote: dict[str, Allowance] = {}
        for provider, value in self.remote_providers.items():
            where = f"remoteProviders.{provider}"
            name = _provider_id(provider, where)
            allowance = _remote_allowance(value, where)
            if remote.get(name, allowance) != allowance:
                raise PrivacyConfigError(f"{where}: {name!r} is listed twice with different "
                                         "levels (IDs ignore case and surrounding space)")
            if name in local:
                raise PrivacyConfigError(f"{where}: {name!r} is also in localProviders; a "
                                         "provider is either local or remote")
            remote[name] = allowance
        if not is_level(self.default_classification):
            raise PrivacyConfigError(f"defaultClassification: unknown classification "
                                     f"{self.default_classification!r}; use one of "
                                     f"{', '.join(LEVELS)}")
        if not isinstance(self.redact_secrets, bool):
            raise PrivacyConfigError("redactSecrets must be true or false")
        set_field = msgspec.structs.force_setattr
        set_field(self, "local_providers", frozenset(local))
        set_field(self, "remote_default_allowed", default)
        set_field(self, "remote_providers", MappingProxyType(remote))

    def __hash__(self) -> int:  # the mapping (read-only, unhashable) is left out
        return hash((self.local_providers, self.remote_default_allowed,
                     self.default_classification, self.redact_secrets))

    @classmethod
    def from_config(cls, config: Mapping[str, object]) -> ProviderPolicy:
        """Build from a ``[privacy]`` table with camelCase keys.

        ``localProviders``: list of IDs. ``remoteDefaultAllowed`` and each value of
        ``remoteProviders``: an exact allow list of levels, or one level (every level up
        to it). ``defaultClassification``: a level; ``redactSecrets``: true or false.
        ``defaultProvider`` is ignored here (the service reads it); any other key is an
        error."""
        if not isinstance(config, Mapping):
            raise PrivacyConfigError("the privacy configuration must be a table")
        unknown = sorted(str(k) for k in config if k not in _CONFIG_KEYS
                         and k not in _FOREIGN_KEYS)
        if unknown:  # a key pasted as a name is not echoed (an agent reads the refusal)
            raise PrivacyConfigError(
                f"unknown privacy setting {setting_names(unknown, quoted=True)}; the settings are "
                f"{', '.join(_CONFIG_KEYS)} (and defaultProvider)")
        local = config.get("localProviders", ())
        if not isinstance(local, list | tuple | frozenset | set):
            raise PrivacyConfigError("localProviders must be a list of provider IDs, "
                                     f"not {type(local).__name__}")
        remote = config.get("remoteProviders", {})
        if not isinstance(remote, Mapping):
            raise PrivacyConfigError("remoteProviders must be a table of provider ID = "
                                     "allow list")
        default_level = config.get("defaultClassification", "normal")
        level = default_level.strip().lower() if isinstance(default_level, str) else None
        if not is_level(level):
            raise PrivacyConfigError(f"defaultClassification: unknown classification "
                                     f"{default_level!r}; use one of {', '.join(LEVELS)}")
        redacts = config.get("redactSecrets", True)
        if not isinstance(redacts, bool):
            raise PrivacyConfigError(f"redactSecrets must be true or false, not {redacts!r}")
        return cls(
            local_providers=frozenset(_provider_id(p, "localProviders") for p in local),
            remote_default_allowed=_remote_allowance(
                config.get("remoteDefaultAllowed", "normal"), "remoteDefaultAllowed"),
            remote_providers={str(name): _remote_allowance(value, f"remoteProviders.{name}")
                              for name, value in remote.items()},
            default_classification=level, redact_secrets=redacts,
        )

    def tightened_by(self, other: ProviderPolicy) -> ProviderPolicy:
        """The meet of two policies: a provider is local only if both say so, receives a
        level only if both allow it, an unclassified item takes the stricter default, and
        redaction is on if either asks (how a project's configuration may narrow the
        person's, never widen it)."""
        local = self.local_providers & other.local_providers
        named = (set(self.remote_providers) | set(other.remote_providers)
                 | self.local_providers | other.local_providers) - local
        remote = {name: (self.allowed(name) & other.allowed(name)) - {_STRICTEST}
                  for name in named}
        empty = [name for name, allowance in remote.items() if not allowance]
        if empty:
            raise PrivacyConfigError(f"remoteProviders.{empty[0]}: the two configurations "
                                     "together allow it nothing; list at least one level")
        default = self.remote_default() & other.remote_default()
        if not default:  # each lists a level: "an empty allow list" blamed the wrong file
            raise PrivacyConfigError(
                "remoteDefaultAllowed: the two configurations together allow nothing (the "
                f"home's allows {', '.join(allowance_json(self.remote_default()))}, the "
                f"project's {', '.join(allowance_json(other.remote_default()))}); list a "
                "level both allow")
        return ProviderPolicy(
            local, default, remote,
            highest(self.default_classification, other.default_classification),
            self.redact_secrets or other.redact_secrets)

    def for_history(self) -> ProviderPolicy:
        """The policy for text that stays in a host's conversation (a compaction's or a
        branch summary's input, a prompt the bridge starts as the person's turn): it goes
        to whichever model comes next, so every provider is taken as remote and receives
        what it may and what an unnamed remote provider may, both. ``PrivacyConfigError``
        when a named provider may receive nothing then (its levels and the default's are
        apart)."""
        return self.tightened_by(ProviderPolicy(
            remote_default_allowed=self.remote_default(),
            default_classification=self.default_classification,
            redact_secrets=self.redact_secrets))

    def written(self, level: str | None) -> str | None:
        """The level to write out for an item stored at ``level`` (``None``: none given)
        when it leaves this home (an export, a team ledger): its own, else the default
        when that is not ``normal``, so a home with another default keeps it from the
        providers it was kept from here."""
        return level or (None if self.default_classification == "normal"
                         else self.default_classification)

    def remote_default(self) -> Allowance:
        """What a provider that is neither local nor named may receive."""
        return self.remote_default_allowed  # type: ignore[return-value]  # set in post-init

    def is_local(self, provider: str) -> bool:
        return normalize_provider(provider) in self.local_providers

    def destination(self, provider: str) -> Destination:
        return "local" if self.is_local(provider) else "remote"

    def allowed(self, provider: str) -> Allowance:
        """Every level ``provider`` may receive."""
        name = normalize_provider(provider)
        if name in self.local_providers:
            return _ALL
        return self.remote_providers.get(name, self.remote_default())  # type: ignore[return-value]

    def allows(self, provider: str, level: str) -> bool:
        """May ``provider`` receive ``level``? An unknown level is never allowed."""
        return level in self.allowed(provider)

    def redacts(self, provider: str) -> bool:
        """Are credential-like values redacted for ``provider``? (remote ones, by default)"""
        return self.redact_secrets and not self.is_local(provider)


def allowance_json(allowance: Collection[str]) -> list[str]:
    """An allow list in lattice order, for display and JSON."""
    return [level for level in LEVELS if level in allowance]


def _provider_id(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PrivacyConfigError(f"{where}: provider IDs must be non-empty strings, "
                                 f"not {value!r}")
    problem = provider_id_problem(value)
    if problem is not None:
        raise PrivacyConfigError(f"{escaped(where[:96])}: the provider ID "
                                 f"'{escaped(value[:64])}' {problem}; "
                                 "write it as the provider is named (e.g. ollama)", value)
    return normalize_provider(value)


def _remote_allowance(value: object, where: str) -> Allowance:
    """A remote allow list: exact levels, or one level meaning every level up to it (the
    ceiling style of earlier configuration); never ``local-only``, never empty."""
    if isinstance(value, str):
        level = value.strip().lower()
        if not is_level(level):
            raise PrivacyConfigError(f"{where}: unknown classification {value!r}; use one of "
                                     f"{', '.join(LEVELS)}")
        levels: frozenset[str] = _UP_TO[level]
    elif isinstance(value, list | tuple | frozenset | set):
        names = [v.strip().lower() if isinstance(v, str) else v for v in value]
        bad = [v for v in names if not is_level(v)]
        if bad:
            raise PrivacyConfigError(f"{where}: unknown classification {bad[0]!r}; use "
                                     f"{', '.join(LEVELS)}")
        if not names:
            raise PrivacyConfigError(f"{where}: an empty allow list; list at least one level")
        levels = frozenset(names)
    else:
        raise PrivacyConfigError(f"{where}: expected a list of classifications (or one), "
                                 f"not {type(value).__name__}")
    if _STRICTEST in levels:
        raise PrivacyConfigError(
            f"{where}: 'local-only' can never be allowed for a remote provider; list the "
            "provider in localProviders only if it runs on this machine")
    return frozenset(_LEVEL_OF[level] for level in levels)


DEFAULT_POLICY: Final = ProviderPolicy()
