"""The words a question's expressions spell are looked for before the expression is
compiled (issue 15: a one-shot recall compiled both for a question holding neither):
a question the pre-test turns away is one the expression could not have matched, so the
answer is the same (:func:`~waymarks.recall.asked_agent.doer_asked`,
:func:`~waymarks.recall.compound.which_of`, a leading condition's comma in
:func:`~waymarks.recall.plan.plan_query`)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from waymarks.recall import asked_agent, compound, plan
from waymarks.recall.analysis import fold

#: words either expression spells, beside others and near misses, in any order
WORDS = st.sampled_from(["what", "which", "does", "do", "did", "the", "mailer", "send",
                         "through", "python", "version", "gateway", "use", "doe", "wha",
                         "whic", "dd", "?", " ", "\u00a0", "\t", "What", "DOES", "whatdo"])


#: questions shaped as the expressions read them ("what does the mailer send through?")
SHAPED = st.tuples(st.sampled_from(["what", "which", "What", " what"]),
                   st.sampled_from(["does", "do", "did", "doe"]),
                   st.lists(WORDS, min_size=1, max_size=4)).map(
    lambda parts: " ".join([parts[0], parts[1], *parts[2]]))


@settings(max_examples=400, deadline=None)
@given(st.one_of(SHAPED, st.lists(WORDS, max_size=9).map(" ".join)))
@example("what does the mailer send through?")
@example("which python version does the gateway use?")
@example("what\u00a0did\u2003the api call")
def test_a_question_either_expression_matches_passes_its_pre_test(question: str) -> None:
    """What each function looks for first is in every text its expression matches."""
    folded = fold(question)
    if asked_agent._WHAT_DOES.match(folded) is not None:
        assert "what" in folded and ("do" in folded or "did" in folded)
    if compound._WHICH_TWO.match(folded) is not None:
        assert ("which" in folded or "what" in folded) and (
            "do" in folded or "did" in folded)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["When", "if", "once", "the build breaks", ",", ", ", "?",
                                 "who owns it", "how do I restart it", " ", "\u3001"]),
                max_size=8).map("".join))
@example("When the build breaks, who owns the frontend?")
def test_a_prompt_with_a_leading_condition_holds_a_comma(prompt: str) -> None:
    """A leading condition (:data:`~waymarks.recall.plan._CONDITION`) ends with a comma:
    a prompt without one is planned without the expression."""
    if plan._CONDITION.match(prompt) is not None:
        assert "," in prompt


def test_the_pre_tests_keep_the_answers_the_expressions_give() -> None:
    assert asked_agent.doer_asked("what does the mailer send through?") == (
        "w:send", "w:mailer")
    assert asked_agent.doer_asked("what did the api call?") == ("w:call", "w:api")
    assert compound.which_of("which python version does the gateway use?",
                             ("w:python", "w:gateway")) == "w:python"
    assert compound.which_of("what node version did the mailer run?",
                             ("w:node", "w:mailer")) == "w:node"
    assert asked_agent.doer_asked("which service uses kafka for event fan-out?") == ()
    assert compound.which_of("which service uses kafka for event fan-out?",
                             ("w:kafka",)) is None
