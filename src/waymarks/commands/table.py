"""The table itself: one click group holding every memory command, in the order the help
lists them.

``build()`` makes a fresh group each time (the CLI adds its launchers to its own copy);
``HOST_COMMANDS`` is what a host's slash command may run: never commands that switch
sessions, read or write local files (``export``, ``import``), or open an editor (those
check :attr:`Runtime.interactive`).
"""

from __future__ import annotations

from waymarks.commands.base import Group
from waymarks.commands.evolution import register_evolution
from waymarks.commands.evolution_inspect import register_inspection
from waymarks.commands.items import memory_group, register_pins
from waymarks.commands.learn import learn_group
from waymarks.commands.personal import adr_group, notes_group, personal_group, register_remember
from waymarks.commands.planning import config_group, privacy_group, register_planning
from waymarks.commands.sessions import register_house, session_group
from waymarks.commands.team import team_group
from waymarks.commands.transfer import register_transfer

HOST_COMMANDS = frozenset({
    "pins", "pin", "unpin", "memory", "recall", "status", "health", "rebuild-index",
    "manifest", "included", "excluded", "tokens", "privacy", "config", "personal", "notes",
    "adr", "trust", "untrust", "plan", "evolution", "feedback",
})


def build(name: str = "waymarks") -> Group:
    """The memory commands, as one group (no launchers, no global options)."""
    root = Group(name, help="Pins and durable memory for coding agents.")
    root.add_command(session_group())
    register_pins(root)
    root.add_command(memory_group())
    register_planning(root)
    register_house(root)
    root.add_command(personal_group())
    register_remember(root)
    root.add_command(notes_group())
    root.add_command(adr_group())
    root.add_command(privacy_group())
    root.add_command(config_group())
    root.add_command(learn_group())
    root.add_command(team_group())
    register_transfer(root)
    register_evolution(root)
    register_inspection(root)
    return root
