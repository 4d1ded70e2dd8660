"""Which project-state claims a work turn may update (EVOLUTION item 43, progress-targets).

A progress source never learns new facts: it may only update project-state claims the host
nominated for it. Nomination is local and explainable, by the seed's scores:

- 60 when an operation's directory or checkout root (full path) appears in the claim;
- 50 when its project name (the root's last component) appears in the claim as a word;
- +2 per feature (word) the person's request shares with the claim, at most 8 counted;
- +20 when the claim reads as pending ("not committed", "pending", "todo", ...).

A claim with neither a path nor a name match may still qualify on the request's topic
(at least :data:`MIN_TOPIC_FEATURES` shared features), *unless* it names an absolute path
whose last component is an operation's project name but which is another path: two
checkouts called ``api`` are not one project. Tool output never nominates (only the
request, and the resources taken from arguments, are read).

Eligible: kind ``project_state``, the same origin, active (``provisional``; an expired
claim still qualifies: aging is read-time), not marked incorrect by a person. Pins and
person-confirmed memory are not evolved claims and are never nominated. At most
:data:`MAX_TARGETS`, best score first; ties go to the oldest evidence, then the ID.
No target means no model call.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from waymarks.core.evolution.rows import ClaimRow
from waymarks.core.lazy_re import lazy

MAX_TARGETS: Final = 8
PATH_SCORE: Final = 60
NAME_SCORE: Final = 50
FEATURE_SCORE: Final = 2
MAX_FEATURES: Final = 8
PENDING_SCORE: Final = 20
MIN_TOPIC_FEATURES: Final = 2
_WORD: Final = lazy(r"[^\W_][\w.-]*", re.UNICODE)
_ABSOLUTE: Final = lazy(r"(?<![\w.~-])/[\w.@+-]+(?:/[\w.@+-]+)*")
_PENDING: Final = lazy(
    r"\b(?:not\s+yet|pending|todo|to-do|not\s+(?:been\s+)?(?:committed|pushed|merged|"
    r"deployed|released|done|finished|tested)|uncommitted|unpushed|unmerged|in\s+progress|"
    r"wip|unfinished|incomplete|remaining|still\s+needs?|needs?\s+to\s+be|awaiting|"
    r"blocked|outstanding)\b|未|待", re.IGNORECASE)
_STOP: Final = frozenset(
    "the a an and or but of to in on for with at by from is are was were be been it this "
    "that these those i you we they he she me my our your please can could would should "
    "will do does did done not no yes so then than as if into out up down over again now "
    "just also all any some let lets let's make sure".split())


@dataclass(frozen=True, slots=True)
class Nominee:
    claim_id: str
    score: int
    reasons: tuple[str, ...]  # fixed codes: path, name, topic, pending, features:N


def is_pending(text: str) -> bool:
    """Whether a state reads as unfinished ("not committed", "pending", "todo", ...)."""
    return _PENDING.search(text) is not None


def features(text: str) -> set[str]:
    return {w.lower().strip(".-") for w in _WORD.findall(text)} - _STOP - {""}


def eligible(claim: ClaimRow, origin: str) -> bool:
    incorrect = claim.accuracy is not None and claim.accuracy[0] == "incorrect"
    return (claim.kind == "project_state" and claim.origin == origin
            and claim.state == "provisional" and not incorrect)


def nominate(claims: Sequence[ClaimRow], origin: str, request: str,
             resources: Sequence[tuple[str, str | None]]) -> list[Nominee]:
    """The claims this work turn may update, best first (at most :data:`MAX_TARGETS`)."""
    asked = features(request)
    scored: list[tuple[int, str, str, Nominee]] = []
    for claim in claims:
        if not eligible(claim, origin):
            continue
        text = claim.content + "\n" + " ".join(claim.search_terms)
        own = features(text)
        named_paths = {p.rstrip("/") for p in _ABSOLUTE.findall(text)}
        score, reasons = 0, []
        conflicted = False
        for name, full in resources:
            lowered = name.lower()
            clash = any(p.rsplit("/", 1)[-1].lower() == lowered and p != (full or "")
                        .rstrip("/") for p in named_paths)
            if full is not None and full.rstrip("/") in named_paths:
                if "path" not in reasons:
                    score += PATH_SCORE
                    reasons.append("path")
            elif lowered in own and not clash:
                if "name" not in reasons:
                    score += NAME_SCORE
                    reasons.append("name")
            elif clash:
                conflicted = True
        shared = min(len(asked & own), MAX_FEATURES)
        if not reasons:
            if conflicted or shared < MIN_TOPIC_FEATURES:
                continue
            reasons.append("topic")
        score += FEATURE_SCORE * shared
        if shared:
            reasons.append(f"features:{shared}")
        if is_pending(claim.content):
            score += PENDING_SCORE
            reasons.append("pending")
        scored.append((score, claim.updated_at, claim.id,
                       Nominee(claim.id, score, tuple(reasons))))
    scored.sort(key=lambda x: (-x[0], x[1], x[2]))
    return [n for *_rest, n in scored[:MAX_TARGETS]]
