"""A command's flag inside backticks names an option of that command, not the work the
claim is about: "how do I deploy ingest?" recalled "Build ingest with `cargo build
--release`." (the held-out project of benchmarks/everyday_heldout.py), its `--release`
read as the deploy concept. A flag's word that is a concept of work done is now that word
alone; a flag naming an attribute (`--port 8001`) still says the attribute."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks


def test_a_flag_in_code_is_no_concept_of_work() -> None:
    features = analyze("Build ingest with `cargo build --release`.").features
    assert "c:deploy" not in features and "w:release" in features, features
    assert "c:build" in features and "w:ingest" in features, features


def test_the_word_outside_code_and_a_dash_inside_a_word_still_count() -> None:
    assert "c:deploy" in analyze("Release ingest with `make ship`.").features
    assert "c:deploy" in analyze("Run `release-it` to publish.").features


@pytest.mark.parametrize(("text", "attribute"), [
    ("Run the API with `uvicorn app:main --port 8001`.", "c:port"),
    ("Call it with `curl --max-time 5 --config api.rc`.", "c:config"),
])
def test_a_flag_naming_an_attribute_still_says_it(text: str, attribute: str) -> None:
    assert attribute in analyze(text).features, analyze(text).features


def test_deploying_ingest_does_not_recall_its_release_build(app: Waymarks) -> None:
    ids = {app.remember(text).id: text for text in (  # type: ignore[union-attr]
        "Build ingest with `cargo build --release`.",
        "Ingest deploys through Fly.io with `fly deploy`.",
        "Billing releases are tagged on main.")}
    assert [ids[i] for i in app.recall("how do I deploy ingest?").selected] == [
        "Ingest deploys through Fly.io with `fly deploy`."]
    assert [ids[i] for i in app.recall("how do I build ingest?").selected] == [
        "Build ingest with `cargo build --release`."]
