"""A password given to an HTTP client in Python code: requests' ``auth=('admin', '…')``
(httpx's alike, Elasticsearch's ``basic_auth=(…)``) and ``HTTPBasicAuth('admin', '…')``
(``HTTPDigestAuth``, ``HTTPProxyAuth``, aiohttp's ``BasicAuth``): the password went to the
model in clear, and a pin holding it was stored. Its name is no assignment's, the second
string of a pair. A variable, a call, a reference and a placeholder stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"r = requests.get(url, auth=('admin', '{PW}'))",
     "r = requests.get(url, auth=('admin', '[REDACTED:secret]'))"),
    (f'session.auth = HTTPBasicAuth("admin", "{PW}")',
     'session.auth = HTTPBasicAuth("admin", "[REDACTED:secret]")'),
    ("requests.get(url, auth=HTTPDigestAuth('ops', 'hunter22'))",
     "requests.get(url, auth=HTTPDigestAuth('ops', '[REDACTED:secret]'))"),
    (f"es = Elasticsearch(hosts, basic_auth=(\n    'elastic',\n    '{PW}',\n))",
     "es = Elasticsearch(hosts, basic_auth=(\n    'elastic',\n    '[REDACTED:secret]',\n))"),
    # a session's attribute (``session.auth = (…)``, as requests' docs set it)
    (f"session.auth = ('admin', '{PW}')", "session.auth = ('admin', '[REDACTED:secret]')"),
    (f"aiohttp.BasicAuth(login='app', password='{PW}')",
     "aiohttp.BasicAuth(login='app', password='[REDACTED:secret]')"),
]

UNCHANGED: list[str] = [
    "requests.get(url, auth=('admin', password))",
    "requests.get(url, auth=(user, os.environ['API_PASSWORD']))",
    "HTTPBasicAuth('admin', '${ADMIN_PASSWORD}')",
    "HTTPBasicAuth('user', '<password>')",
    "requests.get(url, auth=('admin', ''))",
    "oauth=('a', 'b') is not how OAuth works",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_password_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_variable_or_reference_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"api: requests.get(url, auth=('admin', '{PW}'))", PW)
