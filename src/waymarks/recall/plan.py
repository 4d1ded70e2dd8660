"""The conversation-aware query plan: what is asked now, and what it is about.

The bounded user history (at most 6 texts of 2,048 UTF-8 bytes, oldest first) is replayed
turn by turn; the live prompt, bounded separately at 65,536 bytes, is the last turn.
- A turn with no features ("continue") keeps the previous plan; in a fresh session it is
  empty and recalls nothing.
- A follow-up (a cue such as "and", "what about", "它", or only attribute words) whose other
  words the conversation already had keeps the established subject as supporting context.
- Anything else is an explicit new subject and stands alone, even if the store does not
  know it. A reset phrase ("new topic", "换个话题") stops inheritance. Without a cue, the
  subject it followed is kept as its *parent* ("Redis cache", then "what is the eviction
  policy?"): a later follow-up is about either when the store says the question was a
  facet of the parent (a claim about the eviction policy is about the Redis cache too).
- A leading condition a comma ends ("When the build breaks, who owns the frontend?") is
  a turn of its own before the question: what is asked follows it.
- A subject the features cannot hold is a *barrier*, not a follow-up: a capital letter
  ("and in C?", "R", "C++", "C#") or a capitalized stop word used as a name ("what about
  Go?"; never a function word such as "Is" or "To" of Title Case). Nothing else new
  said, the turn recalls nothing and later topic-less turns inherit nothing (seed 004:
  unknown subjects remain barriers); the name stays the subject of later attribute-only
  follow-ups ("and the version?"), which recall only a record that says it. A subject
  inherited from a direct query keeps the names it asked about too.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.text import clip_utf8
from waymarks.recall.analysis import (
    Analysis,
    analyze,
    fold,
    han_words,
    word_feature,
    word_order,
)
from waymarks.recall.asked_action import action_asked
from waymarks.recall.asked_agent import agent_asked, doer_asked
from waymarks.recall.asked_time import asks_when
from waymarks.recall.compound import adjacent_runs, which_of
from waymarks.recall.dropped_names import Dropped, asked_names, barrier, dropped_names
from waymarks.recall.scoring import SHORT_QUERY_FEATURES, QueryPlan
from waymarks.recall.slashed import with_words
from waymarks.recall.subject import KINDS
from waymarks.recall.vocabulary import ATTRIBUTES

MAX_HISTORY_TURNS: Final = 6
MAX_HISTORY_BYTES: Final = 2048
MAX_PROMPT_BYTES: Final = 65536
#: plans remembered by :func:`plan_query`
PLAN_MEMO: Final = 16

_RESET: Final = lazy(
    r"换个话题|新话题|从头开始|不是那个|不是这个|\bnew topic\b|\bstart over\b|\bforget that\b"
    r"|\bnot that\b|\bnot this\b|\bdifferent (?:topic|question)\b"
)
#: what every match of :data:`_RESET` holds: a text holding none of them is not searched
#: (compiling the expression cost a one-shot recall 1.4 ms, and few prompts reset)
_RESET_WORDS: Final = ("换个话题", "新话题", "从头开始", "不是那个", "不是这个", "new topic",
                       "start over", "forget that", "not that", "not this", "different ")
_FOLLOWUP: Final = lazy(
    r"继续|接着|接上|这个|那个|它|其|呢\s*[?？。.!]*\s*$|^\s*(?:and|also|what about|how about)\b"
    r"|\b(?:this|that|it|its|their|continue|resume)\b"
)


#: (the plan's own word lists live here, not in :mod:`waymarks.recall.vocabulary`: that
#: module is part of the analysis' fingerprint, and a change to it re-indexes every store)
#: everyday words of working on something ("let's debug the orders database", "switch to
#: Redis", "fixing a bug in the cache", "排查一下缓存"): what a person does to a subject,
#: not what it is. A direct query keeps them; the subject a follow-up inherits leaves them
#: out (a record about the orders database need not say "debug" to answer "and the port?")
ACTIVITIES: Final = frozenset(
    """
    w:debug w:fix w:switch w:check w:investig w:troubleshoot w:inspect w:review w:discuss
    w:talk w:explor w:examin w:diagnos w:figur w:understand w:tackl w:handl w:dig w:bug
    w:issu w:problem
    w:调试 w:修复 w:修 w:切换 w:检查 w:排查 w:讨论 w:聊 w:聊聊 w:研究 w:处理 w:解决 w:看
    """.split()
)
#: the ACTIVITIES that are nouns too, naming a subject ("the review service", "the bug
#: tracker"): left out only while a word beside them names what the subject is
NAMING_ACTIVITIES: Final = frozenset(
    "w:review w:check w:issu w:bug w:problem w:switch".split())
#: verbs that ask for an attribute, the port ("what port does it listen on?", "which port
#: does it bind to?"): in a follow-up they are part of what is asked, not a new subject
#: (elsewhere ordinary words)
ATTRIBUTE_VERBS: Final = frozenset({"w:listen", "w:bind", "w:bound", "w:监听", "w:绑定"})
#: the words a follow-up may ask with and still say nothing new: the attributes, and the
#: verbs that ask for one ("what port does it listen on?")
_ASKED: Final = ATTRIBUTES | ATTRIBUTE_VERBS
#: the plans whose subject an earlier turn gave (the prompt alone does not say it)
INHERITED: Final = frozenset({"followup", "continued"})


def plan_query(prompt: str, history: Sequence[str] = ()) -> QueryPlan:
    """The plan for ``prompt`` given the earlier user turns (oldest first).

    Consecutive topic-less turns ("continue", "ok") share one of the 6 history slots, so a
    run of them cannot push the subject out of the window.

    One request plans the same prompt more than once (memory recall, then learned recall):
    the last few plans are remembered (a pure function of its arguments).
    """
    return _plan_query(prompt, tuple(history))


@functools.lru_cache(maxsize=PLAN_MEMO)
def _plan_query(prompt: str, history: tuple[str, ...]) -> QueryPlan:
    turns: list[str] = []
    for text in reversed(history):
        turn = clip_utf8(text, MAX_HISTORY_BYTES)
        topicless = (analyze(turn, query=True).empty and not _resets(fold(turn))
                     and not barrier(turn))
        if topicless and turns and turns[-1] == "":
            continue  # shares the slot of the topic-less turn after it
        turns.append("" if topicless else turn)
        if len(turns) == MAX_HISTORY_TURNS:
            break
    turns.reverse()
    previous: QueryPlan | None = None
    for turn in turns:
        previous = _advance(turn, previous)
    prompt = clip_utf8(prompt, MAX_PROMPT_BYTES)
    # (the comma it ends with looked for first: compiled only for a prompt holding one)
    condition = _CONDITION.match(prompt) if "," in prompt else None
    if condition is not None:
        # "When the build breaks, who owns the frontend?" asks who owns the frontend; the
        # condition is said before it, as a turn before would be ("If search is down, how
        # do I restart it?": "it" is the search)
        previous = _advance(condition.group(1), previous)
        prompt = prompt[condition.end():]
    return _advance(prompt, previous)


#: a leading condition a comma ends, before a question asked with a question word ("When
#: the build breaks, who owns the frontend?", "If search is down, how do I restart it?")
_CONDITION: Final = lazy(
    r"(?i)^\s*((?:when|whenever|if|once|before|after)\b[^,?]{1,200}),\s*"
    r"(?=(?:who|what|which|where|how|when|why)\b[^,]*\?\s*$)")


def direct_plan(query: str) -> QueryPlan:
    """An explicit query with no history inheritance (``recall --explain QUERY``)."""
    return _advance(clip_utf8(query, MAX_PROMPT_BYTES), None)


def _advance(text: str, previous: QueryPlan | None) -> QueryPlan:
    # (the turn is folded, and its dropped names found, once: each reading of the plan
    # below takes them, where each folded the text again, nine times a question)
    folded = fold(text)
    if _resets(folded):  # the reset phrase itself is not a subject
        return _direct(analyze(_RESET.sub(" ", folded), query=True), "reset")
    # ("frontend/backend": the literal and its words, one kept once the store is known)
    analysis = with_words(_attribute_named(_duration_asked(analyze(text, query=True), folded)))
    dropped = tuple(dropped_names(text))
    if dropped and (analysis.empty or _inherits(analysis, folded, previous)):
        # the name is the subject from now on: a later follow-up must be about it
        names = frozenset(name for name, _end in dropped)
        return QueryPlan((), (), frozenset(), "barrier", names)
    barred = previous is not None and previous.reason == "barrier"
    if analysis.empty:
        if previous is not None and (previous.focus or barred):
            return QueryPlan(previous.focus, previous.context, previous.literals,
                             "barrier" if barred else "continued", previous.names,
                             parent=previous.parent, when=asks_when(folded))
        return QueryPlan((), (), frozenset(), "empty")
    if barred and all(f in _ASKED for f in analysis.features):
        # "and the version?" after "what about Go?": Go's version, or nothing (a fresh
        # query recalled every claim with a version)
        assert previous is not None
        return QueryPlan(_asked(analysis), (), analysis.literals, "followup", previous.names)
    if _inherits(analysis, folded, previous):
        assert previous is not None
        subject = _subject(previous)
        context = (*subject, *(f for f in previous.parent if f not in subject))
        return QueryPlan(_asked(analysis), context, analysis.literals, "followup",
                         previous.names, parent=previous.parent, when=asks_when(folded))
    plan = _direct(analysis, "direct", text, folded, dropped)
    if previous is None or not previous.focus:
        return plan
    plan = _referred(plan, previous, folded)
    if not _FOLLOWUP.search(folded):
        # a question with no cue ("what is the eviction policy?" after "Redis cache"): a
        # subject of its own, unless the store says it is a facet of the one before
        # (:mod:`waymarks.recall.subject`), which a later follow-up then keeps too
        # (the subject of the turn just before only: a parent that turn inherited is
        # no longer the conversation's, or a subject from several turns back outranked a
        # new topic)
        parent = tuple(f for f in _subject(previous) if f not in previous.parent)
        return msgspec.structs.replace(plan, parent=parent)
    # a follow-up cue with a new word ("and staging?" after the database's port): a
    # subject of its own, but among the claims it selects, those about the one before
    # come first (the staging database's host fell behind the staging deploy claims)
    earlier = tuple(f for f in _subject(previous) if f not in plan.focus)
    return msgspec.structs.replace(plan, earlier=earlier)


#: a pronoun standing for a thing ("restart it", "does it use Redis?", "its config"); not
#: the "it" of "it's fine", "it is possible to …" or "is it safe to …", which stands for
#: nothing
_PRONOUN: Final = lazy(r"(?<!\bis )(?<!\bwas )\b(?:it|its|them)\b(?!\s*(?:'s|’s|is|was)\b)")


def _referred(plan: QueryPlan, previous: QueryPlan, folded: str) -> QueryPlan:
    """``plan`` with the thing its bare kind refers to (:attr:`QueryPlan.referent`): the
    one the turn before named with the kind ("let's look at the search service", then
    "how do I restart the service?" or "and how do I restart the service?"), whatever
    cue the question has. The word right before the kind names it ("the search service
    keeps crashing": search, not crash); a subject inherited with the kind ("and the
    port?" after it) is read whole. A pronoun refers as a bare kind does
    (:data:`_PRONOUN`)."""
    if plan.bare_kinds:
        referent = tuple(dict.fromkeys(
            word for word, kind in previous.named_kinds if kind in plan.bare_kinds))
        subject = _subject(previous)
        if not referent and not plan.bare_kinds.isdisjoint(subject):
            referent = tuple(f for f in subject if f not in KINDS)
    elif _PRONOUN.search(folded) is not None:
        # "restart it" after "let's look at the search service": "it" is the search, as
        # "the service" would be; only a thing the turn before named with its kind, or
        # by one word ("I'm on billing"), which a record must then say
        referent = tuple(dict.fromkeys(word for word, _kind in previous.named_kinds))
        named = tuple(f for f in _subject(previous) if f not in KINDS)
        referent = referent or (named if len(named) == 1 else ())
    else:
        return plan
    return msgspec.structs.replace(plan, referent=referent) if referent else plan


#: a word that names an attribute's value with the attribute ("the port number", "the
#: version number"): beside one, nothing new said and no word a claim must hold ("and
#: the port number?" after "Let's look at Postgres" was a subject of its own, which no
#: claim held, and recalled nothing)
_OF_ATTRIBUTE: Final = frozenset({"w:number"})


def _attribute_named(analysis: Analysis) -> Analysis:
    """``analysis`` without the words of :data:`_OF_ATTRIBUTE` when it names an attribute."""
    features = analysis.features
    if not any(f in _OF_ATTRIBUTE for f in features) or not any(
            f in ATTRIBUTES for f in features):
        return analysis
    return msgspec.structs.replace(
        analysis, features=tuple(f for f in features if f not in _OF_ATTRIBUTE))


#: a question asking how long something lasts ("how long do auth sessions last?"): "long"
#: and the verb "last" ask for a duration, as "when" asks for a time, and no record says
#: them ("Auth sessions expire after 12 hours."); left in, the answer matched two of four
#: words, under the coverage bar. Only with the verb: "how long" alone ("how long has she
#: been painting?") keeps its words, which a foreign store's records share
_LASTS: Final = lazy(r"(?s)^\W*how\s+long\b.*\blast\W*$")
_DURATION_WORDS: Final = frozenset({"w:long", "w:last"})


def _duration_asked(analysis: Analysis, folded: str) -> Analysis:
    """``analysis`` without "long" and "last" when the question asks how long something
    lasts (:data:`_LASTS`); what else it names is what a record must be about."""
    if "last" not in folded or _LASTS.match(folded) is None:
        return analysis
    kept = tuple(f for f in analysis.features if f not in _DURATION_WORDS)
    return msgspec.structs.replace(analysis, features=kept) if kept else analysis


def _asked(analysis: Analysis) -> tuple[str, ...]:
    """A follow-up's focus: a verb asking for the attribute it names is part of it ("what
    port does it listen on?" asks the port; a claim need not say "listen")."""
    features = analysis.features
    if any(f in ATTRIBUTE_VERBS for f in features) and any(f in ATTRIBUTES for f in features):
        return tuple(f for f in features if f not in ATTRIBUTE_VERBS)
    return features


def _subject(previous: QueryPlan) -> tuple[str, ...]:
    """The conversation's subject as of the plan before: its inherited one, or its focus
    without the attribute words and the everyday verbs ("debug", "switch": what was done
    to the subject, which a record about it need not say), unless only a kind of thing
    (:data:`~waymarks.recall.subject.KINDS`) would be left."""
    if previous.context:
        return previous.context
    # an attribute word naming a kind is its name ("the auth service": auth)
    naming = {word for word, _kind in previous.named_kinds}
    named = tuple(f for f in previous.focus if f not in _ASKED or f in naming)
    subject = tuple(f for f in named if f not in ACTIVITIES)
    if all(f in KINDS for f in subject):
        # only a kind of thing is left ("the review service": "servic"), which names no
        # subject: every service's port was recalled
        return tuple(f for f in named if f not in ACTIVITIES - NAMING_ACTIVITIES)
    return subject


def _resets(folded: str) -> bool:
    """Whether a folded turn holds a reset phrase ("new topic", "换个话题")."""
    return any(word in folded for word in _RESET_WORDS) and _RESET.search(folded) is not None


def _inherits(analysis: Analysis, folded: str, previous: QueryPlan | None) -> bool:
    """A follow-up: a cue, or only attribute words, and nothing new beside them."""
    if previous is None or not previous.focus:
        return False
    own = [f for f in analysis.features if f not in _ASKED]
    known = set(previous.focus) | set(previous.context)
    cue = bool(_FOLLOWUP.search(folded)) or not own
    return cue and all(f in known for f in own)


def _direct(analysis: Analysis, reason: str, text: str = "", folded: str = "",
            dropped: Dropped = ()) -> QueryPlan:
    """A plan of the query alone; a name in it the analysis cannot hold must be in a
    record too (:attr:`QueryPlan.names`). ``folded``: ``text`` folded, ``dropped``: its
    dropped names (:mod:`~waymarks.recall.dropped_names`), each worked out once by the
    caller."""
    features = analysis.features
    if not features:
        return QueryPlan(features, (), analysis.literals, reason)
    asks, co_subjects = _joined(folded, features)
    named, bare, asked = _kinds(folded, features)
    return QueryPlan(features, (), analysis.literals, reason, asked_names(text, dropped),
                     asks=asks, co_subjects=co_subjects, when=asks_when(folded),
                     named_kinds=named, bare_kinds=bare, asked_kinds=asked,
                     introduced=_introduced(folded, features), agent=agent_asked(folded),
                     doer=doer_asked(folded), action=action_asked(folded),
                     clauses=_clauses(folded, features),
                     asks_which=_WHICH_FIRST.match(folded) is not None,
                     runs=adjacent_runs(folded, features)
                     if len(features) <= SHORT_QUERY_FEATURES else (),
                     which_of=which_of(folded, features))


#: the words that introduce a thing by its name ("the crawler", "our importer"); not a
#: demonstrative, which points at what is at hand instead of naming it ("this repository",
#: "that file": the one the person is working in, however the store calls it)
_ARTICLES: Final = frozenset({"the", "a", "an", "our", "its", "their", "my", "your"})
_DEMONSTRATIVES: Final = frozenset({"this", "that", "these", "those"})
#: the kinds that name the repository worked in ("does the repo use pnpm?"): what project
#: memory is about as a whole, which no claim needs to say
_WORKSPACE: Final = frozenset({"w:repo", "w:repositori"})


def _introduced(folded: str, features: tuple[str, ...]) -> frozenset[str]:
    """The words of a short (folded) question right after an article, each a thing's name
    ("does the crawler use", "our importer"), not a verb ("what port does billing
    expose?") (:attr:`QueryPlan.introduced`)."""
    if not features or len(features) > SHORT_QUERY_FEATURES:
        return frozenset()
    found: set[str] = set()
    word_before = ""
    for word in han_words(folded):
        if word.isspace():
            continue
        feature = word_feature(word)
        if feature is not None and word_before in _ARTICLES and feature not in _WORKSPACE:
            found.add(feature)
        word_before = word
    return frozenset(found)


#: the words that ask which one of a kind is meant ("which service", "哪个服务")
_WHICH: Final = frozenset({"which", "what", "哪个", "哪", "什么"})
_Kinds = tuple[tuple[tuple[str, str], ...], frozenset[str], frozenset[str]]
_NO_KINDS: Final[_Kinds] = ((), frozenset(), frozenset())


def _kinds(folded: str, features: tuple[str, ...]) -> _Kinds:
    """The kinds of thing (:data:`~waymarks.recall.subject.KINDS`) the (folded) query holds, by
    the word right before each: one that names which ("the healthz endpoint", "exporter
    服务"), with that word (:attr:`QueryPlan.named_kinds`); none after a word that asks
    which (:attr:`QueryPlan.asked_kinds`: "which service"); the subject itself after an
    article or at the start ("restart the worker", "does the queue use":
    :attr:`QueryPlan.bare_kinds`), read in a short question only; none after a
    demonstrative, the thing at hand ("for this repository": the one worked in)."""
    if not any(f in KINDS for f in features):
        return _NO_KINDS
    pairs: list[tuple[str, str]] = []
    bare: set[str] = set()
    asked: set[str] = set()
    before: str | None = None
    word_before = ""
    # the word joined by a slash to the one before ("the CI/CD pipeline": ci beside cd)
    joined: str | None = None
    slash_after: str | None = None
    for word in han_words(folded):
        feature = word_feature(word)
        if feature is not None and before in asked:
            asked.discard(before)  # "which node version": the kind says whose version
        if feature in KINDS and feature is not None:
            if before is not None and before not in KINDS:
                pairs.append((before, feature))
                if joined is not None:
                    pairs.append((joined, feature))
            elif word_before in _WHICH:
                asked.add(feature)
            elif before is None and word_before not in _DEMONSTRATIVES \
                    and feature not in _WORKSPACE:
                bare.add(feature)
        joined = slash_after if feature is not None else None
        slash_after = before if word == "/" else None
        before = feature
        if not word.isspace():
            word_before = word
    if len(features) > SHORT_QUERY_FEATURES:  # a kind in a pasted trace is no subject
        return tuple(pairs), frozenset(), frozenset()
    named = {kind for _word, kind in pairs}
    return tuple(pairs), frozenset(bare - asked - named), frozenset(asked)


#: two words joined by "and", "or", a comma or "&", an article or question word allowed
#: before the second ("host and key", "host, and the key", "host or which port"); the
#: second is looked ahead at, so a chain ("host, port and user") yields each pair
_JOINED: Final = lazy(
    r"([^\W_]+)(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+|\s*&\s*)"
    r"(?=(?:(?:the|its|their|which|what|a|an)\s+)?([^\W_]+))")
_JOINERS: Final = (",", "&", " and ", " or ")
#: the same in Chinese, between two of the segmenter's words (it keeps "和谐" whole)
_HAN_JOINERS: Final = frozenset({"和", "或", "或者", "与", "及", "以及", "、"})


#: a question word opening a clause joined to the one before ("what port does billing use
#: and where is its config?")
_CLAUSE: Final = lazy(r"(?:,|\band\b|\bor\b)\s*(?:also\s+)?(?=(?:who|what|which|where|how)\b)")


def _asked_in_clauses(folded: str, focus: set[str]) -> set[str]:
    """The attributes asked by two or more joined clauses of a question, each in its own
    ("what port does billing use and where is its config?": the port and the config), of
    which one is enough for a record; none when one clause asks them all."""
    if "," not in folded and " and " not in folded and " or " not in folded:
        return set()
    asked = [{f for f in word_order(clause) if f in focus and f in ATTRIBUTES}
             for clause in _CLAUSE.split(folded)]
    return set().union(*asked) if sum(map(bool, asked)) >= 2 else set()


#: where a question joins another clause led by a question word, a preposition before it
#: or not ("... and on which port?"); the first clause holds a question word too
_WH_CLAUSE: Final = lazy(r"(?:,|\band\b|\bor\b)\s*(?:also\s+)?(?=(?:(?:on|in|at|to|from|for|"
                         r"with|by|under|of)\s+)?(?:who|what|which|where|how)\b)")
_WHICH_FIRST: Final = lazy(r"\s*(?:which|what)\b")
_WH: Final = lazy(r"\b(?:who|what|which|where|how)\b")


def _clauses(folded: str, focus: Sequence[str]) -> tuple[frozenset[str], ...]:
    """The focus words of each clause of a short (folded) question of two or more clauses
    each led by a question word (:attr:`QueryPlan.clauses`); none otherwise."""
    if len(focus) > SHORT_QUERY_FEATURES or not focus:
        return ()
    if "," not in folded and " and " not in folded and " or " not in folded:
        return ()
    parts = _WH_CLAUSE.split(folded)
    if len(parts) < 2 or not _WH.search(parts[0]):
        return ()
    within = set(focus)
    return tuple(frozenset(f for f in word_order(part) if f in within) for part in parts)


def _joined(folded: str, focus: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The focus words of a (folded) question joined to an attribute, directly or along a
    chain, and that attribute (:attr:`QueryPlan.asks`): "which deploy host and key?" asks
    two things of the deploy; and the words joined with no attribute among them, each a subject
    (:attr:`QueryPlan.co_subjects`: "redis and deploy host?")."""
    if len(focus) > SHORT_QUERY_FEATURES:  # read only by the rule for short questions
        return frozenset(), frozenset()
    joiner = any(joiner in folded for joiner in _JOINERS)
    if joiner:  # "the gateway config and the billing config": the gateway and billing
        from waymarks.recall.same_asked import one_ask_each  # (a joined question's)

        folded = one_ask_each(folded)
    words = [(m.group(1), m.group(2)) for m in _JOINED.finditer(folded)] if joiner else []
    if any(joiner in folded for joiner in "和或与及、"):
        cut = han_words(folded)
        words += [(before, after) for before, joiner, after in zip(cut, cut[1:], cut[2:],
                                                                   strict=False)
                  if joiner in _HAN_JOINERS]
    within = set(focus)
    pairs = [(first, second) for first, second in (
        (word_feature(before), word_feature(after)) for before, after in words)
        if first is not None and second is not None and first in within and second in within]
    asks = {f for pair in pairs for f in pair if f in ATTRIBUTES} | _asked_in_clauses(
        folded, within)
    grown = True
    while grown:
        joined = {f for pair in pairs if not asks.isdisjoint(pair) for f in pair}
        grown = not joined <= asks
        asks |= joined
    return frozenset(asks), frozenset(f for pair in pairs for f in pair) - asks
