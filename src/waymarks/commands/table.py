"""The table itself: one click group holding every memory command, in the order the help
lists them.

``build()`` makes a fresh group each time (the CLI adds its launchers to its own copy),
whose commands are built (and their modules imported) when first looked up;
``HOST_COMMANDS`` is what a host's slash command may run: never commands that switch
sessions, read or write local files (``export``, ``import``), or open an editor (those
check :attr:`Runtime.interactive`).
"""

from __future__ import annotations

from collections.abc import Sequence

from waymarks.commands.base import Group, Loader

HOST_COMMANDS = frozenset({
    "pins", "pin", "unpin", "memory", "recall", "status", "health", "rebuild-index",
    "manifest", "included", "excluded", "tokens", "privacy", "config", "personal", "notes",
    "adr", "trust", "untrust", "plan", "evolution", "feedback",
})


def _session(group: Group) -> None:
    from waymarks.commands.sessions import session_group

    group.add_command(session_group())


def _pins(group: Group) -> None:
    from waymarks.commands.items import register_pins

    register_pins(group)


def _memory(group: Group) -> None:
    from waymarks.commands.items import memory_group

    group.add_command(memory_group())


def _planning(group: Group) -> None:
    from waymarks.commands.planning import register_planning

    register_planning(group)


def _house(group: Group) -> None:
    from waymarks.commands.sessions import register_house

    register_house(group)


def _personal(group: Group) -> None:
    from waymarks.commands.personal import personal_group

    group.add_command(personal_group())


def _remember(group: Group) -> None:
    from waymarks.commands.personal import register_remember

    register_remember(group)


def _notes(group: Group) -> None:
    from waymarks.commands.personal import notes_group

    group.add_command(notes_group())


def _adr(group: Group) -> None:
    from waymarks.commands.personal import adr_group

    group.add_command(adr_group())


def _privacy(group: Group) -> None:
    from waymarks.commands.planning import privacy_group

    group.add_command(privacy_group())


def _config(group: Group) -> None:
    from waymarks.commands.planning import config_group

    group.add_command(config_group())


def _learn(group: Group) -> None:
    from waymarks.commands.learn import learn_group

    group.add_command(learn_group())


def _team(group: Group) -> None:
    from waymarks.commands.team import team_group

    group.add_command(team_group())


def _transfer(group: Group) -> None:
    from waymarks.commands.transfer import register_transfer

    register_transfer(group)


def _evolution(group: Group) -> None:
    from waymarks.commands.evolution import register_evolution
    from waymarks.commands.evolution_inspect import register_inspection

    register_evolution(group)
    register_inspection(group)


#: every command of the table, in the order the help lists them, with what registers it
TABLE: tuple[tuple[Sequence[str], Loader], ...] = (
    (("session",), _session),
    (("pins", "pin", "unpin"), _pins),
    (("memory",), _memory),
    (("recall", "plan", "manifest", "included", "excluded", "tokens"), _planning),
    (("status", "health", "rebuild-index", "index", "trust", "untrust"), _house),
    (("personal",), _personal),
    (("remember",), _remember),
    (("notes",), _notes),
    (("adr",), _adr),
    (("privacy",), _privacy),
    (("config",), _config),
    (("learn",), _learn),
    (("team",), _team),
    (("export", "import"), _transfer),
    (("evolve", "evolution", "feedback"), _evolution),
)


def build(name: str = "waymarks", *, into: Group | None = None) -> Group:
    """The memory commands, as one group (no launchers, no global options), or added to
    ``into``; each is built when it is first looked up."""
    root = into if into is not None else Group(
        name, help="Pins and durable memory for coding agents.")
    for names, loader in TABLE:
        root.later(names, loader)
    return root
