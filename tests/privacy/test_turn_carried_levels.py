"""A model switch within a turn, a call naming no classification: a ``pin_supersede`` of
a local-only (or sensitive) pin by a local model, its new text in the call's ``content``,
went to a remote model as it was when the turn went on there (reproduced with the real
tool and ``outgoing_payload`` to ``google``: "14 Elm Street" sent for both levels). The
pure guard cannot look the item up; the tool, which resolves its level, names it in the
result (or refuses the call for it), and the guard reads it there by the call's ID (a
Gemini result by its order)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.privacy.test_turn_args_switch import POLICY, SHAPES
from waymarks.service.app import Waymarks
from waymarks.tool.confirmation import ConfirmationRequest
from waymarks.tool.egress import outgoing_payload
from waymarks.tool.persistence import ContextPersistence


class _Yes:
    def confirm(self, request: ConfirmationRequest) -> str:
        return "accepted"


def _superseded(app: Waymarks, home: Path, level: str) -> tuple[dict[str, Any], str]:
    """A local model's ``pin_supersede`` of a pin at ``level`` naming none: its
    arguments, and the real tool's result text."""
    pin = app.pin(f"Home is 12 Elm Street ({level})", classification=level)  # type: ignore[arg-type]
    tool = ContextPersistence(app, provider="ollama")
    listed = tool.call({"action": "pins_list"}, _Yes()).details["items"]
    [item] = [i for i in listed if i["id"] == pin.id]  # type: ignore[union-attr]
    args = {"action": "pin_supersede", "id": item["id"], "targetRevision": item["revision"],
            "content": "Home is 14 Elm Street"}
    return args, tool.call(args, _Yes()).text


@pytest.fixture
def local_app(make_app: Callable[..., Waymarks], home: Path) -> Waymarks:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n'
                                      'remoteDefaultAllowed = "normal"\n')
    app = make_app()
    app.session_say("move my address pin to number 14")
    return app


@pytest.mark.parametrize("level", ["local-only", "sensitive"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.__name__.strip("_"))
def test_the_call_does_not_reach_a_remote_model(local_app: Waymarks, home: Path, level: str,
                                                shape: Any) -> None:
    args, done = _superseded(local_app, home, level)
    sent = outgoing_payload(shape(args, done), "google", POLICY).payload
    assert sent is not None and "14 Elm" not in json.dumps(sent)
    assert "pin_supersede" in json.dumps(sent)  # the call is still there, its text omitted
    local = outgoing_payload(shape(args, done), "ollama", POLICY).payload
    assert "14 Elm" in json.dumps(local)  # the local model still sees its own call


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.__name__.strip("_"))
def test_a_normal_pin_s_call_goes_on_as_it_was(local_app: Waymarks, home: Path,
                                               shape: Any) -> None:
    args, done = _superseded(local_app, home, "normal")
    assert '"classification":"normal"' in done
    assert "14 Elm" in json.dumps(outgoing_payload(shape(args, done), "google", POLICY).payload)
