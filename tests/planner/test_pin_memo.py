"""Pins are planned into every request, so their level and rendering, and the whole set's
part of the plan, are memoized: the plan must be the one worked out afresh, for each pin
and each destination."""

from __future__ import annotations

from waymarks.core.egress import Egress
from waymarks.core.privacy import LEVELS
from waymarks.planner import select
from waymarks.planner.render import PinBlock
from waymarks.planner.select import PinInput, Plan, build_plan

EXACT = Egress("local", frozenset(LEVELS), redacts=False)
REMOTE = Egress("remote", frozenset({"normal", "internal"}), redacts=True)
KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2


def pins(content: str) -> list[PinInput]:
    return [PinInput(PinBlock(id=f"p{n}", scope="session", content=f"{content} {n}",
                              session_id="s", entry_id=f"e{n}"), created_at=n)
            for n in range(3)]


def fresh(request: str, inputs: list[PinInput], egress: Egress) -> Plan:
    select._rendered_pin.cache_clear()
    select._pin_level.cache_clear()
    select._pins_part.cache_clear()
    return build_plan(request, inputs, [], egress=egress)


def test_memoized_plans_equal_fresh_ones_per_pin_and_destination() -> None:
    secret = pins(f"Use the key {KEY} for deploys")
    local = build_plan("deploy", secret, [], egress=EXACT)
    remote = build_plan("deploy", secret, [], egress=REMOTE)
    assert local != remote  # the remote destination sees the key redacted
    assert KEY in str(local.messages) and KEY not in str(remote.messages)
    # asked again (from the memo), then worked out afresh: the same plans
    assert build_plan("deploy", secret, [], egress=REMOTE) == remote
    assert select._pins_part.cache_info().hits >= 1
    assert build_plan("deploy", secret[:2], [], egress=REMOTE) != remote  # another set
    assert select._rendered_pin.cache_info().hits >= 2  # its pins were rendered before
    assert fresh("deploy", secret, REMOTE) == remote
    assert fresh("deploy", secret, EXACT) == local
    # an edited pin is another pin: rendered anew
    edited = pins("Use the staging key from the vault")
    assert "vault" in str(build_plan("deploy", edited, [], egress=REMOTE).messages)
