"""Which values a claim denies (:mod:`waymarks.core.contradiction` reads them): a value
after a negation in its clause ("is not 5432", "不是 5432"), a value said to have held
once ("used to be 5432", "was 5432 until …") and the value a change started from
("changed from 5432 to 5433"). A signature keeps a denied value beside the values the
claim states, marked denied: two claims sharing it agree only when both deny it or
neither does. Pure."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_change_verbs import CHANGE_FORMS, CHANGE_STEMS
from waymarks.core.lazy_re import lazy
from waymarks.core.model import MAX_CLAIM_CHARS

#: the auxiliaries a negation is glued to ("doesn't listen", "won't be enabled"; typed
#: without the apostrophe too, "doesnt", "isnt": no English word ends so); their stems
#: and those words are no subject terms of a signature, as "isn" of "isn't" was one
NOT_AUXILIARIES: Final = (
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "should", "could",
    "would", "must", "need")
_NEGATING: Final = (
    rf"\b(?:not|never|no longer|cannot|can't|won't|(?:{'|'.join(NOT_AUXILIARIES)})n't|is no)\b"
    # without the apostrophe, a word of its own only: not the `dont` of `--dont-ask`,
    # `dont-retry` or `didnt.md` (an identifier, a file)
    rf"|(?<![\w./-])(?:{'|'.join(NOT_AUXILIARIES)})nt(?![\w./-])"
    r"|不是|没有|未|不")
NEGATION: Final = lazy(_NEGATING)
#: an action denied outright ("The importer does not retry failed rows.", "… never
#: retries …", "… won't retry …"): done no times, the count 0 of "retries failed rows 3
#: times" (a negation of no value, it stated nothing, and both were written); a copula's
#: negation ("is not public") denies a word, no action
_NEVER_DONE: Final = lazy(
    r"^[^.;:,!?。]*?\b(?:(?:do|does|did|will|would|can)(?: not|n't)|don't|doesn't|didn't"
    r"|won't|cannot|can't|never|no longer)(?: ever)? (?!(?:be|been|have|has|had|a|an|the)\b)"
    r"([a-z]{3,})\b")
#: what follows a Chinese negation of a copula or a modal, no action (read by
#: :mod:`waymarks.core.claim_negations` too)
HAN_NO_ACTION: Final = r"(?!是|为|能|要|用|可|需|必|应|该|得|会)"
#: the same in Chinese ("导入器不重试失败的行。", "从不", "不再", "不会"): the negation and the
#: verb's first characters, in the first clause; a copula (不是) or a modal (不能, 不要, 不用,
#: 不可) denies no action, nor a verb of no subject word (使用, 采用, 运行, 设置)
_HAN_NEVER_DONE: Final = lazy(
    rf"^[^.;:,!?。，；]*?(?:从不|不再|不会|没有|不){HAN_NO_ACTION}([\u4e00-\u9fff]{{2}})")
#: a value said to have held once ("used to be 5432", "previously 5432", "以前是 5432"):
#: it denies the value now, as a negation does (kept as a value, it was refused beside
#: the value that replaced it: the history of a fact, not another one)
_FORMER: Final = r"\bused to\b|\bpreviously\b|\bformerly\b|以前|之前|原来|曾经"
#: a negation earlier in a value's clause, with no contrast after it, denies the value
#: ("is not 5432", "must never be set to 5432", "8080, not 8000 or 9000", "不是 5433"; but
#: "is not 5432 but 5433" asserts 5433)
DENIES: Final = lazy(
    rf"(?:{_NEGATING}|{_FORMER})(?:(?!\b(?:but|instead|rather)\b|而是|但).)*$")
#: what each negation and former time of :data:`DENIES` holds ("cannot" holds "can", "is
#: no" "no", an auxiliary's "n't" or "nt"): a clause without any is denied by none, and
#: DENIES, tried at each of its characters, is not tried (a literal alternation is skipped
#: through by its first characters)
_DENIAL_HINT: Final = lazy(
    r"no|nt|n't|never|can|used to|previously|formerly|不|没有|未|以前|之前|原来|曾经")
#: a value stated as held before, up to a time ("was 5432 until the migration", "was
#: 5432 before 2025-01-10"): no longer held, as "used to be 5432" (:data:`_FORMER`); not
#: a change made then ("was changed to 5433 before the release" holds now)
_HELD_UNTIL: Final = lazy(r"\b(?:was|were)(?: (?:on|at|in))? ?$")
#: a value in an aside of what it was ("is 3 (was 5)", "is 3 (were 5)") or what it changed
#: from ("is 512 MB (up from 256 MB)", "(down from 12)", "(raised from 30s)"): no longer
#: held (kept as a value, the old one agreed with a claim of it); so too an aside after a
#: comma or a semicolon that starts so ("is 512 MB, down from 1 GB", "…; it was 30s"),
#: though not a bare "from" there ("forwards to 8080, from port 80" names where from)
_CHANGED_BY: Final = (
    r"(?:up|down|raised|lowered|increased|decreased|reduced|bumped|changed|moved)")
_WAS_ASIDE: Final = lazy(rf"\((?:was|were|(?:{_CHANGED_BY} )?from) ?$")
_ASIDE_CLAUSE: Final = lazy(rf" ?(?:(?:it|that) )?(?:was|were|{_CHANGED_BY} from) ?$")
_UNTIL_AFTER: Final = lazy(r"[^.;,!?。]*?\b(?:until|till|before)\b")
#: a value a change started from ("changed from 5432 to 5433", "went from 30s to 60s",
#: "moved from port 5432 to port 5433", "从 5432 改为 5433"): no longer held, as "used to
#: be 5432"; the claim states its new value (kept as a value too, the old one agreed with
#: a claim of it, and the change was kept beside the fact it replaced); "forwarded from
#: port 80 to 8080" is no change
_CHANGED_FROM: Final = lazy(
    r"\b(?:change[ds]?|move[ds]?|bumped|upgraded|downgraded|switched|migrated|went|goes"
    r"|increased|decreased|raised|lowered|reduced|updated|dropped|grew|renamed)\b"
    r"(?:(?!\bto\b).)*\bfrom (?:[a-z][a-z0-9-]* )?$|(?:从|由) ?$")
_CHANGED_TO: Final = lazy(
    r" ?(?:to\b|->|→|改为|改成|变为|变成|换成|调整为|升级到|升级为|降到|降为)")
#: where a clause ends (read backwards from a value: a sentence end, a colon or a comma)
_CLAUSE_END: Final = lazy(r" [.;:,!?]|[;:,!?。]")


#: a negation right after what it denies, as Japanese and Korean write one: a negative
#: copula ("5432ではありません", "5432ではなく5433", "有効じゃない", "5432가 아닙니다", "5432가
#: 아니라 5433") or a state's negative ending ("有効になっていません", "無効にしない",
#: "활성화되어 있지 않습니다", "활성화되지 않았습니다"); one later in the clause is another
#: verb's ("有効で変更しないでください": enabled, do not change it)
_DENIED_AFTER: Final = lazy(
    r" ?(?:[이가은는] ?)?아[니닌닙]| ?(?:では|じゃ|でも)(?:な|あり)"
    r"|[にと](?:なって|して|し|なら|なり)?い?(?:ない|なく|ません)"
    r"|(?:되어|돼) ?있지 ?않|[되하]지 ?않")


def denied_after(text: str, end: int) -> bool:
    """Whether a negation right after ``end`` denies what ends there
    (:data:`_DENIED_AFTER`; never in an ASCII text, where it is not tried)."""
    after = text[end:end + 2].lstrip(" ")[:1]
    return after in _DENIED_AFTER_FIRST and _DENIED_AFTER.match(text, end) is not None


#: the characters :data:`_DENIED_AFTER` may start with after its space (any other: no
#: expression tried, as for every value of an ASCII text)
_DENIED_AFTER_FIRST: Final = frozenset("이가은는아でじにと되돼하")


def is_denied(text: str, start: int, end: int) -> bool:
    """Whether the value at ``start:end`` is denied: a negation or a former time before it
    in its clause, a Japanese or Korean negation after it (:func:`denied_after`), "(was"
    or "(up from" right before it (or starting its aside after a comma: ", down from"),
    "was" before it and "until" or "before" after it, or a
    change from it to another (:data:`_CHANGED_FROM`)."""
    before = clause_before(text, start)
    return (_DENIAL_HINT.search(before) is not None and DENIES.search(before) is not None) or (
        denied_after(text, end)) or (
        "(" in before and _WAS_ASIDE.search(before) is not None) or (
        _ASIDE_CLAUSE.match(before) is not None) or (
        _HELD_UNTIL.search(before) is not None and _UNTIL_AFTER.match(text, end) is not None
    ) or (("from" in before or not before.isascii())
          and _CHANGED_FROM.search(before) is not None
          and _CHANGED_TO.match(text, end) is not None)


def changed_from(text: str, start: int) -> bool:
    """Whether a value at ``start`` follows the "from" of a change ("moved from …")."""
    return _CHANGED_FROM.search(clause_before(text, start)) is not None


def clause_before(text: str, start: int) -> str:
    """The text of the clause that ``start`` is in, up to ``start``, and no more than
    :data:`_LONGEST_CLAUSE` characters of it: read backwards from ``start`` in windows that
    double. Reversing all the text before each value made a long text's values quadratic
    (100 KB of names of a kind, :func:`waymarks.core.claim_kinds.kind_values`: 919 ms)."""
    if start <= _FIRST_WINDOW:  # (a claim's values: all the text before, as before)
        found = _CLAUSE_END.search(text[:start][::-1])
        return text[start - found.start():start] if found else text[:start]
    width = _FIRST_WINDOW
    while True:
        begin = max(0, start - width, start - _LONGEST_CLAUSE)
        found = _CLAUSE_END.search(text[begin:start][::-1])
        if found is not None:  # (one cut at the window's edge is no match: read wider)
            return text[start - found.start():start]
        if begin == 0 or begin == start - _LONGEST_CLAUSE:
            return text[begin:start]
        width *= 2


#: the longest clause read before a value: longer than any text signed (a claim a write
#: accepts, :data:`~waymarks.core.model.MAX_CLAIM_CHARS`, its durations and numbers in
#: words written out), so a bound only on text no signature reads
_LONGEST_CLAUSE: Final = 4 * MAX_CLAIM_CHARS
_FIRST_WINDOW: Final = 256


#: the verbs of a change ("The timeout went from 30s to 60s.", "… was raised to 200."): no
#: subject words as verbs (one made the subject narrower, so the change passed as another
#: fact), but before a noun a word of the subject ("Migrated users number 1500.", "The
#: reduced timeout is 10 seconds.": a narrower thing than the users, the timeout)
CHANGE_WORDS: Final = frozenset(
    """
    went goes bumped upgraded downgraded migrated increased decreased raised lowered reduced
    updated dropped grew renamed moves
    """.split()) | CHANGE_FORMS  # (every form of each verb: core/claim_change_verbs.py)
#: the word after a change word, and "from" or "to" after it or after one more word (its
#: object: "Bumped Node to 22.", "Increase worker count to 8"), or, after an imperative
#: starting the claim, the clause's end (the values after the object are blanked: "Switch
#: CI from CircleCI to GitHub Actions")
_AFTER_CHANGE_WORD: Final = lazy(
    r" *([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(?:(?: +[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)??"
    r"(?: +(from|to)\b|(?P<end>  +(?:[.;:,!?]|$)|$)))?")


def is_change_verb(text: str, end: int, stop: frozenset[str], start: int = -1) -> bool:
    """Whether the word of :data:`CHANGE_WORDS` ending at ``end`` is a verb: no word of a
    subject follows it (a word of ``stop``, "from", "to", a value, the clause's end), or
    its object does (one word or two), then "from" or "to" ("Bumped Node to 22.",
    "Increase worker count to 8"); an adjective's noun is followed by its verb
    ("Upgraded nodes run kernel 6.1."); after a determiner it is a noun ("the update
    window", :func:`waymarks.core.claim_words.subject_terms`). An imperative starting the
    claim (its verb's stem at ``start`` 0: a commit's or ticket's subject) is one before
    its object and the clause's end too ("Switch CI from CircleCI to GitHub Actions"); a
    participle there is an adjective ("Migrated users number 1500.")."""
    after = _AFTER_CHANGE_WORD.match(text, end)
    if after is None or after.group(1) in stop:
        return True
    if after.group("end") is not None:
        return start == 0 and text[:end] in CHANGE_STEMS
    return after.end() > after.end(1)


#: a claim that its subject is not made into parts by a verb, the participle ending it
#: ("The search index is not sharded.", "… isn't partitioned."): it is one such part, the
#: count 1 of what the verb makes ("has 5 shards" contradicts it); the verb's stem, its
#: doubled consonant single ("planned": plan)
_NOT_MADE: Final = lazy(r"^[^.;:,!?]*? (?:is|are)(?: not|n't) ([a-z]{3,}?)(?:([bdglmnprt])\2)?ed$")


def not_made(text: str) -> str | None:
    """``text`` (folded, in lower case, its full stop blanked or gone) with the participle
    of a claim that its subject is not made into parts (:data:`_NOT_MADE`) as its stem, a
    word of the subject as the noun of the parts is ("shard" of "shards"), or ``None``."""
    found = _NOT_MADE.match(text.rstrip(" ."))
    if found is None:
        return None
    return text[:found.start(1)] + found.group(1) + (found.group(2) or "") + " " + text[
        found.end():]


def never_done(text: str, stop: frozenset[str]) -> bool:
    """Whether the first clause of ``text`` (folded, in lower case) denies an action
    outright (:data:`_NEVER_DONE`): a claim that states no value then states it done no
    times. Not when the verb is a word of ``stop`` (no subject word: "use", "run", "set"):
    "doesn't use the default port" denies which port, no count of uses (read as the count
    0, it was refused beside "The gateway listens on port 8443.")."""
    found = _NEVER_DONE.search(text)
    if found is None and not text.isascii():
        found = _HAN_NEVER_DONE.search(text)
    return found is not None and found.group(1) not in stop
