"""A password whose first character is glued to a ``(`` (``PASSWORD=a(Xk9mQ2pL7vR3)``,
as a generator with symbols writes one): a bare value's head before ``(`` had to be 2-3
characters to be read at all (docs/privacy.md's "known limit"), so it went to the model in clear,
and a pin holding it was stored. Read now from one character, told from a call as the
longer heads are (``f(x)``, gettext's ``_("…")``, ``p(args.pw)`` stay)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"

CASES: list[tuple[str, str]] = [
    (f"PASSWORD=a({PW})", "PASSWORD=[REDACTED:secret]"),
    (f"db_password = x({PW})!", "db_password = [REDACTED:secret]"),
    (f"--token Q({PW})", "--token [REDACTED:secret]"),
]

UNCHANGED: list[str] = [
    "token = f(x)",
    'secret = _("Enter your secret")',
    "password=p(args.pw)",
    "api_key = k(config)",
    "secret_key = b(os.urandom(32))",
    "PASSWORD=$(pass show db)",
]


#: a call whose result is called, indexed or chained again (curried code, minified
#: JavaScript's one-letter names): the ``(``, ``[`` or ``?.`` after its argument list
#: made it no call, and the head, its arguments and what followed were redacted
CHAINED: list[str] = [
    "token = f(x)(y)",
    "{token:n(r)(e),secret:a(o)[0]}",
    "const token = t(e)?.value;",
    "auth_token = get(cfg)(env)",
    "password = fn(x)[1]",
]


@pytest.mark.parametrize("text", CHAINED)
def test_a_call_chained_on_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_password_glued_on_is_still_read() -> None:
    for glued in (f"PASSWORD=a({PW})({PW})", f"PASSWORD=a({PW})[x]"):
        assert redact(glued)[1] == 1 and PW not in redact(glued)[0], glued


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_one_character_head_is_read(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_calls_and_references_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI stored it (exit 0): refused now, the value not echoed."""
    assert_pin_refused(tmp_path, f".env: PASSWORD=a({PW})", PW)
