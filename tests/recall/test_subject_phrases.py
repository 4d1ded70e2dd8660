"""Issue 20 item 3: a rare multi-word subject shared by prompt and claim names the topic.

Through the service on real SQLite, and once through the real ``waymarks`` entry point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, Stats, score_all
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

RENDERER = "The invoice renderer caches templates for 90 seconds."
OTHERS = (
    "The billing export runs nightly at 02:00 UTC.",
    "Template changes in the email service need a worker restart.",
    "The PDF renderer uses a headless browser pool of four.",
    "Invoices are numbered per customer and year.",
    "Invoice totals are rounded per line, not per invoice.",
    "Template linting runs in CI before merge.",
    "Slow queries are logged after 500 ms.",
    "Pick the smallest runner for lint jobs.",
)
TASK = "Why is the invoice renderer slow to pick up template changes?"


def remember(app: Waymarks, text: str) -> str:
    outcome = app.remember(text)
    assert isinstance(outcome, Committed), outcome
    return outcome.id


def test_the_issue_example_selects_the_renderer_claim(app: Waymarks) -> None:
    renderer = remember(app, RENDERER)
    for text in OTHERS:
        remember(app, text)
    result = app.recall(TASK, inherit=False)
    assert result.selected[:1] == [renderer]
    chosen = next(s for s in result.scored if s.candidate.id == renderer)
    assert chosen.named and chosen.coverage < 0.45  # named by the phrase, not by coverage


def test_the_words_apart_do_not_name_the_topic(app: Waymarks) -> None:
    """Both words in the record but not adjacent: no phrase, the coverage gate decides."""
    apart = remember(app, "The invoice totals go to the renderer queue for 90 seconds.")
    for text in OTHERS:
        remember(app, text)
    result = app.recall(TASK, inherit=False)
    assert apart not in result.selected


def _candidate(ident: str, words: tuple[str, ...]) -> Candidate:
    return Candidate(id=ident, kind="memory", status="active", origin="", created_at=0,
                     text=" ".join(words), body=frozenset(words), sequence=words,
                     body_count=len(words))


def test_a_common_phrase_does_not_name_the_topic() -> None:
    """The pair's rarer word must be rare in the store: a phrase every record has is not a
    subject, so the coverage gate still rejects the record."""
    plan = direct_plan(TASK)
    words = ("w:invoic", "w:render", "w:cach", "w:templat")
    records = [_candidate(f"r{i}", words) for i in range(200)]
    df = {**{f: 20 for f in plan.focus}, **{f: 200 for f in words}}
    scored = score_all(plan, records, Stats(200, df))
    assert not any(s.named for s in scored)
    rare = score_all(plan, records[:1], Stats(200, {**df, "w:invoic": 2}))
    assert rare[0].named


def test_words_the_store_never_saw_keep_the_phrase_from_naming() -> None:
    """A prompt about something this store does not know (a name from elsewhere) is not
    named by two of its words that happen to be adjacent here."""
    plan = direct_plan(TASK)
    words = ("w:invoic", "w:render", "w:cach", "w:templat")
    known = {**{f: 20 for f in plan.focus}, **{f: 200 for f in words}, "w:invoic": 2}
    record = [_candidate("r0", words)]
    assert score_all(plan, record, Stats(200, known))[0].named
    del known["w:slow"]
    assert not score_all(plan, record, Stats(200, known))[0].named


@pytest.mark.slow
def test_cli_recall_reaches_the_claim_by_its_subject(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "WAYMARKS_HOME": str(home)}

    def run(*args: str) -> dict[str, object]:
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", *args],
                              cwd=project, env=env, capture_output=True, text=True,
                              check=False, timeout=120)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    renderer = run("memory", "add", "--", RENDERER)["id"]
    for text in OTHERS:
        run("memory", "add", "--", text)
    out = run("recall", TASK)
    assert out["selected"] == [renderer]



@pytest.mark.parametrize("prompt", ["The church invoice renderer produces PDFs on Windows",
                                    "Our church's invoice renderer produces PDFs slowly"])
def test_a_phrase_beside_words_never_seen_does_not_name_a_foreign_prompts_topic(
        app: Waymarks, prompt: str) -> None:
    """A prompt from elsewhere sharing a rare phrase and a third word with a claim
    ("invoice renderer", "PDFs") was taken to name its topic, and the claim was injected
    (coverage 0.44): beside words the store never saw, a phrase names no topic (a third
    word, rare or everyday, cannot tell such a prompt from one of this store's)."""
    remember(app, "The invoice renderer turns billing records into PDFs with WeasyPrint.")
    for i, name in enumerate(("orders", "users", "search", "audit", "mail") * 2):
        remember(app, f"The {name} service number {i} listens on port {7000 + i}.")
    assert app.recall(prompt, inherit=False).selected == []
