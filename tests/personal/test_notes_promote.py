"""What `notes promote` says when the destination may not receive a lesson."""

from __future__ import annotations

import json
from collections.abc import Callable


def test_promote_says_why_lessons_it_leaves_out_are_not_in_the_prompt(
        cli: Callable[..., dict]) -> None:
    """A lesson the destination may not receive is left out of the prompt, and with every
    lesson so left out `notes promote` said "No lesson notes to promote." (the MCP prompt:
    "There are no lesson notes on this branch"): the person took their lessons for lost or
    never taken. It says how many were left out, why, and how to name the model's
    provider; with some left out the prompt comes with a note saying so."""
    cli("session", "new")
    cli("notes", "add", "--", "[ds4:internal]Codename FALCON ships on Fridays[/ds4:internal]")
    held = cli("notes", "promote")
    assert (held["prompt"], held["lessons"], held["leftOut"]) == (None, [], 1)
    assert "No lesson notes" not in held["message"] and "--provider" in held["message"]
    assert "1 lesson note" in held["message"] and "FALCON" not in json.dumps(held)
    cli("notes", "add", "--", "Run migrations in one transaction")
    some = cli("notes", "promote")
    assert "migrations" in some["prompt"] and some["leftOut"] == 1
    assert any("1 lesson note" in n and "left out" in n for n in some["notices"])
    cli("notes", "clear")
    none = cli("notes", "promote")
    assert (none["prompt"], none["leftOut"]) == (None, 0)
    assert "no lesson notes" in none["message"].lower()


def test_promote_with_a_provider_named_does_not_ask_to_name_one(
        cli: Callable[..., dict]) -> None:
    """With every lesson left out for the provider the person named, `notes promote
    --provider anthropic` told them to "Name the provider ... --provider ID", the option
    they had just given, and the same again for each other remote one: it says that this
    provider may not receive them and where one that may is set ([privacy])."""
    cli("session", "new")
    cli("notes", "add", "--", "[ds4:internal]Codename FALCON ships on Fridays[/ds4:internal]")
    held = cli("notes", "promote", "--provider", "anthropic")
    assert (held["prompt"], held["leftOut"]) == (None, 1)
    assert "Name the provider" not in held["message"], held["message"]
    assert "anthropic" in held["message"] and "localProviders" in held["message"]
    cli("notes", "add", "--", "Run migrations in one transaction")
    some = cli("notes", "promote", "--provider", "anthropic")
    [notice] = some["notices"]
    assert "name the provider" not in notice.lower() and "anthropic" in notice, notice
