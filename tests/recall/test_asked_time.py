"""A question asking when ranks a claim that says a time first (issue 20, "when did ..."
as a generic asking phrase): "when" is a stop word, so "when did the search index move
to Postgres?" scored the claim saying "last March" and the one that only says the move
alike, and the newer of the two came first. Relevance only: no gate reads it."""

from __future__ import annotations

import pytest

from waymarks.recall.asked_time import asks_when, says_time
from waymarks.recall.plan import direct_plan
from waymarks.service.app import Waymarks

DATED = "The search index moved to Postgres last March."
UNDATED = "The search index moved to Postgres."


def test_a_question_asking_when_ranks_the_claim_saying_a_time_first(app: Waymarks) -> None:
    dated = app.remember(DATED).id  # type: ignore[union-attr]
    undated = app.remember(UNDATED).id  # type: ignore[union-attr]
    app.remember("The database port is 5433.")
    assert app.recall("when did the search index move to Postgres?").selected == [
        dated, undated]
    # any other question: the two alike, the newer first, as before
    assert app.recall("did the search index move to Postgres?").selected == [undated, dated]


def test_saying_a_time_makes_no_claim_an_answer(app: Waymarks) -> None:
    app.remember("The release train leaves every Friday at 10:00.")
    app.remember("The database port is 5433.")
    assert app.recall("when did the search index move?").selected == []


@pytest.mark.parametrize(("text", "said"), [
    ("We moved to Postgres last March.", True), ("Backups run nightly.", True),
    ("Deployed on 2024-05-01.", True), ("The outage was 3 weeks ago.", True),
    ("Standup is at 9:30 on Mondays.", True), ("Since May 2023 the job runs twice.", True),
    ("Cut over on the 5th of May.", True), ("The retry runs at 3 pm.", True),
    ("You may need a restart.", False), ("The database port is 5433.", False),
    ("Connect to 10.0.0.1:80 first.", False), ("March the tests through CI.", False),
    # a port's or an amount's number is no year; a year is one beside them
    ("Port 2000 is used by the legacy SOAP bridge.", False),
    ("The inventory heap is 2048 MB.", False),
    ("It listens on port 2000 since 2019.", True),
])
def test_a_time_said(text: str, said: bool) -> None:
    assert says_time(text) is said


@pytest.mark.parametrize(("question", "asked"), [
    ("When did we move to Postgres?", True), ("and when is the next release?", True),
    ("what happens when the cache is full?", False), ("since when?", False),
    # a leading clause a comma ends is a condition: what is asked comes after it
    ("When the cache expires, what does CI reinstall?", False),
    ("When, roughly, did we ship?", True), ("when the cache expires?", True),
])
def test_a_question_asking_when(question: str, asked: bool) -> None:
    assert asks_when(question.casefold()) is asked
    assert direct_plan(question).when is (asked and bool(direct_plan(question).focus))


@pytest.mark.parametrize(("text", "said"), [
    ("我们去年三月把搜索索引迁移到了 Postgres。", True), ("备份每晚运行。", True),
    ("上周部署了新版本。", True), ("12月20日冻结发布。", True), ("站会在周一 9 点。", True),
    ("三天前出了故障。", True), ("数据库端口是 5433。", False), ("三个服务共用缓存。", False),
])
def test_a_time_said_in_chinese(text: str, said: bool) -> None:
    assert says_time(text) is said


@pytest.mark.parametrize(("question", "asked"), [
    ("搜索索引什么时候迁移到 Postgres？", True), ("下一个版本何时发布？", True),
    ("备份哪天运行？", True), ("搜索索引用什么数据库？", False),
])
def test_a_question_asking_when_in_chinese(question: str, asked: bool) -> None:
    assert asks_when(question.casefold()) is asked
    assert direct_plan(question).when is asked


def test_a_chinese_question_asking_when_ranks_the_claim_saying_a_time_first(
        app: Waymarks) -> None:
    dated = app.remember("搜索索引去年三月迁移到了 Postgres。").id  # type: ignore[union-attr]
    undated = app.remember("搜索索引迁移到了 Postgres。").id  # type: ignore[union-attr]
    app.remember("The database port is 5433.")
    assert app.recall("搜索索引什么时候迁移到 Postgres？").selected == [dated, undated]
    assert app.recall("搜索索引迁移到 Postgres 了吗？").selected == [undated, dated]


@pytest.mark.parametrize("follow_up", [
    "when was that?", "and when?", "when did it move?", "什么时候？", "何时？"])
def test_a_follow_up_asking_when_ranks_the_claim_saying_a_time_first(
        app: Waymarks, follow_up: str) -> None:
    dated = app.remember(DATED).id  # type: ignore[union-attr]
    undated = app.remember(UNDATED).id  # type: ignore[union-attr]
    app.remember("The database port is 5433.")
    history = ["did the search index move to Postgres?"]
    assert app.recall(follow_up, history).selected == [dated, undated]
    # a follow-up that does not ask when: the newer first, as before
    assert app.recall("did it?", history).selected == [undated, dated]


def test_chinese_words_asking_when_are_no_subject() -> None:
    # as "when" is none: unknown to every record, 时候 weighed the most of the question
    assert direct_plan("搜索索引什么时候迁移到 Postgres？").focus == (
        "w:搜索", "w:索引", "w:迁移", "w:到", "w:postgr")
    assert direct_plan("何时？").focus == ()
