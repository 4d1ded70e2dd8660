"""A find is no oracle for withheld text (a review): ``pins_find`` / ``memory_find`` and
``learned_memory``'s search matched the query against every item, the ones the model may
not receive included, and answered with the match's ID and level (or listed it as
withheld): a model could test, word by word, what a local-only pin says. Only items the
destination may receive are matched now, so a right guess and a wrong one answer alike."""

from __future__ import annotations

import json
from pathlib import Path

from tests.evolution.test_learning_cli import AT, _learn
from waymarks.service import evolution_inspect
from waymarks.service.app import Waymarks
from waymarks.service.planning import egress_for
from waymarks.tool.persistence import ContextPersistence


def test_a_find_answers_a_right_guess_at_withheld_text_as_it_answers_a_wrong_one(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.pin("Never mention the Zeta Corp acquisition to anyone",
                classification="local-only")
        app.pin("Run the Zeta linters before pushing")  # a pin the model may see
        app.remember("The Zeta Corp deal closes in March", classification="local-only")
        tool = ContextPersistence(app, provider="anthropic")

        def found(action: str, query: str) -> list[str]:
            result = tool.call({"action": action, "query": query}, None)
            return [item["id"] for item in result.details.get("items", [])]

        for action in ("pins_find", "memory_find"):
            assert found(action, "acquisition deal March") == found(action, "quux") == []
        [visible] = found("pins_find", "Zeta linters")
        assert found("pins_find", "Zeta") == [visible]  # the local-only pin is not there
        local = ContextPersistence(app, provider="ollama")  # not listed as local
        assert local.call({"action": "pins_find", "query": "acquisition"}, None) \
            .details["items"] == []


def test_a_learned_memory_search_lists_no_withheld_claim_for_its_words(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _learn(home, str(project), "Remember: [ds4:internal]the Zeta Corp deal closes in "
           "March[/ds4:internal]", {"kind": "fact",
                                      "content": "The Zeta Corp deal closes in March",
                                      "searchTerms": ["zeta deal"]})
    with Waymarks(home, cwd=str(project)) as app:
        egress = egress_for(app, "anthropic")
    right = evolution_inspect.search(home, "Zeta deal", now=AT, egress=egress)
    wrong = evolution_inspect.search(home, "Omega deal", now=AT, egress=egress)
    assert right == {**wrong, "query": "Zeta deal"}, json.dumps(right)
    assert right["claims"] == [] and right["withheld"] == []
    mine = evolution_inspect.search(home, "Zeta deal", now=AT)  # the person's own listing
    assert [c["content"] for c in mine["claims"]] == ["The Zeta Corp deal closes in March"]


def test_a_span_withheld_under_an_exact_allow_list_is_not_matched_either(
        tmp_path: Path) -> None:
    """A re-review: admitted as a whole (``sensitive``, which ``pg`` may receive), an item
    whose ``internal`` span ``pg`` may not receive still matched that span's words."""
    with _exact_allow_list(tmp_path) as app:
        app.remember("[ds4:internal]Falcon merger target[/ds4:internal] warehouse is "
                     "[ds4:sensitive]snowflake[/ds4:sensitive]")
        tool = ContextPersistence(app, provider="pg")
        for query in ("falcon merger", "zebra giraffe"):
            assert tool.call({"action": "memory_find", "query": query}, None) \
                .details["items"] == [], query


def test_an_untrusted_projects_items_are_not_matched(tmp_path: Path) -> None:
    """A re-review: an untrusted project's pins showed no preview, but were still listed
    for the words they hold."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.pin("The falcon merger closes in March", scope="project")
        tool = ContextPersistence(app, provider="anthropic")
        assert len(tool.call({"action": "pins_find", "query": "falcon merger"}, None)
                   .details["items"]) == 1
        app.untrust(str(project))
    with Waymarks(home, cwd=str(project)) as app:
        tool = ContextPersistence(app, provider="anthropic")
        assert tool.call({"action": "pins_find", "query": "falcon merger"}, None) \
            .details["items"] == []


def test_an_item_whose_spans_the_destination_may_all_receive_is_found(tmp_path: Path) -> None:
    """A re-review: every marked item had to pass every level up to its highest, so under
    `["normal", "sensitive"]` one with only a `sensitive` span was never found, though
    the plan sends it whole."""
    with _exact_allow_list(tmp_path) as app:
        app.remember("The warehouse is [ds4:sensitive]snowflake[/ds4:sensitive] in region eu")
        tool = ContextPersistence(app, provider="pg")
        found = tool.call({"action": "memory_find", "query": "warehouse region"}, None)
        assert len(found.details["items"]) == 1 and "snowflake" in found.text


def _exact_allow_list(tmp_path: Path) -> Waymarks:
    """A home whose provider ``pg`` may receive ``normal`` and ``sensitive`` only."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text('[privacy.remoteProviders]\n'
                                      'pg = ["normal", "sensitive"]\n')
    return Waymarks(home, cwd=str(project))
