"""A question with two asks joined ("which deploy host and key?"): a claim that names the
subject and answers one of them is an answer (it recalled nothing: "key" was taken for
the subject of a short name + attribute question, and "host and port" needed both)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from waymarks.cli.main import main
from waymarks.recall.plan import direct_plan
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def remember(app: Waymarks, text: str) -> str:
    outcome = app.remember(text)
    assert isinstance(outcome, Committed), outcome
    return outcome.id


@pytest.fixture
def store(app: Waymarks) -> dict[str, str]:
    texts = {"host": "The deploy host is web1.", "port": "The database port is 5433.",
             "logs": "Logs are kept for 7 days."}
    return {name: remember(app, text) for name, text in texts.items()}


@pytest.mark.parametrize("query", [
    "which deploy host and key?", "deploy host or key?", "the deploy host, and the key?",
    "which deploy host and which key?", "what is the deploy host and port?",
    "deploy host & user?"])
def test_one_ask_answered_is_recalled(app: Waymarks, store: dict[str, str],
                                      query: str) -> None:
    assert app.recall(query, inherit=False).selected == [store["host"]]


def test_each_ask_answered_by_its_own_claim(app: Waymarks, store: dict[str, str]) -> None:
    key = remember(app, "The deploy key lives in the vault at secret/deploy.")
    selected = app.recall("which deploy host and key?", inherit=False).selected
    assert sorted(selected) == sorted([store["host"], key])


def test_the_subject_is_still_needed(app: Waymarks) -> None:
    """Joined asks loosen which attribute a claim says, never the subject it names."""
    remember(app, "PostgreSQL auth uses scram-sha-256 passwords.")
    remember(app, "The SQLite timeout is 5 seconds.")
    assert app.recall("SQLite auth and password?", inherit=False).selected == []
    assert app.recall("SQLite auth?", inherit=False).selected == []


def test_words_joined_without_an_attribute_are_subjects() -> None:
    assert direct_plan("which deploy host and key?").asks == frozenset({"w:host", "w:key"})
    assert direct_plan("redis and postgres?").asks == frozenset()
    assert direct_plan("which deploy host?").asks == frozenset()


def test_cli_recall_finds_the_deploy_host(home: Path, project: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["memory", "add", "--", "The deploy host is web1."]) == 0
    capsys.readouterr()
    assert main(["--json", "recall", "which deploy host and key?"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [row["excerpt"] for row in out["rows"]] == ["The deploy host is web1."]


def test_subjects_joined_are_each_a_subject(app: Waymarks, store: dict[str, str]) -> None:
    """"redis and deploy host?" asks the host of two subjects: "redis" was taken for the one
    subject of a short question, and the deploy host refused ("does not name redis")."""
    redis = remember(app, "The Redis host is cache1.")
    remember(app, "The Redis port is 6380.")
    selected = app.recall("redis and deploy host?", inherit=False).selected
    assert sorted(selected) == sorted([store["host"], redis])
    assert direct_plan("redis and deploy host?").asks == frozenset()


def test_a_long_prompt_is_not_searched_for_joined_words() -> None:
    """Only a short question reads them: a 65 KB prompt of "and"s doubled its plan's time."""
    prompt = "the deploy host and key, the port & user or name and " * 1200
    assert len(direct_plan(prompt).focus) > 4
    assert direct_plan(prompt).asks == direct_plan(prompt).co_subjects == frozenset()


def test_chinese_joined_asks(app: Waymarks) -> None:
    """"部署主机和密钥？" ("the deploy host and key?") recalled nothing beside "部署主机是
    web1。": 密钥 (key) was demanded of the claim as a second attribute."""
    host = remember(app, "部署主机是 web1。")
    remember(app, "数据库端口是 5433。")
    for query in ("部署主机和密钥？", "部署主机、密钥？"):
        assert app.recall(query, inherit=False).selected == [host], query
    assert direct_plan("和谐的部署主机？").asks == frozenset()
