"""The parts of a claim's signature (:mod:`waymarks.core.contradiction`) made cheaper give
the answers the plain forms give: each shortcut is checked against the form it stands
for, on the shapes claims take and on random character soup."""

from __future__ import annotations

import random
import re

from waymarks.core import claim_denials, contradiction
from waymarks.core.claim_values import unhan

#: texts where a value starts in an unusual place: inside a word (an IPv6 address in
#: brackets), after a Chinese character, a cron line of symbols only, a value at the end
_SHAPES = (
    "host[::1]:8080 is up", "数据库端口是5432。", "- - - - *", "*/5 * * * * runs it",
    "the image is python:3.12-slim.", "ports 8000-8010", "at 02:00-04:00", "x=5", "v3.2",
    "/srv/données/app", "~/.config/x.toml", "./a/b", "ホストはdb.internalです", "is ::1",
    "2001:db8::10 and fe80::1", "1,500 tests", "us-east-1", "redis://cache:6379/0",
    "listens on 0.0.0.0:8080, not 8000", "1h30m", "50%", "٣ and ５ are digits",
)


def test_the_value_start_guard_finds_the_values_the_alternatives_find() -> None:
    """:data:`contradiction._VALUE_START` only skips places no alternative of
    :data:`contradiction._VALUE` matches at (a value's every match, start and groups, is
    the same as without it), as written and with the word class (:func:`unhan`)."""
    rng = random.Random(5)
    soup = "abfxyz09 .,:;-/_*[]()~@+%=是为数ポ포é\u2019'"
    texts = [*_SHAPES, *("".join(rng.choices(soup, k=rng.randint(1, 40)))
                         for _ in range(4000))]
    for written in (contradiction._VALUE.source, unhan(contradiction._VALUE.source)):
        guarded = re.compile(written)
        plain = re.compile(written.removeprefix(contradiction._VALUE_START))
        assert plain.pattern != guarded.pattern
        for text in texts:
            assert [(m.span(), m.groupdict()) for m in guarded.finditer(text)] == [
                (m.span(), m.groupdict()) for m in plain.finditer(text)], text


def test_a_letter_name_is_found_where_it_was_before_the_capital_came_first() -> None:
    """:data:`contradiction._LETTER_NAME` tests for a capital before its look-behinds."""
    guarded = contradiction._LETTER_NAME.pattern
    assert guarded.startswith("(?=[A-Z])(?:") and guarded.endswith(")")
    plain = re.compile(guarded.removeprefix("(?=[A-Z])(?:")[:-1])
    rng = random.Random(6)
    texts = ["Service A is up", "A 服务", "B服务", "Aサービス", "Plan B.", "x A' y",
             *("".join(rng.choices("aAbBZ 服サ서)'-.", k=rng.randint(1, 30)))
               for _ in range(4000))]
    for text in texts:
        assert [m.span() for m in re.compile(guarded).finditer(text)] == [
            m.span() for m in plain.finditer(text)], text


def test_every_clause_a_negation_or_former_time_denies_in_holds_the_denial_hint() -> None:
    """:data:`claim_denials._DENIAL_HINT` is found wherever
    :data:`claim_denials.DENIES` is (is_denied tries the second only then)."""
    words = ["is", "not", "never", "no", "longer", "cannot", "can't", "won't", "isn't",
             "doesnt", "needn't", "is no", "used", "to", "previously", "formerly", "but",
             "5432", "port", "不是", "没有", "未", "不", "以前", "之前", "原来", "曾经", "而是",
             "--dont-ask", "(", ",", "."]
    words += [aux + end for aux in claim_denials.NOT_AUXILIARIES for end in ("n't", "nt")]
    rng = random.Random(7)
    denied = 0
    for _ in range(6000):
        clause = rng.choice(("", " ")).join(rng.choices(words, k=rng.randint(1, 6)))
        if claim_denials.DENIES.search(clause) is not None:
            denied += 1
            assert claim_denials._DENIAL_HINT.search(clause) is not None, clause
    assert denied > 1000  # (the clauses tried hold denials)
