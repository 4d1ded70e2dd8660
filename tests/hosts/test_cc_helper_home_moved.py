"""A home moved while its helper ran (``mv ~/wm ~/wm2``, ``WAYMARKS_HOME`` pointed at the
new place) took the helper's socket along: the next hook, run on the new home, found it
and the helper answered with its old home's path in mind. That was gone, so the prompt
was neither recorded nor given its pins (logged as ``home_gone`` in a ``logs`` folder
made again at the old path). A helper whose socket is no longer at its own path answers
nothing now: the hook does the work on its home, and starts a helper there."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path

from waymarks.hosts import cc_client, cc_helper
from waymarks.service.app import Waymarks


def _ask(home: Path, project: Path, sid: str, event: str, **body: str) -> str | None:
    raw = json.dumps({"session_id": sid, "cwd": str(project), "hook_event_name": event,
                      **body}).encode()
    return cc_client._ask(home, event, raw, str(project))


def test_a_helper_whose_home_was_moved_leaves_the_hook_to_its_process(
        tmp_path: Path, project: Path) -> None:
    old, new = tmp_path / "wm", tmp_path / "wm2"
    served = threading.Thread(target=cc_helper.serve, args=(old, 600.0), daemon=True)
    served.start()
    socket = Path(cc_client.socket_path(old))
    for _ in range(6000):
        if socket.exists() or not served.is_alive():
            break
        threading.Event().wait(0.05)
    sid = str(uuid.uuid4())
    try:
        assert _ask(old, project, sid, "SessionStart") == ""  # the helper bound it
        old.rename(new)
        assert Path(cc_client.socket_path(new)).exists()  # (it went along)
        assert _ask(new, project, sid, "UserPromptSubmit", prompt="ship it?") is None
    finally:
        served.join(300)
    assert not served.is_alive()  # it left
    assert not old.exists()  # nothing made again at the old path
    with Waymarks(new, cwd=str(project), session=sid) as app:  # the session is there
        assert app.current_session() is not None
