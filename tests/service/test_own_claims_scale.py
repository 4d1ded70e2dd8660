"""The person's own claims a learned claim is weighed against are looked up by its subject
and words, not read whole: a plan with an eligible learned claim read and signed every
claim in effect (0.5 s at 10k). Real session file, real rebuild, real SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from waymarks.core.text import normalize
from waymarks.ledger.discovery import session_dir, session_file_name
from waymarks.service.app import Waymarks
from waymarks.service.own_claims import OwnClaims, OwnSignatures

CLAIMS = 300
PORT = "The billing database port is 5432."


def _ledger(home: Path, cwd: Path) -> Path:
    """A session of ``cwd`` holding ``CLAIMS`` project claims of other subjects and
    ``PORT``, as project claims of the trusted project."""
    sid = "5e55c0de-0000-4000-8000-000000000001"
    path = session_dir(home, str(cwd)) / session_file_name("2026-01-01T00:00:00.000Z", sid)
    path.parent.mkdir(parents=True)
    ms = 1_767_225_600_000
    lines = [{"type": "session", "version": 3, "id": sid,
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)}]
    texts = [f"The service-{n} queue keeps jobs for {n + 2} days." for n in range(CLAIMS)]
    for n, text in enumerate([*texts[:CLAIMS // 2], PORT, *texts[CLAIMS // 2:]]):
        ms += 1
        item = {"id": f"00000000-0000-4000-8000-{n:012d}", "scope": "project",
                "projectPath": str(cwd), "claim": text, "createdAt": ms,
                "sourceEntryIds": []}
        lines.append({"type": "custom", "customType": "ds4-context-memory-v1",
                      "id": f"{n:08x}", "parentId": f"{n - 1:08x}" if n else None,
                      "timestamp": f"2026-01-01T00:00:{n // 1000:02d}.{n % 1000:03d}Z",
                      "data": {"schemaVersion": 1, "mutationId": f"m{n}", "createdAt": ms,
                               "operation": "add", "item": item}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_own_claims_read_only_those_about_the_text(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(home, project.resolve())
    app = Waymarks(home, cwd=str(project), session=str(ledger))
    app.trust(str(project))
    app.rebuild_index()  # the claims' subject rows are caught up by the first question
    port = next(v.id for v in app.items("memory") if v.text == PORT)
    read: list[int] = []
    items = Waymarks.items

    def counting(self: Waymarks, kind: str, **kwargs: object) -> object:
        found = items(self, kind, **kwargs)  # type: ignore[arg-type]
        if kind == "memory":
            read.append(len(found))
        return found

    monkeypatch.setattr(Waymarks, "items", counting)
    mine = OwnClaims(app)
    assert mine.contradicted("The billing database port is 8080.") == port
    assert mine.held("The billing database port is 5432") == port  # the same sentence
    assert mine.contradicted("The weather is fine today.") is None
    asked = ["The service-7 queue keeps jobs for 30 days.", "The billing port is 8080.",
             "The billing database port is not 5432.", "Jobs are kept for 9 days.",
             "The service-150 queue keeps jobs for 152 days."]
    answers = [(mine.contradicted(text), mine.held(text)) for text in asked]
    assert read and max(read) < 10, read  # read every claim in effect: 301 a question
    monkeypatch.setattr(Waymarks, "items", items)
    # the same answers as the signatures of every claim in effect give
    views = [v for v in app.items("memory") if v.applies]
    every, said = OwnSignatures(views), {normalize(v.text): v.id for v in views}
    assert answers == [(every.contradicted(text),
                        said.get(normalize(text)) or every.contradicted(text))
                       for text in asked]
    assert answers[0][0] is not None and answers[4][1] is not None
    app.close()
