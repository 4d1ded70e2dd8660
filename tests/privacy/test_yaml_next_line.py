"""A YAML key named for a credential with its plain value on the next line, indented
(``password:⏎    Xk9m…``: YAML reads the indented line as the key's value, and a
hand-kept values file or a wrapped one holds it so): the value went to the model in
clear, and a pin holding it was stored, where the same value on the key's line went.

Held apart, as ruled before (tests/privacy/test_secrets.py, "the naming word is on
another line"): a heading, one capitalised word (``Credentials:``, ``Password:``), is
prose introducing what follows, not a key; and a value not alone on its line, or not
indented past its key, is not the key's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"

CASES: list[tuple[str, str]] = [
    (f"database:\n  password:\n    {PW}\n", "database:\n  password:\n    [REDACTED:secret]\n"),
    (f"db_password:\n  {PW}", "db_password:\n  [REDACTED:secret]"),
    (f"spring:\n  datasource:\n    apiKey:\r\n      {PW}  # rotated\n",
     "spring:\n  datasource:\n    apiKey:\r\n      [REDACTED:secret]  # rotated\n"),
    ("POSTGRES_PASSWORD:\n  postgres\n", "POSTGRES_PASSWORD:\n  [REDACTED:secret]\n"),
    (f"- token:\n    '{PW}'", "- token:\n    '[REDACTED:secret]'"),
]

UNCHANGED: list[str] = [
    "Credentials:\n  wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",  # the ruling's heading
    f"Password:\n  {PW}\n",
    f"password:\n{PW}\n",  # not indented past its key: another key, or prose
    f"password:\n  {PW} is what the old server used\n",  # not alone on its line
    "password:\n  hash: argon2id\n  salt: 16\n",  # a mapping under the key
    "password:\n  - one\n  - two\n",
    "token:\n  ${API_TOKEN}\n",
    "the api token:\n    Xk9mQ2pL7vR3tY8w\n",  # a sentence, the name not starting its line
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_plain_value_on_the_next_line_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_heading_and_what_is_no_value_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"values.yaml:\n  password:\n    {PW}", PW)
