"""The pages of an action (the question, what was done), as a review of the inspector
found them; each test failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.web.conftest import log_in
from waymarks.service.trust import TrustStore


def test_an_actions_url_is_kept_out_of_history_and_a_get_of_it_goes_to_the_overview(
        web: Any, home: Path, tmp_path: Path) -> None:
    """htmx's boost pushed ``/confirm`` and ``/act`` into the browser's history, and the
    routes took POST only: a reload or Back after any action was "Method Not Allowed"."""
    client, gate = web
    log_in(client, gate)
    form = {"csrf": gate.csrf, "action": "pin", "text": "Answer in English."}
    headers = {"HX-Request": "true", "HX-Boosted": "true"}
    asked = client.post("/confirm", data=form, headers=headers)
    done = client.post("/act", data={**form, "confirmed": "yes"}, headers=headers)
    refused = client.post("/act", data={**form, "action": "nothing"}, headers=headers)
    for answer in (asked, done, refused):
        assert answer.headers["HX-Push-Url"] == "false", answer.status_code
    assert "Pinned pin" in done.text
    other = tmp_path / "other"
    other.mkdir()
    TrustStore(home).trust(str(other))
    for path in ("/confirm", "/act"):
        back = client.get(path)
        assert back.status_code == 303 and back.headers["location"] == gate.prefix + "/"
        there = client.get(path, params={"project": str(other), "x": "y"})
        assert there.status_code == 303
        landed = client.get(there.headers["location"].removeprefix(gate.prefix))
        assert landed.status_code == 200 and str(other) in landed.text
        assert "x=y" not in there.headers["location"]
