"""Credential-like values and their redaction (waymarks.core.secrets)."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core.secrets import _SECRET, might_contain_secret, redact

OPENAI = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
GITHUB = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu"
AWS = "AKIAIOSFODNN7EXAMPLE"
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACD\n"
       "-----END OPENSSH PRIVATE KEY-----")


@pytest.mark.parametrize(("text", "expected"), [
    (f"key {OPENAI} here", "key [REDACTED:openai-key] here"),
    (f"use {ANTHROPIC}.", "use [REDACTED:anthropic-key]."),
    (f"token {GITHUB}", "token [REDACTED:github-token]"),
    (f"{GITHUB_PAT} end", "[REDACTED:github-token] end"),
    (f"id {AWS} x", "id [REDACTED:aws-access-key-id] x"),
    (f"before\n{PEM}\nafter", "before\n[REDACTED:private-key]\nafter"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA truncated",
     "[REDACTED:private-key]"),
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
     "[REDACTED:private-key]"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln",
     "Authorization: Bearer [REDACTED:bearer]"),
    ("BEARER abcdefghijklmnopqrstuvwxyz", "BEARER [REDACTED:bearer]"),
    ("password=hunter22", "password=[REDACTED:secret]"),
    ('{"password": "hunter22", "user": "bob"}', '{"password": "[REDACTED:secret]", "user": "bob"}'),
    ("DB_PASSWORD=s3cr3t!", "DB_PASSWORD=[REDACTED:secret]"),
    ("client_secret: 'abcd1234'", "client_secret: '[REDACTED:secret]'"),
    ("export GITHUB_TOKEN=abc123def456", "export GITHUB_TOKEN=[REDACTED:secret]"),
    ("api-key = 12345678", "api-key = [REDACTED:secret]"),
    ("aws.secret_key: wJalrXUtnFEMI/K7MDENG", "aws.secret_key: [REDACTED:secret]"),
    ("token: Bearer abcdefgh12345678", "token: Bearer [REDACTED:bearer]"),
    (f"OPENAI_API_KEY={OPENAI}", "OPENAI_API_KEY=[REDACTED:secret]"),
])
def test_credentials_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == (expected, 1)


@pytest.mark.parametrize("text", [
    "password: str", "api_key: string;", "token = None", "password: Optional[str]",
    "api_key = os.environ['OPENAI_API_KEY']", "token = process.env.TOKEN",
    "password: ${DB_PASSWORD}", "secret: {{ secrets.deploy }}", "password = ********",
    "api_key: <your-key>", "password_hash: abcdef12", "max_tokens: 4096",
    "the sk-learn library", "Bearer authentication is described in RFC 6750",
    "keys: [a, b]", "ghp_short", "AKIA is a prefix", "plain prose with no credential",
])
def test_things_that_are_not_credentials_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_several_credentials_are_counted() -> None:
    text = f"{OPENAI} and {AWS}\npassword=hunter22\n{GITHUB}"
    redacted, count = redact(text)
    assert count == 4
    for secret in (OPENAI, AWS, "hunter22", GITHUB):
        assert secret not in redacted


def test_redaction_is_idempotent_on_examples() -> None:
    once, _ = redact(f"Bearer abcdefgh12345678 api_key={OPENAI} {PEM}")
    assert redact(once) == (once, 0)


secretish = st.lists(st.sampled_from([
    "sk-", "sk-ant-", "ghp_", "gho_", "github_pat_", "AKIA", "ASIA", "Bearer ", "bearer\t",
    "BEARER ", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "PRIVATE KEY", "password", "PASSWD", "pwd", "api_key", "Api-Key", "token", "TOKEN",
    "secret", "client_secret", "=", ":", " ", '"', "'", "\n", "_", "-", ".",
    "abcdefghij", "ABCDEFGHIJKLMNOP", "0123456789", "x", "None", "$X", "\u212a", "\u017f",
]) | st.text(max_size=4), max_size=14).map("".join)


NAMES = ["password", "Passwort", "passwd", "PWD", "pwd", "api_key", "APIKEY", "access-key",
         "secret_key", "private_key", "access_token", "auth-token", "refreshToken",
         "id_token", "session_token", "bearer_token", "token", "client_secret", "Secret",
         "DB_PASSWORD", "my.api_key", "\u212aey", "\u017fecret"]
assignments = st.tuples(
    st.text(max_size=3), st.sampled_from(NAMES),
    st.sampled_from(["=", ":", " = ", '": "', "' : '", ":\t"]),
    st.sampled_from(["abcdefghij", "hunter22", "None", "xy", "$X", "s3cr3t!"]),
    st.text(max_size=3)).map("".join)
tokens = st.tuples(
    st.text(max_size=3),
    st.sampled_from(["sk-", "sk-ant-", "ghp_", "ghs_", "github_pat_", "AKIA", "ASIA",
                     "Bearer ", "bearer\t", "BEARER ", "-----BEGIN EC PRIVATE KEY-----"]),
    st.sampled_from(["ABCDEFGHIJKLMNOP", "abcdefghijklmnopqrstuvwxyz012345", "0123456789",
                     "short"]),
    st.text(max_size=3)).map("".join)
candidates = secretish | assignments | tokens


def the_cheap_test_has_no_false_negatives(text: str) -> None:
    if not might_contain_secret(text):
        assert _SECRET.search(text) is None


@lanes(quick=60, long=600)
def test_the_cheap_test_has_no_false_negatives(examples: int) -> None:
    run_property(examples, the_cheap_test_has_no_false_negatives, candidates)


def redaction_is_idempotent(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, 0)


@lanes(quick=30, long=300)
def test_redaction_is_idempotent(examples: int) -> None:
    run_property(examples, redaction_is_idempotent, candidates)
