"""Inside Pi, a refusal's hint names the command that works there.

A conflict refused in Pi said "Use `waymarks memory supersede ID -- NEW CLAIM`", which
fails from a terminal (``not_found``: the claim lives in the Pi session); only
``/context memory supersede …`` works. The hints (and the not_found listing) name the
running program now; the command line's still say ``waymarks``."""

from __future__ import annotations

import re
from pathlib import Path

from tests.hosts.test_bridge import Host, converse
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Rejected

FIRST = "Package export mode defaults to PerEndpoint."
SECOND = "Package export mode defaults to SingleFile."


def test_a_conflict_in_pi_names_the_context_command_that_resolves_it(tmp_path: Path) -> None:
    host = Host()
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": f"memory add -- {FIRST}"}},
        {"id": 3, "method": "command", "params": {"text": f"memory add -- {SECOND}"}},
        {"id": 4, "method": "command", "params": {"text": "memory supersede "
                                                  "0badc0de-0000-4000-8000-000000000000 -- x"}},
        {"id": 5, "method": "shutdown"}], host)
    said = {m["id"]: m["result"] for m in out if "result" in m}
    first = said[2]["data"]["id"]
    refused = said[3]["text"]
    assert said[3]["data"]["code"] == "conflict", said[3]
    hint = re.search(r"Use `([^`]*)`", refused)
    assert hint is not None and hint.group(1) == f"/context memory supersede {first} -- " \
        "NEW CLAIM", refused
    assert "waymarks" not in refused
    assert said[4]["data"]["code"] == "not_found" and "`/context memory`" in said[4]["text"]


def test_the_command_line_keeps_naming_waymarks(app: Waymarks) -> None:
    app.remember(FIRST)
    clash = app.remember(SECOND)
    assert isinstance(clash, Rejected) and "`waymarks memory supersede " in clash.message


def test_where_pi_calls_the_project_untrusted_a_refusal_does_not_send_the_person_to_trust(
        tmp_path: Path) -> None:
    """A review: with Pi reporting the project untrusted, a project pin was refused with
    "run `/context trust PATH` first", and that command is refused inside Pi
    (``host_decides``): the person was sent round in a circle. The hint says where the
    decision is made."""
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {"trusted": False}},
        {"id": 2, "method": "command", "params": {"text": "pin --scope project -- Use tabs"}},
        {"id": 3, "method": "command", "params": {"text": "memory add --scope project -- "
                                                  "The staging port is 5433."}},
        {"id": 4, "method": "command", "params": {"text": "trust ."}},
        {"id": 5, "method": "shutdown"}], Host())
    said = {m["id"]: m["result"] for m in out if "result" in m}
    assert said[4]["data"]["code"] == "host_decides"  # what the old hint sent them to
    for refused in (said[2], said[3]):
        assert refused["data"]["code"] == "untrusted", refused
        assert "context trust" not in refused["text"]
        assert "trust it in Pi" in refused["text"]
