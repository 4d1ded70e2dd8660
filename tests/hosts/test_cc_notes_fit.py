"""The notes a prompt's hook puts before the context it adds (a feedback receipt, recall's
note on memories not indexed yet, learned memory's note) each name a command for the
hook's home, so with a long home path they outgrew the 500 characters the plan leaves
them: past Claude Code's 10,000 characters the whole text goes to a file and the model
sees a 2 KB preview, most pins lost. The pins always go whole; the notes that do not fit
are left out of the model's context, said once (the person is shown them all)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.evolution.test_slice import _learn
from tests.hosts.test_cc_helper_stalled import _payload
from tests.hosts.test_cc_new_database_fill import _prompt
from waymarks.core.evolution.model import claim_id
from waymarks.hosts import claude_code
from waymarks.service import evolution_recall, projection_fill
from waymarks.service.app import Waymarks

PIN = ("Rule {}: always run the integration suite against staging replica {} before "
       "tagging a release of the payments service")


def test_long_notes_never_push_the_pins_past_what_claude_code_keeps(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    home = tmp_path.joinpath(*["d" * 60] * 6, "home")  # a home path of ~450 characters
    sid = str(uuid.uuid4())
    started = json.dumps(_payload(sid, project, "SessionStart")).encode()
    assert claude_code.main(["SessionStart"], home, raw=started) == 0
    pins = [PIN.format(n, n) + (" now" * 25 if n == 0 else "") for n in range(20)]
    with Waymarks(home, cwd=str(project), session=sid) as app:
        for pin in pins:
            app.pin(pin)
        app.remember("The staging database listens on port 5433")
    with Waymarks(home, cwd=str(project), session=sid) as app, app.projection.transaction():
        app.projection.refold()  # recall's note: memories not indexed yet, no process
    monkeypatch.setattr(projection_fill, "HURRIED_CATCH_UP_ITEMS", 0)
    monkeypatch.setattr(projection_fill, "start_worker", lambda app: "starting Python failed")
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    _learn(home, ["The cache service uses port 3001"])
    monkeypatch.setattr(evolution_recall, "_CORPORA", {})
    monkeypatch.setattr(evolution_recall, "HOOK_FOLD_BYTES", -1)  # learned memory's note
    cid = claim_id("/w/a", "fact", "The cache service uses port 3001")
    said = json.loads(_prompt(home, project, sid, capsysbinary, f"memory {cid} is useful."))
    notes = said["systemMessage"].split("\n")
    assert [n[:40] for n in notes] == [
        "Waymarks: recorded 'useful' on learned c", "Waymarks recalled no memory for this pro",
        "Waymarks: learned memory left out of thi"], notes  # the person hears them all
    context = said["hookSpecificOutput"]["additionalContext"]
    assert all(pin in context for pin in pins)
    added = context.split("\n\n", 1)[1]  # (the pins and the rest of the plan)
    assert len(said["systemMessage"]) + len(added) > claude_code.CONTEXT_CHARS  # (the case)
    assert len(context) <= claude_code.CONTEXT_CHARS
    assert context.startswith(notes[0] + "\n")  # the first note, whole
    assert context.count("did not fit") == 1, context[:3000]  # said once
