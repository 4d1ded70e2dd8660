"""Credentials in shapes a person pastes from a browser or a terminal, found after the
first pass over redaction: each test failed before its fix (the value reached a remote
model whole, or in part)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from tests.privacy.digests import count_lengths
from waymarks.core import secret_checks
from waymarks.core.secrets import redact

SESSION = "Xq9vT2mLp4RzAb12CdEf34"


def _cli(home: Path, project: Path, *args: str, expect: int = 0) -> str:
    done = waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return done.stdout


def _plan_of_a_ledger_holding(home: Path, project: Path, text: str) -> str:
    """A plan for a remote provider of a claim a hand edit (or a host's own ledger) put
    ``text`` in, as JSON writes it: the write itself refuses a credential."""
    _cli(home, project, "memory", "add", "The staging login uses PLACEHOLDER here")
    [ledger] = (home / "sessions").rglob("*.jsonl")
    ledger.write_text(ledger.read_text().replace("PLACEHOLDER", json.dumps(text)[1:-1]))
    _cli(home, project, "rebuild-index")
    return _cli(home, project, "plan", "--provider", "anthropic", "--prompt",
                "staging login")


@pytest.mark.parametrize("text", [
    f"Cookie: session={SESSION}",
    f"curl -H 'Cookie: theme=dark; session={SESSION}' https://app.example.com/api",
    f"Set-Cookie: sid={SESSION}; Path=/; HttpOnly; Secure",
    f'{{"headers": {{"Cookie": "session={SESSION}"}}}}',
    f"cookie:\tremember_token={SESSION}",
])
def test_a_session_cookie_is_redacted(text: str) -> None:
    redacted, count = redact(text)
    assert count >= 1 and SESSION not in redacted and "[REDACTED:cookie]" in redacted
    assert redact(redacted) == (redacted, 0)


def test_a_long_cookie_header_goes_whole() -> None:
    # a browser's header may pass 4 KB: the session cookie at its end, a long value's tail
    late = "Cookie: theme=dark; " + "x=1; " * 900 + f"session={SESSION}"
    long = "Cookie: a=" + SESSION * 400
    for text in (late, long):
        redacted, count = redact(text)
        assert (redacted, count) == ("Cookie: [REDACTED:cookie]", 1)


@pytest.mark.parametrize("text", [
    "Cookie: theme=dark; lang=en-US",
    "Set-Cookie: see the MDN page for the attributes",
    "The session cookie: a small file the browser keeps.",
    "document.cookie = 'theme=dark'",
    "cookie: none",
])
def test_a_cookie_holding_no_secret_stays(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "Cookie: theme=dark; lang=en-US; tz=Europe/Berlin",
    "cookie: SameSite=Lax is the default since Chrome 80",
    "The session cookie: name=value pairs are separated by semicolons",
    "Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT",
    "Set-Cookie: theme=dark; Max-Age=2592000; Path=/; SameSite=Strict",
])
def test_prose_about_cookies_and_a_cookies_attributes_hold_no_secret(text: str) -> None:
    """A sentence after "cookie:", a Set-Cookie header's attributes (its date, its
    lifetime in seconds) and a value of plain words joined by a slash were judged as one
    cookie's value and the whole line redacted; `memory add` refused the note as a
    credential."""
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("value", [SESSION, "550e8400-e29b-41d4-a716-446655440000",
                                   "38afes7a8fd1c2"])
def test_a_session_id_among_attributes_is_still_redacted(value: str) -> None:
    redacted, _ = redact(f"Set-Cookie: sid={value}; Expires=Thu, 21 Oct 2021 07:28:00 GMT; "
                         "Max-Age=2592000; Path=/")
    assert value not in redacted and "[REDACTED:cookie]" in redacted


@pytest.mark.parametrize("text", [
    f'{{"name": "Cookie", "value": "theme=dark; session={SESSION}"}}',
    f'{{"name":"set-cookie","value":"sid={SESSION}; Path=/; HttpOnly"}}',
    f'      {{\n        "name": "Cookie",\n        "value": "session={SESSION}"\n      }},',
])
def test_a_har_files_cookie_header_is_redacted(text: str) -> None:
    """A browser's HAR export writes each header as ``{"name": …, "value": …}``: cb37b12c
    named "a HAR file's" cookie, but found only ``"Cookie": "…"``, and the session ID of a
    pasted HAR header went out in clear."""
    redacted, _ = redact(text)
    assert SESSION not in redacted and "[REDACTED:cookie]" in redacted
    assert redact('{"name": "Cookie", "value": "theme=dark"}')[1] == 0


def test_a_cookie_is_refused_by_the_cli_and_redacted_in_a_plan(home: Path,
                                                               project: Path) -> None:
    answer = json.loads(_cli(home, project, "--json", "memory", "add",
                             f"Log in with Cookie: session={SESSION}", expect=2))
    assert answer["code"] == "credential", answer
    plan = _plan_of_a_ledger_holding(home, project, f"Cookie: session={SESSION}")
    assert SESSION not in plan and "[REDACTED:cookie]" in plan


BEARER = "abcdefghijklmnop1234567890QRSTuv"
#: characters that render as nothing (a zero-width space, a word joiner, a BOM, a
#: soft hyphen) and controls that end no line (ESC, NUL)
GAPS = ["\u200b", "\u2060", "\ufeff", "\u00ad", "\x1b", "\x00"]


@pytest.mark.parametrize("mark", GAPS, ids=[f"U+{ord(m):04X}" for m in GAPS])
def test_an_invisible_character_between_a_scheme_and_its_token_hides_nothing(
        mark: str) -> None:
    for text in (f"Authorization: Bearer{mark}{BEARER}",
                 f"curl -H 'Authorization: Bearer{mark}{mark}{BEARER}' https://x.example",
                 f"export DB_PASSWORD={mark}Xq9vT2mLp4Rz"):
        redacted, count = redact(text)
        assert count == 1 and BEARER not in redacted and "Xq9vT2mLp4Rz" not in redacted, \
            repr(text)
        assert redact(redacted) == (redacted, 0)
    # read through, it is still one word: no token follows a scheme glued to a word
    assert redact(f"a Bearer{mark}token scheme") == (f"a Bearer{mark}token scheme", 0)


@pytest.mark.parametrize("text", [
    "\u26a0\ufe0f Deploy only from main; the release notes live in docs/",  # ⚠️
    "Pair on reviews \U0001f468\u200d\U0001f4bb\u200d and keep them small",  # 👨‍💻
    "pytest: 3 passed\x1b[0m, lait\u200b; 数据库\u200b端口",
])
def test_an_invisible_character_gluing_no_words_is_read_once(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gap reading is for an invisible character between two characters it would
    part (``Bearer\u200bTOKEN``); every text holding an emoji's variation selector or
    joiner paid a second reading for it, twice the cost of redacting it."""
    import waymarks.core.secrets as secrets

    read, gaps = [], secrets.as_gaps

    def second_reading(t: str) -> str | None:
        found = gaps(t)
        if found is not None:  # (always before: every such text was read again)
            read.append(t)
        return found

    monkeypatch.setattr(secrets, "as_gaps", second_reading)
    assert secrets.redact(text) == (text, 0)
    assert read == []
    secrets.redact(f"Authorization: Bearer\u200b{BEARER}")
    assert len(read) == 1


