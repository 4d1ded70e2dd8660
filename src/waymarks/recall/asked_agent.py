"""A question asking who does a thing to something, and a record saying what it does.

"Who owns billing?" asks for whoever owns billing: "Maria Santos owns the billing service."
answers it, "Billing owns the Stripe webhook." does not, though both hold "own" and
"billing" (it answers "what does billing own?"). A question led by "who" and a verb of
owning (:func:`agent_asked`: "owns", "maintains", "who should I ask about", not "who is"
nor "who deploys") names what is owned; a record holding that verb with every word of it
before the verb and none after, in the active voice (no "by": "Billing is owned by the
money team." names the owner), says what that thing owns, not who owns it
(:func:`says_its_doing`).

Read from the question's and the record's text when it is scored, as an asked time is
(:mod:`waymarks.recall.asked_time`); records are not re-indexed for it.
"""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.analysis import fold, owner_asked, word_order

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


def agent_asked(text: str) -> tuple[str, ...]:
    """The verb's feature and those of what it is done to, of a question asking who does
    it ("who owns billing?": ``("c:owner", "w:bill")``), else ``()``."""
    folded = fold(text)
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
