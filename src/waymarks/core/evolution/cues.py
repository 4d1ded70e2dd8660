"""Which user text is a statement worth learning (EVOLUTION item 10), and source IDs.

Its own small module (``re``, ``json`` and a hash only) because a host's hook runs it on
every turn: deciding that nothing in a turn is worth capturing must cost next to nothing.

Kept: explicit cues (remember, prefer, from now on, 记住, 偏好, 以后…) and natural
declarations ("Our priorities are…", "我们的核心需求是…"). Not kept: recall questions,
quoted examples, vague continuations and one-off instructions (F6: "Don't worry about the
tests for now…", "Never seen this error before, what is it?").
"""

from __future__ import annotations

import json
import re
from typing import Final

from waymarks.core.digests import sha256
from waymarks.core.lazy_re import lazy
from waymarks.core.own_prompts import CURATION_MARK as CURATION_MARK  # (re-exported)
from waymarks.core.own_prompts import OWN_PROMPT_MARKS as OWN_PROMPT_MARKS
from waymarks.core.own_prompts import PROMOTION_MARK as PROMOTION_MARK
from waymarks.core.own_prompts import is_own_prompt

MAX_STATEMENTS: Final = 16
MIN_CHARS: Final = 4


def source_id(origin: str, kind: str, session: str, key: str) -> str:
    """A source's ID: stable for the same capture (so capturing twice is one source)."""
    encoded = json.dumps(["source", origin, kind, session, key], ensure_ascii=False,
                         separators=(",", ":"))
    return "s" + sha256(encoded.encode("utf-8")).hexdigest()[:23]


_CUES: Final = lazy(
    r"\b(remember|don't forget|do not forget|note that|keep in mind|from now on|going forward|"
    r"in future|in the future|always|never|i prefer|we prefer|prefer|preference|please use|"
    r"we use|we're using|we are using|i use|i'm using|our (?:core |main )?"
    r"(?:requirement|requirements|priority|priorities|convention|conventions|rule|rules|"
    r"policy|standard|stack|goal|goals) (?:is|are)|we decided|i decided|decision is|"
    r"correction|that's wrong|that is wrong|actually,? (?:it|we|the))\b"
    r"|^\s*(?:please\s+)?(?:do not|don't|don’t)\s"  # a standing "don't", as 不要 is
    r"|记住|记得|偏好|纠正|不对|以后|不要|我们的核心需求|我们决定|我喜欢|我习惯",
    re.IGNORECASE)
_QUESTION_START: Final = lazy(
    r"^\s*(what|why|how|when|where|who|which|do(?!\s+not\b)|does|did|is|are|was|were|can|could|"
    r"should|would|will|have|has|any idea|remind me|tell me|recall|what's|whats)\b",
    re.IGNORECASE)
_RECALL_ASK: Final = lazy(
    r"\b(do you remember|what did (?:i|we) (?:say|decide|tell)|remind me|"
    r"what (?:do|did) you (?:know|remember)|have you seen|never seen)\b"
    r"|还记得|记不记得|是什么[？?]?$",
    re.IGNORECASE)
_ONE_OFF: Final = lazy(
    r"\b(for now|this time|just this once|right now|don't worry about|do not worry about|"
    r"skip (?:the )?tests? for now|temporarily|"
    # bounded to this piece of work ("in this repo" is a standing scope: not here)
    r"in this (?:pr|pull request|commit|change|changeset|task|session))\b"
    # a "don't" until later ("Do not push yet."): learned, it forbade pushing for good;
    # the "yet" of its own sentence only ("Don't use tabs. The release isn't out yet."
    # was dropped whole, its standing rule with it; a dot inside a word, "setup.py",
    # and an ellipsis, "Don't push... yet", end no sentence), or a "Not yet." of its own
    # right after it ("Don't merge. Not yet.": learned, merging was forbidden for good;
    # "Not yet supported" is another statement).
    # Each stretch has one way to match (a run of dots is taken whole), so a message of
    # many dots that holds no "yet" fails in linear time
    r"|^\s*(?:please\s+)?(?:do not|don't|don’t)\s"
    r"(?:[^.!?;\n。！？；]|\.{2,}+|\.(?=[^\s.])|[!?;](?=\S))*"
    r"(?:\byet\b|[.!?;]\s+(?:but\s+)?not\s+(?:just\s+)?yet\b(?![ \t]*\w))"
    r"|这次|暂时|先不",
    re.IGNORECASE)
_VAGUE: Final = lazy(r"^\s*(continue|go on|ok(?:ay)?|yes|no|thanks|thank you|sure|"
                           r"do it|proceed|next|继续|好的?|可以|谢谢)\W*$", re.IGNORECASE)
_QUOTED: Final = lazy(r"^\s*(?:>|[\"“「'`])")


#: the cues that ask to be remembered outright; a cue of :data:`_CUES` that is not one of
#: these is a natural declaration ("we use…", "our priorities are…", "我们决定…")
_EXPLICIT: Final = lazy(
    r"\b(remember|don't forget|do not forget|note that|keep in mind|from now on|"
    r"going forward|in future|in the future|always|never|i prefer|we prefer|prefer|"
    r"preference|please use|correction|that's wrong|that is wrong|"
    r"actually,? (?:it|we|the))\b"
    r"|^\s*(?:please\s+)?(?:do not|don't|don’t)\s"
    r"|记住|记得|偏好|纠正|不对|以后|不要",
    re.IGNORECASE)

#: what :func:`intent` may say; ``explicit`` and ``natural`` are statements worth learning
INTENTS: Final = ("explicit", "natural", "none", "vague", "quoted", "recall_question",
                  "question", "one_off", "own_prompt")
STATEMENT_INTENTS: Final = frozenset({"explicit", "natural"})


def intent(text: str) -> str:
    """What a user message is, as a code (never its text), for diagnostics and for
    :func:`is_statement`: ``explicit`` (a cue such as remember, prefer, from now on),
    ``natural`` (a declaration: "our priorities are…", "we decided…"), or why it is not a
    statement: ``vague`` (empty, too short, "continue"), ``quoted`` (an example or pasted
    material), ``recall_question``, ``question``, ``one_off`` ("for now…"), ``own_prompt``
    (a prompt Waymarks started as the person's turn: :func:`is_own_prompt`), ``none`` (no
    cue: an ordinary request, such as most work requests)."""
    if is_own_prompt(text):
        return "own_prompt"
    body = text.strip()
    if not body or len(body) < MIN_CHARS or _VAGUE.match(body):
        return "vague"
    if _QUOTED.match(body) or body.startswith("```"):
        return "quoted"  # a quoted example or pasted material, not a statement
    if _RECALL_ASK.search(body):
        return "recall_question"
    if body.rstrip().endswith(("?", "？")) or _QUESTION_START.match(body):
        return "question"
    if _ONE_OFF.search(body):
        return "one_off"
    if not _CUES.search(body):
        return "none"
    return "explicit" if _EXPLICIT.search(body) else "natural"


def is_statement(text: str) -> bool:
    """Whether a user message states something worth learning (see the module docstring)."""
    return intent(text) in STATEMENT_INTENTS


