"""A HAR file's (a browser's "Save all as HAR", a proxy's export) ``Authorization`` header
is an object, ``{"name": "Authorization", "value": "…"}``: a raw key as the header
(``"value": "Xk9v…"``), or GitHub's ``token …`` scheme, went to the model in clear and a pin
holding it was stored, though the same header written ``Authorization: …`` was redacted
(a Bearer or Basic one was too: its scheme names it). Read as a HAR file's Cookie header
is, the header's name, a comma, then ``"value"``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secrets import redact

KEY = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    ('{"name": "Authorization", "value": "' + KEY + '"}',
     '{"name": "Authorization", "value": "[REDACTED:auth-token]"}'),
    ('"headers": [\n  {\n    "name": "authorization",\n    "value": "' + KEY + '"\n  }\n]',
     '"headers": [\n  {\n    "name": "authorization",\n    "value": "[REDACTED:auth-token]"\n'
     '  }\n]'),
    ('{"name": "Authorization", "value": "token ' + KEY + '"}',
     '{"name": "Authorization", "value": "token [REDACTED:auth-token]"}'),
    ('{"name": "Proxy-Authorization", "value": "' + KEY + '"}',
     '{"name": "Proxy-Authorization", "value": "[REDACTED:auth-token]"}'),
]

UNCHANGED: list[str] = [
    '{"name": "Authorization", "value": "Negotiate"}',
    '{"name": "authorization", "value": "required for every call"}',
    '{"name": "Accept", "value": "application/json"}',
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_header_s_key_is_redacted(text: str, kept: str) -> None:
    assert redact(text) == (kept, 1)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_header_holding_no_key_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, '{"name": "Authorization", "value": "' + KEY + '"}', KEY)
