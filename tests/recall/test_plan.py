"""The conversation-aware query plan (seed 004): modes, inheritance, barriers and bounds."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.recall.plan import (
    MAX_HISTORY_BYTES,
    MAX_HISTORY_TURNS,
    MAX_PROMPT_BYTES,
    clip_utf8,
    direct_plan,
    plan_query,
)

FILLER = " ".join(f"Step {i}: make sure the widget renders well under load." for i in range(60))


# -- modes ------------------------------------------------------------------------


def test_a_question_without_history_is_direct() -> None:
    plan = plan_query("Do you remember the SQLite port?")
    assert (plan.reason, plan.focus, plan.context) == ("direct", ("w:sqlite", "c:port"), ())


def test_an_attribute_only_follow_up_keeps_the_subject_as_context() -> None:
    plan = plan_query("port?", ["SQLite"])
    assert (plan.reason, plan.focus, plan.context) == ("followup", ("c:port",), ("w:sqlite",))


@pytest.mark.parametrize("prompt", ["what about its auth?", "and auth?", "它的认证呢？",
                                    "那认证呢？"])
def test_cued_follow_ups_in_both_languages(prompt: str) -> None:
    plan = plan_query(prompt, ["Tell me about the SQLite database"])
    assert plan.reason == "followup"
    assert plan.focus == ("c:auth",)
    assert plan.context == ("w:sqlite", "c:database")


def test_context_stays_the_subject_and_does_not_accumulate_facets() -> None:
    plan = plan_query("auth?", ["SQLite", "port?"])
    assert (plan.reason, plan.focus, plan.context) == ("followup", ("c:auth",), ("w:sqlite",))
    later = plan_query("timeout?", ["SQLite", "port?", "auth?", "version?"])
    assert later.context == ("w:sqlite",) and later.focus == ("c:timeout",)


def test_a_topicless_turn_continues_the_previous_plan() -> None:
    plan = plan_query("continue", ["SQLite", "port?", "auth?"])
    assert (plan.reason, plan.focus, plan.context) == ("continued", ("c:auth",), ("w:sqlite",))


@pytest.mark.parametrize("prompt", ["continue", "ok", "继续", "go on please", "thanks!"])
def test_a_fresh_session_saying_continue_is_empty(prompt: str) -> None:
    plan = plan_query(prompt)
    assert (plan.reason, plan.focus, plan.context) == ("empty", (), ())


def test_continue_after_only_topicless_turns_is_empty() -> None:
    assert plan_query("continue", ["ok", "thanks"]).reason == "empty"


@pytest.mark.parametrize("prompt", ["what about Kafka?", "Kafka?", "and Kafka?", "那 Kafka 呢？"])
def test_an_explicit_new_subject_stands_alone_even_if_unknown(prompt: str) -> None:
    plan = plan_query(prompt, ["Do you remember the SQLite port?"])
    assert (plan.reason, plan.focus, plan.context) == ("direct", ("w:kafka",), ())


def test_an_unknown_single_character_subject_is_a_barrier() -> None:
    plan = plan_query("鹅呢？", ["还记得数据库端口吗？"])
    assert (plan.reason, plan.focus, plan.context) == ("direct", ("w:鹅",), ())
    after = plan_query("continue", ["还记得数据库端口吗？", "鹅呢？"])
    assert after.focus == ("w:鹅",) and "c:database" not in after.context


def test_a_follow_up_after_an_unknown_subject_does_not_reach_the_older_topic() -> None:
    plan = plan_query("and its auth?", ["Do you remember the SQLite port?", "what about Kafka?"])
    assert "w:sqlite" not in plan.context
    assert plan.context == ("w:kafka",)


@pytest.mark.parametrize("phrase", ["new topic", "start over", "forget that", "换个话题",
                                    "从头开始", "不是那个"])
def test_a_reset_phrase_stops_inheritance(phrase: str) -> None:
    plan = plan_query(phrase + ". port?", ["SQLite"])
    assert plan.reason == "reset"
    assert plan.context == ()
    after = plan_query("port?", ["SQLite", phrase])
    assert "w:sqlite" not in after.context


@pytest.mark.parametrize("phrase", ["new topic", "start over", "forget that"])
def test_a_bare_reset_phrase_has_no_focus(phrase: str) -> None:
    assert plan_query(phrase, ["SQLite port?"]).focus == ()


def test_a_chinese_ok_continue_keeps_the_conversation() -> None:
    plan = plan_query("好的，继续", ["SQLite 数据库", "端口呢？"])
    assert plan.reason in {"continued", "followup"}
    assert "w:sqlite" in plan.context


def test_direct_plan_ignores_history_by_construction() -> None:
    plan = direct_plan("port?")
    assert (plan.reason, plan.focus, plan.context) == ("direct", ("c:port",), ())


def test_literals_of_the_live_prompt_become_constraints() -> None:
    plan = plan_query("what is in src/app/config.py?")
    assert plan.literals == {"p:src/app/config.py"}


# -- bounds -------------------------------------------------------------------------


def test_bounds_are_the_seeds() -> None:
    assert (MAX_HISTORY_TURNS, MAX_HISTORY_BYTES, MAX_PROMPT_BYTES) == (6, 2048, 65536)


def test_only_the_six_newest_history_turns_are_replayed() -> None:
    chain = ["Zanzibar cluster", "port?", "auth?", "timeout?", "version?", "token?"]
    assert plan_query("password?", chain).context == ("w:zanzibar", "w:cluster")
    older = plan_query("password?", [*chain, "log?"])
    assert "w:zanzibar" not in older.context


def test_consecutive_continuations_share_a_slot() -> None:
    plan = plan_query("port?", ["SQLite", *["continue"] * 6])
    assert plan.context == ("w:sqlite",)


def test_a_history_turn_is_clipped_to_2048_bytes() -> None:
    assert len(FILLER.encode()) > MAX_HISTORY_BYTES
    late = plan_query("continue", [FILLER + " Quibblestone"])
    assert "w:quibbleston" not in late.focus + late.context
    early = plan_query("continue", ["Quibblestone " + FILLER])
    assert "w:quibbleston" in early.focus


def test_the_live_prompt_has_its_own_larger_bound() -> None:
    assert len(FILLER.encode()) > MAX_HISTORY_BYTES
    plan = plan_query(FILLER + "\nAlso fix tools/quibble_import.py")
    assert "p:tools/quibble_import.py" in plan.focus
    assert plan.literals == {"p:tools/quibble_import.py"}


def test_the_live_prompt_is_clipped_at_65536_bytes() -> None:
    padding = "word " * (MAX_PROMPT_BYTES // 5)
    assert "w:quibbleston" in plan_query(padding[:60000] + " Quibblestone").focus
    assert "w:quibbleston" not in plan_query(padding + " Quibblestone").focus


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("abc", 2, "ab"),
    ("é" * 300, 400, "é" * 200),
    ("中" * 200, 400, "中" * 133),
    ("😀" * 200, 401, "😀" * 100),
    ("short", 2048, "short"),
])
def test_clip_utf8_never_cuts_inside_a_character(text: str, limit: int, expected: str) -> None:
    clipped = clip_utf8(text, limit)
    assert clipped == expected
    assert len(clipped.encode()) <= limit


_RESET_PIECES = ["new topic", "New Topic", "start over", "forget that", "not that", "NOT THIS",
                 "different topic", "different question", "different", "换个话题", "新话题",
                 "从头开始", "不是那个", "不是这个", "renew topics", "not thats", "topic",
                 "postgres port", "？", "?", " ", "", "Ｎｅｗ ｔｏｐｉｃ", "over", "start"]


@lanes(quick=60, long=600)
def test_the_reset_pretest_agrees_with_the_expression(examples: int) -> None:
    """A turn is searched for a reset phrase only when it holds one of the phrases'
    words: that pre-test must never hide a match."""
    run_property(examples, check_reset_pretest,
                 st.lists(st.sampled_from(_RESET_PIECES), max_size=6), st.text(max_size=8),
                 base=settings(deadline=None))


def check_reset_pretest(pieces: list[str], noise: str) -> None:
    from waymarks.recall.analysis import fold
    from waymarks.recall.plan import _RESET, _resets

    for text in (" ".join(pieces), "".join(pieces), noise.join(pieces)):
        folded = fold(text)
        assert _resets(folded) == (_RESET.search(folded) is not None), text