def test_a_bearer_token_behind_a_zero_width_space_is_redacted_in_a_plan(
        home: Path, project: Path) -> None:
    answer = json.loads(_cli(home, project, "--json", "memory", "add",
                             f"Use Authorization: Bearer\u200b{BEARER}", expect=2))
    assert answer["code"] == "credential", answer
    plan = _plan_of_a_ledger_holding(home, project, f"Bearer\u200b{BEARER}")
    assert BEARER not in plan and "[REDACTED:bearer]" in plan


HEAD, TAIL = "ghp_A1b2C3d4E5f6G7h8I9j0", "K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize("text", [
    f"token {HEAD}\\n{TAIL}",                         # a string literal's escape, typed
    f'{{"note": "CI token {HEAD}\\n{TAIL}", "n": 1}}',  # JSON text holding the note
    f"token {HEAD}\\r\\n{TAIL}\\nthen rotate it",
    f"token {HEAD}\\n  {TAIL}\n",
    f"token {HEAD}\n{TAIL} was rotated",               # a terminal's wrap in a sentence
])
def test_a_token_wrapped_at_an_escaped_line_break_goes_whole(text: str) -> None:
    redacted, count = redact(text)
    assert count == 1 and TAIL not in redacted and "[REDACTED:github-token]" in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    f"token {HEAD}\\nversion of the CLI",  # a word, not the rest of a token
    f"token {HEAD}\\ndeploy_v2 is next",   # a line of more than one word
    f"token {HEAD}\\n\\nsee docs/setup.md",
    f"token {HEAD}\\nbuild20261206 was tagged",  # not random: one switch to digits
])
def test_what_follows_an_escaped_line_break_stays_unless_it_continues_the_token(
        text: str) -> None:
    redacted, count = redact(text)
    assert count == 1 and redacted.startswith("token [REDACTED:github-token]\\n")
    assert redacted.endswith(text[len(f"token {HEAD}"):])


