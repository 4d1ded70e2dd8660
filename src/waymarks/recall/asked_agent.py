"""A question asking who does a thing to something, and a record saying what it does.

"Who owns billing?" asks for whoever owns billing: "Maria Santos owns the billing service."
answers it, "Billing owns the Stripe webhook." does not, though both hold "own" and
"billing" (it answers "what does billing own?"). A question led by "who" and a verb of
owning (:func:`agent_asked`: "owns", "maintains", "who should I ask about", not "who is"
nor "who deploys") names what is owned; a record holding that verb with every word of it
before the verb and none after, in the active voice (no "by": "Billing is owned by the
money team." names the owner), says what that thing owns, not who owns it
(:func:`says_its_doing`).

"What does the mailer send through?" asks what the mailer does (:func:`doer_asked`: "what
does", then the thing in one or two words, then the verb and at most a preposition):
"Password resets … send mail through the mailer." holds "send" and "mailer" too, but
with the mailer after the verb
and none before, it says what is done through the mailer (:func:`says_done_to_it`; a
passive, "by the mailer", still names the mailer doing it).

Read from the question's and the record's text when it is scored, as an asked time is
(:mod:`waymarks.recall.asked_time`); records are not re-indexed for it.
"""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.analysis import fold, owner_asked, word_feature, word_order

#: "who" and the verb right after it; the verb's object is the rest of the question
_WHO_VERB: Final = lazy(r"^\W*who\s+([a-z]+)\b([^?]*)")
#: the words after "who" that are no verb done to a thing ("who is", "who should I ask")
_NOT_A_DOING: Final = frozenset(
    """
    is are was were be been am do does did has have had should would could can will may
    might must shall else knows s
    """.split())
_BY: Final = lazy(r"\bby\b")
#: the one verb read so: owning takes what is owned ("X owns" always says what X owns),
#: while the verbs of software work that a thing does by itself ("Search deploys every
#: Tuesday", "The analytics ETL runs hourly") answer "who deploys search?" as they are
OWNING: Final = "c:owner"


def agent_asked(folded: str) -> tuple[str, ...]:
    """The verb's feature and those of what it is done to, of a folded question asking
    who does it ("who owns billing?": ``("c:owner", "w:bill")``), else ``()``."""
    if "who" not in folded:
        return ()
    match = _WHO_VERB.match(owner_asked(folded))
    if match is None or match.group(1) in _NOT_A_DOING:
        return ()
    verb = word_order(match.group(1))
    done_to = word_order(match.group(2))
    if verb != (OWNING,) or not done_to:
        return ()
    return (OWNING, *dict.fromkeys(done_to))


def says_its_doing(asked: tuple[str, ...], text: str) -> bool:
    """Whether the record says what the thing asked about does rather than who does it to
    that thing: the verb of ``asked`` (:func:`agent_asked`) with a word of its object before
    it, none after, and no "by" (a passive's agent)."""
    verb, done_to = asked[0], frozenset(asked[1:])
    order = word_order(text)
    if verb not in order:
        return False
    at = order.index(verb)
    return (any(f in done_to for f in order[:at]) and not any(f in done_to for f in order[at:])
            and _BY.search(fold(text)) is None)


#: "what does X VERB (preposition)?": the thing (one or two words), then its verb last
_WHAT_DOES: Final = lazy(
    r"^\W*what\s+(?:does|do|did)\s+((?:the\s+)?[^\s?]+(?:\s+[^\s?]+)??)\s+([a-z]+)"
    r"(?:\s+(?:through|to|with|via|on|from|into|for|at))?\s*\?*\s*$")
#: a passive's agent, kept in a word order as a word of its own
_BY_MARK: Final = "w:byagent"


def doer_asked(folded: str) -> tuple[str, ...]:
    """The verb's feature and the thing's, of a folded question asking what the thing
    does ("what does the mailer send through?": ``("w:send", "w:mailer")``), else ``()``.
    A question without the words the expression spells ("what", then "do", "does" or
    "did") is answered without it: it is compiled only for one that may match (~0.2 ms,
    a one-shot recall's own)."""
    if "what" not in folded or ("do" not in folded and "did" not in folded):
        return ()
    match = _WHAT_DOES.match(folded)
    if match is None:
        return ()
    verb = word_feature(match.group(2))
    doer = word_order(match.group(1))
    if verb is None or not doer or verb in doer:
        return ()
    return (verb, *dict.fromkeys(doer))


def says_done_to_it(asked: tuple[str, ...], text: str) -> bool:
    """Whether the record holds the verb of ``asked`` (:func:`doer_asked`) with the thing
    only after it and not as a passive's agent ("by the mailer"): something else doing it
    to or through the thing."""
    verb, doer = asked[0], frozenset(asked[1:])
    order = word_order(_BY.sub(" byagent ", fold(text)))
    if verb not in order:
        return False
    at = order.index(verb)
    after = [i for i, f in enumerate(order) if f in doer and i > at]
    return (bool(after) and not any(f in doer for f in order[:at])
            and order[after[0] - 1] != _BY_MARK)
