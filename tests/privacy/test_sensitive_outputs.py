"""``terraform output -json`` prints a sensitive output's value in clear beside
``"sensitive": true`` (``terraform output`` alone shows ``<sensitive>``; the JSON form is
what scripts and CI logs hold): the value went to the model in clear, and a pin holding it
was stored, when its output's name said nothing a rule reads (``"db_password"`` is an
object's key there, its value under ``"value"``). Terraform's own mark decides: a string
value of an object marked sensitive goes, whatever its name; one not so marked stays."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f'{{\n  "db_password": {{\n    "sensitive": true,\n    "type": "string",\n'
     f'    "value": "{PW}"\n  }}\n}}',
     '{\n  "db_password": {\n    "sensitive": true,\n    "type": "string",\n'
     '    "value": "[REDACTED:secret]"\n  }\n}'),
    ('{"admin":{"sensitive":true,"type":"string","value":"hunter22"}}',
     '{"admin":{"sensitive":true,"type":"string","value":"[REDACTED:secret]"}}'),
    (f'{{"api": {{"value": "{PW}", "type": "string", "sensitive": true}}}}',
     '{"api": {"value": "[REDACTED:secret]", "type": "string", "sensitive": true}}'),
]

UNCHANGED: list[str] = [
    '{"region": {"sensitive": false, "type": "string", "value": "eu-west-1"}}',
    '{"db": {"sensitive": true, "type": ["object", {"host": "string"}], '
    '"value": {"host": "db.internal"}}}',  # an object: its strings are read as any are
    '{"api": {"sensitive": true, "type": "string", "value": ""}}',
    "the output is sensitive: true, and its value is shown as <sensitive>",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_sensitive_output_s_value_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_what_is_not_marked_or_no_string_stays(text: str) -> None:
    assert redact(text) == (text, 0)
