"""Text cut to a bound before the egress redacts it: a credential standing across the cut
left a head too short for its rule (``ghp_Ab3dEf6h…`` is not a token under 20 characters),
which then reached a remote model. Each cut is reproduced through the plan a remote
provider is sent: an engineering-docs paragraph past its chunk bound, a hand-edited
personal entry whose name or description is longer than the index keeps, and a legacy
``memory.md`` fact imported as an entry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.personal.docs import MAX_CHUNK_CHARS
from waymarks.personal.entry import MAX_DESCRIPTION, MAX_NAME
from waymarks.personal.setup import personal_store, plan_with_memory
from waymarks.service.app import Waymarks

GHP = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"


def plan_text(home: Path, project: Path, prompt: str) -> str:
    with Waymarks(home, cwd=str(project)) as app:
        plan = plan_with_memory(app, prompt, provider="openai")
    return "\n".join(m.content for m in plan.messages if m.kind != "request")


def padded(words: str, end: int) -> str:
    """``words`` then filler, ``end`` characters in all."""
    filler = " ".join(["lorem"] * end)
    return (words + " " + filler)[:end - 1] + " "


def assert_no_head(text: str) -> None:
    assert GHP[:7] not in text, "a head of the token reached the model"


def test_a_docs_paragraph_cut_at_its_bound_leaves_no_token_head(home: Path,
                                                                project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    bound = MAX_CHUNK_CHARS * 2
    paragraph = padded("Quasar release checklist for the registry:", bound - 10) + GHP + " end"
    (docs / "release.md").write_text(f"# Quasar release\n\n{paragraph}\n", encoding="utf-8")
    text = plan_text(home, project, "what is the quasar release checklist for the registry?")
    assert "Quasar release checklist" in text  # the snippet was sent
    assert_no_head(text)


@pytest.mark.parametrize("field", ["name", "description"])
def test_a_hand_edited_entry_cut_for_the_index_leaves_no_token_head(
        home: Path, project: Path, field: str) -> None:
    bound = MAX_NAME if field == "name" else MAX_DESCRIPTION
    long = padded("Nebula deploy notes", bound - 8) + GHP
    name = long if field == "name" else "Nebula deploy notes"
    description = long if field == "description" else "How nebula deploys run"
    memory = home / "memory"
    memory.mkdir(parents=True)
    (memory / "nebula-deploy.md").write_text(
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: user\n---\n"
        "Nebula deploys run from the release branch.\n", encoding="utf-8")
    text = plan_text(home, project, "how do nebula deploys run?")
    assert "Nebula deploy" in text and "nebula-deploy" in text  # the index line was sent
    assert_no_head(text)


def test_an_imported_fact_cut_for_its_name_leaves_no_token_head(home: Path,
                                                                project: Path) -> None:
    fact = padded("Pulsar registry login", MAX_NAME - 10) + GHP + " rotates monthly"
    home.mkdir(parents=True)
    (home / "memory.md").write_text(f"# Memory\n\n- 2024-05-01 — {fact}\n", encoding="utf-8")
    with Waymarks(home, cwd=str(project)) as app:
        store = personal_store(app)
        assert [e.name for e in store.entries()]  # the legacy line was migrated
    text = plan_text(home, project, "how does the pulsar registry login work?")
    assert "Pulsar registry login" in text
    assert_no_head(text)


def test_a_long_note_cut_for_promotion_leaves_no_token_head(home: Path, project: Path) -> None:
    from waymarks.personal.notes import MAX_NOTE_CHARS, NOTE_ENTRY, promote_prompt

    text = padded("Comet lesson: log in to the registry", MAX_NOTE_CHARS - 10) + GHP
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        # as another host's ledger (or a hand edit) may hold it: past the note bound
        app.append_record(NOTE_ENTRY, {"schemaVersion": 1, "event": "add", "note": {
            "type": "lesson", "text": text, "createdAt": 1}})
        prompt, lessons = promote_prompt(app, "openai")
    assert prompt is not None and "Comet lesson" in prompt and len(lessons) == 1
    assert_no_head(prompt)


def test_a_learning_request_redacts_its_source_before_cutting_it() -> None:
    """A source past the request's bound (an evolution ledger written by an older version
    or by hand: the fold does not bound it) was cut, then redacted."""
    from waymarks.core.evolution.fold import SourceRow
    from waymarks.core.evolution.request import MAX_SOURCE_BYTES, build_request

    text = padded("we use the registry token", MAX_SOURCE_BYTES - 10) + GHP + " daily"
    source = SourceRow("s1", "/w/a", "statement", "user_statement", text, "normal",
                       "2026-12-01T11:00:00.000Z", "sess", 1)
    request = build_request(source, [])
    assert request is not None and "we use the registry token" in request.prompt
    assert_no_head(request.prompt)
