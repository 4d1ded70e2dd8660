"""An XML attribute with a line break around its ``=`` (``value=⏎"…"``, ``password⏎
="…"``), which XML allows (its ``Eq`` is spaces of any kind, ``=``, spaces), as a
formatter wrapping a long element writes it: the value went to the model in clear, and a
pin holding it was stored, where the same element on one line is redacted."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"

CASES: list[tuple[str, str]] = [
    (f'<add key="Password" value=\n"{PW}"/>', '<add key="Password" value=\n"[REDACTED:secret]"/>'),
    (f'<add key="Password"\n     value =\r\n   "{PW}"/>',
     '<add key="Password"\n     value =\r\n   "[REDACTED:secret]"/>'),
    (f'<add key=\n"ApiKey" value="{PW}"/>', '<add key=\n"ApiKey" value="[REDACTED:secret]"/>'),
    (f'<add value=\n"{PW}" key="Password"/>', '<add value=\n"[REDACTED:secret]" key="Password"/>'),
    (f'<connection password=\n"{PW}" />', '<connection password=\n"[REDACTED:secret]" />'),
    (f"<connection\n  db_password=\n    '{PW}'/>",
     "<connection\n  db_password=\n    '[REDACTED:secret]'/>"),
]

UNCHANGED: list[str] = [
    '<add key="Timeout" value=\n"30"/>',
    '<add key="Password" value=\n"${DB_PASSWORD}"/>',
    'password=\n\nThe next paragraph says "where the password is kept".',
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_value_past_a_line_break_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_what_is_no_credential_stays(text: str) -> None:
    assert redact(text) == (text, 0)
