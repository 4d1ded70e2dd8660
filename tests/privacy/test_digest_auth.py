"""HTTP Digest authentication (RFC 7616): ``Authorization: Digest username="u", realm=…,
nonce=…, uri=…, response="<hex>"``, as ``curl -v --digest`` and a HAR file show it. The
response is a hash of the password with the nonce: with the header's other fields it lets
anyone test guesses of the password offline (a weak one falls to a dictionary) and replay
the request while the nonce lasts, so it is treated as a credential and went out in clear.
The response alone goes: the user, realm, nonce and URI name, they do not open."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

RESPONSE = "6629fae49393a05397450978507c4ef1"
HEAD = ('Digest username="Mufasa", realm="testrealm@host.com", '
        'nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", qop=auth, '
        'nc=00000001, cnonce="0a4f113b", ')

CASES: list[tuple[str, str]] = [
    (f'Authorization: {HEAD}response="{RESPONSE}", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
     f'Authorization: {HEAD}response="[REDACTED:secret]", '
     'opaque="5ccc069c403ebaf9f0171e9517f40e41"'),
    (f"> Proxy-Authorization: {HEAD}response={RESPONSE}\n> Host: example.com",
     f"> Proxy-Authorization: {HEAD}response=[REDACTED:secret]\n> Host: example.com"),
    # a HAR file's JSON escapes the quotes; SHA-256 makes a response of 64 hex digits
    ('{"name": "Authorization", "value": "Digest username=\\"u\\", realm=\\"r\\", '
     f'response=\\"{RESPONSE * 2}\\""}}',
     '{"name": "Authorization", "value": "Digest username=\\"u\\", realm=\\"r\\", '
     'response=\\"[REDACTED:secret]\\""}'),
]

UNCHANGED: list[str] = [
    # the server's challenge holds no response
    'WWW-Authenticate: Digest realm="testrealm@host.com", qop="auth", '
    'nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093"',
    'Authorization: Digest username="u", response="<response>"',
    "the digest response= field is an MD5 of the password, nonce and request",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_response_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_challenge_or_placeholder_stays(text: str) -> None:
    assert redact(text) == (text, 0)
