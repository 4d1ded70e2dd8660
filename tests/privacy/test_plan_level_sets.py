"""A planning and privacy review: text under several levels at once (an ``internal`` span
inside a ``sensitive`` one, a span that runs across a docs file's headings) reached a
provider allowed ``normal`` and ``sensitive`` but not ``internal``, because one level,
their highest, stood for all of them (each test failed before its fix)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from waymarks.personal.docs import MAX_CHUNK_CHARS, chunk_markdown
from waymarks.service.app import Waymarks

GATEWAY = '[privacy.remoteProviders]\nprivate-gateway = ["normal", "sensitive"]\n'
FALCON = "The falcon merger closes Friday; announce nothing before."
ROADMAP = ("# Roadmap\n\n[ds4:internal]\n\n## Falcon merger\n\n" + FALCON + "\n\n## Owl\n\n"
           "Owl ships in May.\n[/ds4:internal]\n\n## Billing\n\n"
           "[ds4:sensitive]Billing runs on Stripe.[/ds4:sensitive]\n")


def _setup(tmp_path: Path, config: str = GATEWAY) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    (home / "config.toml").write_text(config)
    assert _cli(home, project, "trust", str(project))[0] == 0
    (project / "docs" / "engineering").mkdir(parents=True)
    return home, project


def _cli(home: Path, project: Path, *args: str) -> tuple[int, str]:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout + done.stderr


def _plan(home: Path, project: Path, prompt: str, provider: str = "private-gateway") -> str:
    code, plan = _cli(home, project, "plan", "--provider", provider, "--prompt", prompt)
    assert code == 0, plan
    return plan


def test_a_docs_section_inside_an_internal_span_across_headings_stays_internal(
        tmp_path: Path) -> None:
    """The file's spans were folded into one level (its highest, ``sensitive``): the
    section inside the ``internal`` span went to a provider that may not receive
    ``internal``. The ``sensitive``-only section still goes."""
    home, project = _setup(tmp_path)
    (project / "docs" / "engineering" / "roadmap.md").write_text(ROADMAP)
    assert "falcon merger closes" not in _plan(home, project, "falcon merger")
    code, manifest = _cli(home, project, "manifest")
    assert code == 0 and "excluded snippet docs/engineering/roadmap.md#Falcon merger" \
        in manifest and "classification internal not allowed" in manifest
    assert "Owl ships" not in _plan(home, project, "owl ships may")
    assert "Billing runs on Stripe." in _plan(home, project, "billing stripe")
    # a provider that may receive internal text gets the section
    (home / "config.toml").write_text(
        GATEWAY + 'internal-gateway = ["normal", "internal", "sensitive"]\n')
    assert "falcon merger closes" in _plan(home, project, "falcon merger", "internal-gateway")


def test_an_internal_span_under_a_sensitive_default_stays_internal(tmp_path: Path) -> None:
    home, project = _setup(tmp_path, '[privacy]\ndefaultClassification = "sensitive"\n'
                           + GATEWAY)
    (project / "docs" / "engineering" / "roadmap.md").write_text(
        "# Roadmap\n\n[ds4:internal]\n\n## Falcon merger\n\n" + FALCON + "\n\n## Later\n\n"
        "Later.\n[/ds4:internal]\n\n## Owl\n\nOwl ships in May.\n")
    assert "falcon merger closes" not in _plan(home, project, "falcon merger")
    assert "Owl ships in May." in _plan(home, project, "owl ships may")


def test_each_part_of_a_long_section_has_the_levels_of_the_spans_around_it(
        tmp_path: Path) -> None:
    """A long section is cut at paragraphs: a part with no tag of its own, inside an
    ``internal`` span, was ``sensitive`` (the file's highest) and went out whole."""
    filler = "The deploy pipeline builds, tests and ships each service. " * (
        MAX_CHUNK_CHARS // 60)
    text = ("# Deploy\n\n[ds4:internal]\n\n" + "\n\n".join([filler, filler, filler])
            + "\n[/ds4:internal]\n\n# Keys\n\n[ds4:sensitive]Rotated weekly.[/ds4:sensitive]\n")
    chunks = chunk_markdown("docs/engineering/deploy.md", text)
    assert len(chunks) == 4
    assert [sorted(c.levels) for c in chunks] == [["internal", "normal", "sensitive"]] * 3 + [
        ["normal", "sensitive"]]
    assert [c.level for c in chunks] == ["sensitive"] * 4
    home, project = _setup(tmp_path)
    (project / "docs" / "engineering" / "deploy.md").write_text(text)
    plan = _plan(home, project, "deploy pipeline builds service")
    assert "ships each service" not in plan
    assert "Rotated weekly." in _plan(home, project, "keys rotated weekly")


@pytest.mark.parametrize("base", ["normal", "sensitive"])
def test_a_heading_inside_a_span_counts_for_its_section(base: str) -> None:
    """The heading names the passage (its source): a local-only heading keeps the
    passage local-only, and a span opened before a heading covers the section after it."""
    chunks = chunk_markdown("docs/engineering/x.md", "# [ds4:local-only]Merger[/ds4:local-only]"
                            "\n\nText.\n\n# Plain\n\nMore text.\n", level=base)
    assert chunks[0].level == "local-only"
    assert base in chunks[1].levels and "local-only" in chunks[1].levels  # the file's highest


def test_the_recall_memory_tool_leaves_out_a_passage_inside_an_internal_span(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    """The bridge tool admitted a passage by its one level, as the plan did."""
    from waymarks.core.egress import Egress
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.personal.bridge_tools import recall_memory

    app = make_app()
    app.trust(str(project))
    (project / "docs" / "engineering").mkdir(parents=True)
    (project / "docs" / "engineering" / "roadmap.md").write_text(ROADMAP)
    policy = ProviderPolicy.from_config({"remoteProviders": {
        "private-gateway": ["normal", "sensitive"], "wide": ["normal", "internal", "sensitive"]}})
    answer = recall_memory(app, "falcon merger", Egress.to(policy, "private-gateway"))
    assert answer["docs"] == [] and answer["withheld"] == 1
    [doc] = recall_memory(app, "falcon merger", Egress.to(policy, "wide"))["docs"]
    assert doc["text"] == FALCON


def test_a_legacy_fact_in_an_internal_span_inside_a_sensitive_one_stays_internal(
        tmp_path: Path) -> None:
    """A legacy ``memory.md`` converted each fact to an entry classified by the highest
    level of its spans only: the falcon fact became a plain ``sensitive`` entry and went
    to a provider that may not receive ``internal``."""
    from waymarks.personal.legacy import leveled_facts

    legacy = ("[ds4:sensitive]\n[ds4:internal]\n- 2026-01-02 — The falcon merger closes "
              "Friday.\n[/ds4:internal]\n- 2026-01-03 — My bank is Chase.\n[/ds4:sensitive]\n"
              "- I use vim\n")
    facts = leveled_facts(legacy.splitlines())
    assert [(f.text, f.level) for f in facts] == [
        ("[ds4:internal]2026-01-02 — The falcon merger closes Friday.[/ds4:internal]",
         "sensitive"), ("2026-01-03 — My bank is Chase.", "sensitive"), ("I use vim", None)]
    home, project = _setup(tmp_path)
    (home / "memory.md").write_text(legacy, encoding="utf-8")
    assert _cli(home, project, "personal", "list")[0] == 0  # converts it
    for prompt in ("falcon merger", "hello there"):
        plan = _plan(home, project, prompt)
        assert "closes Friday" not in plan and "My bank is Chase." in plan
    (home / "config.toml").write_text(
        GATEWAY + 'internal-gateway = ["normal", "internal", "sensitive"]\n')
    assert "The falcon merger closes Friday." in _plan(home, project, "falcon merger",
                                                         "internal-gateway")