def test_a_ledger_holding_an_escaped_break_inside_a_token_sends_no_tail(
        home: Path, project: Path) -> None:
    plan = _plan_of_a_ledger_holding(home, project, f"{HEAD}\\n{TAIL}")
    assert TAIL not in plan and HEAD[4:] not in plan and "[REDACTED:github-token]" in plan


LEGACY_VAULT = "s.Xq9vT2mLp4RzAb12CdEf34"


@pytest.mark.parametrize("text", [
    f"vault login {LEGACY_VAULT}",
    f"run `vault login -no-print {LEGACY_VAULT}` first",
    f"vault login -address=https://vault.corp:8200 token={LEGACY_VAULT}",
    f"VAULT_TOKEN={LEGACY_VAULT} terraform plan",
])
def test_a_legacy_vault_token_given_to_vault_login_is_redacted(text: str) -> None:
    redacted, count = redact(text)
    assert count == 1 and LEGACY_VAULT[2:] not in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    "vault login -method=userpass username=alice",
    "vault login -method=github",
    "run vault login first, then vault read secret/app",
    "vault login $VAULT_TOKEN",
])
def test_a_vault_login_with_no_token_stays(text: str) -> None:
    assert redact(text) == (text, 0)


PGPASS = "Xq9vT2mLp4Rz"


