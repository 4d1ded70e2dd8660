"""Text that only looks like a credential, redacted (and refused by ``memory add``) before:
each test failed before its fix. What a real credential beside it looks like still goes."""

from __future__ import annotations

import pytest

from waymarks.core.secrets import redact


@pytest.mark.parametrize("text", [
    "secret_v1 = SecretV1()",
    "token_v2 = TokenV2(config)",
    "api_key = ApiKey2024.load(path)",
    "self.password = Password8Hasher(rounds=12)",
    "password_hash = bcrypt2(pw)",
])
def test_a_call_assigned_to_a_credential_name_is_code(text: str) -> None:
    """``secret_v1 = SecretV1()`` assigns a constructor's result: the value ended at its
    ``(`` and, a word with a digit in it, was read as a password."""
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "secret_v1 = Xq9vT2mLp4Rz",
    "token = Xq9vT2mLp4Rz  # (rotated)",
    'password = "S3cr3t(x)"',
])
def test_a_value_beside_a_call_still_goes(text: str) -> None:
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4Rz" not in redacted and "S3cr3t" not in redacted


SESSION = "Xq9vT2mLp4RzAb12CdEf34"


@pytest.mark.parametrize("text", [
    "Cookie: _ga=GA1.2.1234567890.1700000000; _gid=GA1.2.987654321.1700000000",
    "curl -H 'Cookie: _ga=GA1.1.1234567890.1712345678; theme=dark' https://example.com",
    "Cookie: _fbp=fb.1.1700000000000.1234567890; _gcl_au=1.1.1234567890.1700000000",
])
def test_analytics_cookies_are_no_credential(text: str) -> None:
    """Google Analytics' ``_ga`` (``GA1.2.<client>.<time>``) and Facebook's ``_fbp`` count
    visits, and authorise nothing: a header holding only them went as ``[REDACTED:cookie]``
    and ``memory add`` refused a note about a tracking bug."""
    assert redact(text) == (text, 0)


def test_a_session_beside_analytics_cookies_still_goes() -> None:
    text = f"Cookie: _ga=GA1.2.1234567890.1700000000; session={SESSION}"
    redacted, count = redact(text)
    assert count == 1 and SESSION not in redacted and "[REDACTED:cookie]" in redacted


@pytest.mark.parametrize("text", [
    "The cache key is cache:1234:user:profile:abc123def456 in Redis.",
    "redis key user:12345:session:cart:a8f3c2d9e1b7 expired",
    "GET rate:60000:api:user:9f8e7d6c5b4a returned nil",
])
def test_a_cache_key_with_a_port_like_number_in_a_sentence_stays(text: str) -> None:
    """A key of five fields whose second is 4 or 5 digits (a user's or a shard's number) read
    as a .pgpass line, its last field a password: a .pgpass line in a sentence names a
    host (a dot, ``localhost``, an address, ``*``), stands at its line's start, or the text
    says pgpass."""
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "db:5432:app:admin:Xq9vT2mLp4Rz",
    "  pg:6432:orders:svc:Xq9vT2mLp4Rz",
    "add db:5432:app:admin:Xq9vT2mLp4Rz to your .pgpass",
    "use localhost:5433:app:admin:Xq9vT2mLp4Rz there",
    "use pg-1.internal:5433:app:admin:Xq9vT2mLp4Rz there",
])
def test_a_pgpass_line_still_goes(text: str) -> None:
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4Rz" not in redacted


@pytest.mark.parametrize(("text", "password"), [
    ("DB_PASSWORD=Xk9mQ2pL7(vR3)!", "Xk9mQ2pL7"),
    ("password: Tr0ub4dor(3)&x", "Tr0ub4dor"),
    ("export API_TOKEN=Summer2024(x)!", "Summer2024"),
    ("token = Xq9vT2mLp4Rz(ab)", "Xq9vT2mLp4Rz"),
    ("SECRET_KEY=Hunter2024(", "Hunter2024"),
])
def test_a_password_holding_a_parenthesis_is_no_call(text: str, password: str) -> None:
    """A generated password with ``(`` in it read as a call (the code's exemption): it
    went out whole where its head was redacted before. A call's parenthesis closes, with
    nothing glued after it, and the called name does not switch between letters and digits
    as a generated one does."""
    redacted, count = redact(text)
    assert count == 1 and password not in redacted


@pytest.mark.parametrize("text", [
    # Python's requests/urllib3 join a response's Set-Cookie headers with ", "
    f"set-cookie: _ga=GA1.2.1234567890.1700000000; Path=/; Expires=Wed, 21 Oct 2026 "
    f"07:28:00 GMT, sessionid={SESSION}; Path=/; HttpOnly",
    f"{{'set-cookie': 'csrftoken=abc; Path=/, sessionid={SESSION}; HttpOnly'}}",
    f"Cookie: _ga=GA1.2.1234567890.1700000000,sessionid={SESSION}",
])
def test_a_session_cookie_after_a_comma_still_goes(text: str) -> None:
    """Set-Cookie headers joined by a comma (as requests prints ``response.headers``): the
    session cookie after an attribute (``Path=/, sessionid=…``) was read as that
    attribute's value, and with the analytics cookie before it no longer a secret the
    header went out whole."""
    redacted, count = redact(text)
    assert count == 1 and SESSION not in redacted and "[REDACTED:cookie]" in redacted


def test_an_expiry_date_with_its_comma_is_no_cookie() -> None:
    text = "set-cookie: theme=dark; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT"
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "- db:5432:app:admin:Xq9vT2mLp4Rz",
    "* pg:6432:orders:svc:Xq9vT2mLp4Rz",
    "> db:5432:app:admin:Xq9vT2mLp4Rz",
])
def test_a_pgpass_line_as_a_list_item_or_a_quotation_still_goes(text: str) -> None:
    """Since a .pgpass line in a sentence must name a plain host (de761d75), one in a
    Markdown list or a quotation (``- db:5432:app:admin:…``) was read as in a sentence, its
    host ``db`` no plain one, and the password went out in clear: a list's or a
    quotation's mark before it starts its line as a key-value line's does."""
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4Rz" not in redacted


@pytest.mark.parametrize(("text", "kept"), [
    ("password=gR7x(kP2mZ9qW4tY)", "password="),
    ("DB_PASSWORD=aB3c(dE5fG7hJ9kL)", "DB_PASSWORD="),
    ("DB_PASSWORD=Xk9mQ2pL7(vR3)! # rotated", "DB_PASSWORD= # rotated"),
    ("export API_TOKEN=Summer2024(x)!", "export API_TOKEN="),
])
def test_a_password_holding_a_parenthesis_goes_whole(text: str, kept: str) -> None:
    """A generated password with its ``(`` early and its ``)`` last read as a call (its
    head switched between letters and digits twice at most) and went out whole, its head
    too short to judge; one with a longer head lost only that head, ``(vR3)!`` sent. The
    run inside switches as no argument of code does, and the value goes to its end."""
    redacted, count = redact(text)
    assert count == 1 and redacted == kept.replace("=", "=[REDACTED:secret]")


@pytest.mark.parametrize("text", [
    'api_key = bytes.fromhex("00ff11aa22bb33cc")',
    "token = sign(user_id, ttl=3600)",
])
def test_a_call_with_a_quoted_or_plain_argument_stays_code(text: str) -> None:
    assert redact(text) == (text, 0)
