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


def test_a_helper_that_cannot_put_its_socket_in_place_says_why(home: Path) -> None:
    """A folder where the socket goes (or a ``claude-code`` folder this user may not
    write) ended every helper with a traceback on /dev/null: each prompt took the slow
    path and started another, and nothing anywhere said why. It is logged now, with the
    error's kind, and the helper leaves."""
    path = Path(cc_client.socket_path(home))
    path.mkdir(parents=True)  # a folder in the socket's place
    cc_helper.serve(home, 600.0)  # returns: no helper can serve here
    events = [json.loads(line) for line in (home / "logs" / "waymarks.jsonl").read_text()
              .splitlines()]
    assert {"event": "claude_code_helper_unavailable", "code": "IsADirectoryError"} in [
        {k: e.get(k) for k in ("event", "code")} for e in events]
    assert path.is_dir()  # left as it was
