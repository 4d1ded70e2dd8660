"""curl's cookie flag (``-b 'sessionid=…; csrftoken=…'``, ``--cookie``): Chrome's and
Edge's "Copy as cURL" put a request's cookies there (no longer in a ``Cookie:`` header),
and a session's cookie went to the model in clear, and a pin holding it was stored, where
``-H 'Cookie: …'`` was redacted. The flag's value is judged as that header's (a cookie
that looks like a secret goes, whole); a cookie jar's file name and plain settings stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import credential_kinds, redact

SID = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"curl 'https://app.example.com/api/me' \\\n  -H 'accept: */*' \\\n"
     f"  -b 'theme=dark; sessionid={SID}; csrftoken=abc' \\\n  -H 'user-agent: Mozilla/5.0'",
     "curl 'https://app.example.com/api/me' \\\n  -H 'accept: */*' \\\n"
     "  -b '[REDACTED:cookie]' \\\n  -H 'user-agent: Mozilla/5.0'"),
    (f'curl --cookie "session={SID}" https://x', 'curl --cookie "[REDACTED:cookie]" https://x'),
    (f"curl -s -b sid={SID} https://x", "curl -s -b [REDACTED:cookie] https://x"),
]

UNCHANGED: list[str] = [
    "curl -b cookies.txt -c cookies.txt https://x",  # a cookie jar
    "curl -b 'theme=dark; lang=en' https://x",
    "curl --cookie-jar jar.txt https://x",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_session_cookie_is_redacted(text: str, kept: str) -> None:
    assert might_contain_secret(text)
    assert redact(text) == (kept, 1)
    assert credential_kinds(text) == ["cookie"]


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_jar_or_settings_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"repro: curl -b 'sessionid={SID}' https://x", SID)
