"""A JSON value on the line after its credential-named key (``"password":⏎  "…"``, as a
formatter that wraps long lines writes it, or a hand-kept config): the assignment's
separator was read only before a value on its own line, so it went to the model in
clear, and a pin holding it was stored. Judged as the same value on the key's line is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"

CASES: list[tuple[str, str]] = [
    (f'{{\n  "password":\n    "{PW}"\n}}', '{\n  "password":\n    "[REDACTED:secret]"\n}'),
    (f'{{"db_password":\r\n\t"{PW}", "port": 5432}}',
     '{"db_password":\r\n\t"[REDACTED:secret]", "port": 5432}'),
    (f"{{'api_key':\n  '{PW}'}}", "{'api_key':\n  '[REDACTED:secret]'}"),
    # the separator on the value's line (a formatter breaking before it), a blank line
    # between key and value, and PHP's array arrow ending the key's line
    (f'{{\n  "password"\n    : "{PW}"\n}}', '{\n  "password"\n    : "[REDACTED:secret]"\n}'),
    (f'{{\n  "password":\n\n    "{PW}"\n}}', '{\n  "password":\n\n    "[REDACTED:secret]"\n}'),
    (f"return [\n    'password' =>\n        '{PW}',\n];",
     "return [\n    'password' =>\n        '[REDACTED:secret]',\n];"),
    (f"$db = ['db_password'=>\r\n\t\"{PW}\"];",
     "$db = ['db_password'=>\r\n\t\"[REDACTED:secret]\"];"),
]

UNCHANGED: list[str] = [
    '{"password":\n  null}',
    '{"password":\n  "${DB_PASSWORD}"}',
    '{"password":\n  ""}',
    '{"token":\n  {"ttl": 3600}}',
    "'password' =>\n    env('DB_PASSWORD'),",  # a reference, on the next line as on one
    '{"password"\n  : null}',
    '"password":\n\n\n\n  "written after three blank lines: another thing"',
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_value_on_the_next_line_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_what_is_no_value_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI stored it (exit 0): refused now, the value not echoed."""
    assert_pin_refused(tmp_path, f'config: {{"password":\n  "{PW}"}}', PW)
