"""A thing named by two or more words side by side: "the edge proxy", "the order-router",
"the report builder", "管理后台".

A short question naming one thing and asking one of its attributes ("what port does the
mailer use?") is answered only by a record that names the thing and says the attribute
(:func:`~waymarks.recall.gates.query_facts`, its ``short_name``). A thing of two words was
two names to that rule, which then did not apply: "what port does the edge proxy use?"
recalled "The edge proxy is HAProxy 2.8." and every other claim about the proxy, none of
them saying a port (coverage 2 of 3 words), as did "how do I deploy the order-router?" and
"how do I run the order-router tests?" (this one the other things' test commands too).

:func:`adjacent_runs` reads, from the question's text, the focus words said side by side
(no word between them, a hyphen, a dot or a slash joining them counted as none): when the
question's names are all within one such run, they are one name, and a record must hold
each of them. Read from the question when it is planned (:attr:`~waymarks.recall.scoring.
QueryPlan.runs`), for a short question only; records are not re-indexed for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.analysis import han_words, word_feature, word_order
from waymarks.recall.vocabulary import ATTRIBUTES, STOP_WORDS

if TYPE_CHECKING:
    from waymarks.recall.scoring import QueryPlan


def adjacent_runs(folded: str, focus: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The runs of two or more focus words side by side in the folded question, each in
    the order said ("what is the order-router timeout?": ``(("w:order", "w:router",
    "c:timeout"),)``). A stop word, a mark, an adverb ("locally") or a word no focus
    feature holds ends a run; a possessive does not ("the mailer's bounce handler").
    The verb of "does X VERB?" is no word of X's name (:func:`_without_verb`)."""
    within = frozenset(focus)
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    before: list[str] = []  # the two words before the run, nearest last
    said: list[str] = []  # the words before the current one, nearest last
    for word in han_words(folded):
        if word.isspace():
            continue
        if run and (word == "'" or (word == "s" and said[-1:] == ["'"])):
            said.append(word)  # ("the mailer's bounce handler": one thing, the mailer's)
            continue
        # ("order-router", "web.api" are one word of the cut, two of the analysis)
        features = (word_feature(word),) if word.isalnum() else word_order(word)
        # (an adverb says how, and names nothing: "bring up every service locally")
        if features and all(f is not None and f in within for f in features) \
                and not word.endswith("ly"):
            if not run:
                before = said[-2:]
            run.extend(f for f in features if f is not None)
        else:
            runs.append(_without_verb(run, before, word))
            run = []
        said.append(word)
    runs.append(_without_verb(run, before, ""))
    return tuple(run for run in runs if len(run) >= 2)


#: the auxiliaries of "what port does billing expose?", before the thing and its verb
_AUXILIARIES: Final = frozenset({"do", "does", "did"})
#: the words after which a verb comes first: "how do I restart search", "how to deploy"
_BEFORE_A_VERB: Final = frozenset({"i", "we", "you", "to"})
_ARTICLES: Final = frozenset({"the", "a", "an", "our", "your", "my", "their", "its"})


def _without_verb(run: list[str], before: list[str], after: str) -> tuple[str, ...]:
    """``run`` without its last word when that is the verb of "does X VERB": the run
    follows "do", "does" or "did" (an article between them or not) and ends the clause,
    at a mark or a stop word ("what port does billing expose?", "… does the order-router
    listen on?"); a filler word after it is the verb then ("… does the edge proxy use?").
    Its first word, too, after "I", "we", "you" or "to": "… and how do I restart search?"
    asks a restart of search, no thing named "restart search"."""
    if before and before[-1] in _BEFORE_A_VERB:
        run = run[1:]
    auxiliary = bool(before) and (before[-1] in _AUXILIARIES or (
        before[-1] in _ARTICLES and len(before) == 2 and before[0] in _AUXILIARIES))
    if auxiliary and (not after or not after.isalnum() or after in STOP_WORDS):
        return tuple(run[:-1])
    return tuple(run)


#: a question opening with which or what, the two words after it ("which python version")
_WHICH_TWO: Final = lazy(r"\s*(?:which|what)\s+([^\W_]+)\s+([^\W_]+)\s+(?:does|do|did)\b")


def which_of(folded: str, focus: Sequence[str]) -> str | None:
    """The word saying which of an attribute a question opening with it asks, when the
    question then names whose ("which python version does the gateway use?": python),
    else ``None``: the gateway is the subject, and Python a word its claim must say.
    A question without the words the expression spells ("which" or "what", then "do",
    "does" or "did") is answered without it, as :func:`.asked_agent.doer_asked` is."""
    if ("which" not in folded and "what" not in folded) or (
            "do" not in folded and "did" not in folded):
        return None
    match = _WHICH_TWO.match(folded)
    if match is None:
        return None
    word, attribute = word_feature(match.group(1)), word_feature(match.group(2))
    return word if word in focus and attribute in ATTRIBUTES else None


def one_name(names: Sequence[str], runs: Sequence[Sequence[str]]) -> bool:
    """Whether ``names`` (two or more) are the words of one thing's name: all within one
    run of words said side by side (:func:`adjacent_runs`)."""
    return len(names) >= 2 and any(set(names).issubset(run) for run in runs)


def one_subject(names: Sequence[str], plan: QueryPlan) -> bool:
    """Whether ``names`` name one thing: one word, the words of one name (:func:`one_name`),
    or either beside the word saying which of the attribute asked ("which python version
    does the gateway use?": the gateway, :attr:`QueryPlan.which_of`), which a claim must
    say too (another thing's Python version is no answer)."""
    if len(names) == 1 or one_name(names, plan.runs):
        return True
    if plan.which_of not in names:
        return False
    subject = [f for f in names if f != plan.which_of]
    return len(subject) == 1 or one_name(subject, plan.runs)


def numbered(names: Sequence[str], runs: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """``names`` with the numbers said inside their run ("the catalog-917 service": 917),
    which the name gate counts as no name, but which tell one thing from its siblings:
    without them, "what port does the catalog-917 service use?" recalled the ports of
    catalog-218 and catalog-79."""
    for run in runs:
        if names and set(names).issubset(run):
            return (*names, *(f for f in run if f[2:].isdigit() and f not in names))
    return tuple(names)
