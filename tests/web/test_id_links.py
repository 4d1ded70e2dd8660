"""An item's ID is one path segment of every link that names it: an ID holding ``/``,
``?``, ``#``, ``%`` or a space (a hand-written or foreign ledger line may carry any text)
still opens its own page, not another one or none."""

from __future__ import annotations

import html
import re
from pathlib import Path

from tests.web.conftest import PrefixedIds, log_in
from waymarks.service.app import Waymarks
from waymarks.web.app import build_app, segment
from waymarks.web.security import Gate

ODD = "a?b#c/../d e-"


def test_a_link_to_an_item_with_an_odd_id_opens_that_item(home: Path, project: Path) -> None:
    from starlette.testclient import TestClient

    gate = Gate(hosts=frozenset({"testserver"}))
    with Waymarks(home, cwd=str(project), ids=PrefixedIds(ODD)) as app:
        written = app.remember("The odd deploy host is kestrel-nine.")
        assert written.id.startswith(ODD)
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        overview = client.get("/").text
        links = [html.unescape(h) for h in re.findall(r'class="item-link" href="([^"]+)"',
                                                       overview)]
        assert len(links) == 1 and "?" not in links[0].split("/item/memory/")[1]
        page = client.get(links[0].removeprefix(gate.prefix))
        assert page.status_code == 200, page.text
        assert "kestrel-nine" in page.text and html.escape(written.id) in page.text


def test_an_id_holding_a_percent_sign_is_encoded_once() -> None:
    """The server decodes a request's path once (Starlette's test client twice, so the
    page test above leaves ``%`` out): ``%2F`` inside an ID stays ``%2F``."""
    from urllib.parse import unquote

    for odd in ("d%2Fe", "100%", "a/b?c#d e", "ünï"):
        assert "/" not in segment(odd) and unquote(segment(odd)) == odd


def test_a_session_header_whose_cwd_no_path_can_be_lists_and_does_not_break(
        home: Path) -> None:
    """A re-read: listing projects by their real path raised on a foreign header whose
    cwd holds a NUL, and the inspector's overview answered 500; then (a re-read of that)
    it was listed, and choosing it answered 500, and every CLI command of a project whose
    folder held such a file ended in a traceback. No path holds a NUL: no header."""
    import json
    import uuid

    from waymarks.service.sessions_api import session_projects

    folder = home / "sessions" / "--weird--"
    folder.mkdir(parents=True)
    sid = str(uuid.uuid4())
    (folder / f"2026-01-01T00-00-00-000Z_{sid}.jsonl").write_text(json.dumps(
        {"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T00:00:00.000Z",
         "cwd": "/tmp/x\u0000y"}) + "\n")
    assert session_projects(home) == []
