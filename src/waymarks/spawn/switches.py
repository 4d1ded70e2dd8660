"""The values of Waymarks' on/off environment switches, for every one of them: the
helpers' (``WAYMARKS_CLI_HELPER``, ``WAYMARKS_CC_HELPER``) and hybrid recall's
(``WAYMARKS_SEMANTIC``, ``WAYMARKS_SEMANTIC_BACKFILL``). Before, the helpers knew only
``off``: ``WAYMARKS_CLI_HELPER=0`` left the helper on while ``WAYMARKS_SEMANTIC=0``
turned hybrid recall off. Imports nothing, not even ``typing`` (the hook's and the
CLI's clients read it, and each import there is a cost on every tool call).

What a value that is neither means is each switch's own: hybrid recall is then off (see
:func:`waymarks.semantic.enabled`), a helper stays on.
"""

TYPE_CHECKING = False  # not typing's: this module imports nothing
if TYPE_CHECKING:
    from collections.abc import Callable

#: the CLI's warm helper's switch (:mod:`waymarks.cli.warm`): read by the entry point
#: before the helper's client is imported, which a command run without it never needs
CLI_HELPER = "WAYMARKS_CLI_HELPER"
#: the values that switch it off (compared stripped and case-folded)
OFF = frozenset({"0", "off", "false", "no"})
#: the values that leave it on (unset, or set to say so)
ON = frozenset({"", "1", "on", "true", "yes"})


def switched_off(value: str) -> bool:
    """Whether ``value`` (an environment variable's; "" when unset) is one of :data:`OFF`."""
    return value.strip().casefold() in OFF


def switched_on(value: str) -> bool:
    """Whether ``value`` (an environment variable's; "" when unset) is one of :data:`ON`:
    hybrid recall's reading, where a value that is neither is off."""
    return value.strip().casefold() in ON


#: the shortest idle time a helper is given: one idle for less ended between two prompts
#: (``0.001``), so each hook or command started another, the process start it is there
#: to spare; ``0`` is said for no helper
MIN_IDLE_S = 1.0
#: how :func:`seconds`' refusal is said (the CLI's note, ``status``' last problem)
IDLE_RANGE = f"a number of seconds, {MIN_IDLE_S:g} or more (0 switches it off)"


def seconds(value: str, default: float) -> float | None:
    """A helper's idle time from an environment variable's ``value``: ``default`` when it
    is unset or blank, ``0`` the helper switched off, ``inf`` never idle; ``None`` when it
    is not :data:`IDLE_RANGE` (``30m``, ``-5``, ``nan``, ``0.001``: the caller says so and
    takes the default)."""
    if not value.strip():
        return default
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number == 0 or number >= MIN_IDLE_S else None  # (NaN too)


#: the switches that change what a warm helper answers (hybrid recall, and its background
#: embedding): a helper started under other values is not the one to answer a request
ANSWERING = ("WAYMARKS_SEMANTIC", "WAYMARKS_SEMANTIC_BACKFILL")
#: hybrid recall's switch (:data:`waymarks.semantic.SWITCH`)
SEMANTIC = ANSWERING[0]


def answering(get: "Callable[[str], str]") -> str:
    """Each of :data:`ANSWERING` as ``get(name)`` (its value, "" unset) leaves it: ``1``
    on, ``0`` off, a value that is neither counting as off (as hybrid recall reads it).
    With hybrid recall off its background embedding changes nothing: ``0`` alone."""
    bits = "".join("1" if switched_on(get(name)) else "0" for name in ANSWERING)
    return bits if bits.startswith("1") else "0"