@pytest.mark.parametrize("text", [
    f"db.example.com:5432:app:admin:{PGPASS}",
    f"# ~/.pgpass\nlocalhost:5432:*:deploy:{PGPASS}\n*:*:*:postgres:{PGPASS}x\n",
    f"my .pgpass has 10.0.0.5:6432:orders:svc_orders:{PGPASS} in it.",
    f"[::1]:5432:app:admin:{PGPASS}",
])
def test_a_pgpass_line_has_its_password_redacted(text: str) -> None:
    redacted, count = redact(text)
    assert count >= 1 and PGPASS not in redacted and "[REDACTED:secret]" in redacted
    assert "5432" in redacted or "6432" in redacted  # host, port, database and user stay
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    "hostname:port:database:username:password",   # the format, documented
    "2026-12-06T05:12:18:123:456789 request done",
    "fe80::1:2:3:4 and 00:1a:2b:3c:4d:5e",
    "localhost:5432:app:admin:postgres",           # a plain word: a known limit
    "std::map<int, int> m; auto s = a[1:2:3];",
    "ports 8080:80:tcp:web:enabled",
    "SHA256 Fingerprint: 2b:43:a1:cc:d4:e5:f6:07:18:29:3a:4b",  # certifi's cacert.pem
])
def test_what_only_looks_like_a_pgpass_line_stays(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "The cart cache key is user:42:session:cart:a8f3c2d9e1b7 in Redis.",
    "rate limits are kept under rl:60:api:user:9f8e7d6c5b4a",
    "The cache key is app:1:views:home:3f9a7c21d4e8",
])
def test_a_key_of_five_fields_with_a_small_number_second_stays(text: str) -> None:
    """A Redis or cache key of five fields ending in a hash read as a .pgpass line (a
    "host", a "port" of one or two digits, a database, a user and a password), and
    `memory add` refused the note as a credential: a PostgreSQL port has four or five
    digits (5432, 6432, 25060), or is ``*``."""
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "curl -H 'Authorization: Xq9vT2mLp4RzAb12CdEf34' https://api.example.com/v1/items",
    '{"headers": {"Authorization": "Xq9vT2mLp4RzAb12CdEf34"}}',
    "authorization=Xq9vT2mLp4RzAb12CdEf34",
])
def test_a_raw_token_as_the_authorization_header_is_redacted(text: str) -> None:
    """Some APIs take the key itself as the header, no scheme (``Authorization: KEY``):
    only ``Bearer``, ``Basic`` and ``token`` were read, and the key went out in clear."""
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4RzAb12CdEf34" not in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    "Authorization: required_for_all_endpoints", "authorization: see-the-api-docs-v2",
    "Authorization: Negotiate", "the Authorization: header is checked by middleware2024",
])
def test_an_authorization_header_with_no_token_stays(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize(("text", "scheme"), [
    ("curl -H 'Authorization: ApiKey Xq9vT2mLp4RzAb12CdEf34==' https://es:9200/_search",
     "ApiKey"),  # Elasticsearch's
    ('"Authorization": "SSWS 00Xq9vT2mLp4RzAb12CdEf34-kLm"', "SSWS"),  # Okta's
    ("Authorization: Key Xq9vT2mLp4RzAb12CdEf34", "Key"),
    ("Authorization: Negotiate YIIGhgYJKoZIhvcSAQICAQBuggZ1MIIGcaADAgEFoQMCAQ6iBwMFAC",
     "Negotiate"),
])
def test_a_token_after_another_scheme_is_redacted(text: str, scheme: str) -> None:
    """Only ``Bearer``, ``Basic``, ``token`` or no scheme were read: Elasticsearch's
    ``ApiKey``, Okta's ``SSWS``, a ``Key`` scheme's key went out in clear; a random-looking
    credential after any scheme goes, the scheme kept."""
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4RzAb12CdEf34" not in redacted
    assert "YIIGhgYJKoZIhvc" not in redacted and f"{scheme} [REDACTED:" in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    'authorization: Digest username="Mufasa", realm="x", response="6629fae49393a05397"',
    "Authorization: Bearer authentication is checked by the gateway",
    "The Authorization: header carries the scheme and then the credential",
])
def test_an_authorization_scheme_with_no_token_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_many_cookie_headers_on_one_line_are_each_read_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A line of many ``Set-Cookie:`` headers (a log's, pasted, 80 KB) took seconds: each
    header's value ran to the line's end, through every header after it, and was read
    again for each (1 MB: minutes). A value ends before the next header's name."""
    read = count_lengths(monkeypatch, secret_checks, "cookie_holds_secret")
    line = "Set-Cookie: a=1; Expires=Wed, " * 2_000 \
        + "Set-Cookie: sessionid=Xq9vT2mLp4RzK8wB3nY7; Path=/"
    redacted, count = redact(line)
    assert count == 1 and "Xq9vT2mLp4RzK8wB3nY7" not in redacted
    assert sum(read) < 4 * len(line)
