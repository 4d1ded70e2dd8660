"""A credential stated in a sentence ("the staging db password is Tr0ub4dor&3", "数据库密码
是 Passw0rd123"): redacted on its way to a model, refused by a write, and everyday
sentences about credentials left alone (waymarks.core.secret_prose)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from tests.privacy.test_secrets import assert_needles_hold
from waymarks.core.evolution.capture import sanitize
from waymarks.core.secrets import credential_kinds, might_contain_secret, redact

STATED = [
    ("remember: the staging db password is Tr0ub4dor&3",
     "remember: the staging db password is [REDACTED:secret]"),
    ("记住：数据库密码是 Passw0rd123", "记住：数据库密码是 [REDACTED:secret]"),
    ("数据库的密码为s3cr3tPa55，别忘了", "数据库的密码为[REDACTED:secret]，别忘了"),
    ("令牌：Xk29fLq0Zp", "令牌：[REDACTED:secret]"),
    ("The admin password is Tr0ub4dor&3.", "The admin password is [REDACTED:secret]."),
    ("my pw: Tr0ub4dor&3", "my pw: [REDACTED:secret]"),
    ("pw=Tr0ub4dor&3 for the router", "pw=[REDACTED:secret] for the router"),
    ("the API key for prod is a8f3kd93jf02kd1", "the API key for prod is [REDACTED:secret]"),
    ("api key: a8f3kd93jf02kd", "api key: [REDACTED:secret]"),
    ("The root password was Summer2024!", "The root password was [REDACTED:secret]"),
    ("The password is now Password123.", "The password is now [REDACTED:secret]."),
    ("the password is 'hunter22'", "the password is '[REDACTED:secret]'"),
    ("the password is `hunter2`", "the password is `[REDACTED:secret]`"),
    ("the PIN is 4821", "the PIN is [REDACTED:secret]"),
    ("PIN: 482913", "PIN: [REDACTED:secret]"),
    ("passcode is 918273", "passcode is [REDACTED:secret]"),
    ("the password for the admin account is P4ssw0rd!",
     "the password for the admin account is [REDACTED:secret]"),
    ("the secret key is x9Kd#2mLp", "the secret key is [REDACTED:secret]"),
    # "is:" ending its line, a Chinese quotation mark before the value
    ("The staging password is:\nTr0ub4dor&3", "The staging password is:\n[REDACTED:secret]"),
    ("密码是“Passw0rd123”。", "密码是“[REDACTED:secret]”。"),
    # (kept as everyday prose before, though it states the passphrase: denied by default
    # after a password's noun and "is" now, core/secret_deny.py)
    ("the passphrase is correct-horse-battery-staple",
     "the passphrase is [REDACTED:secret]"),
    ("口令为「Xk9#mQ2」", "口令为「[REDACTED:secret]」"),
    # a quoted word after a password's noun; a parameter judged by its value
    ('the wifi password is "postgres"', 'the wifi password is "[REDACTED:secret]"'),
    ("the password is pw=Tr0ub4dor&3", "the password is [REDACTED:secret]"),
    ("the token is Xk9#mQ2Lp+", "the token is [REDACTED:secret]"),
    ("the token is Xk#mQpLr", "the token is [REDACTED:secret]"),
    ("the password is Pa$$Word now", "the password is [REDACTED:secret] now"),
]

#: software sentences whose value after the noun is a name, not a credential: a quoted
#: word after a token's or key's noun, words joined by symbols, a parameter
NAMED = [
    'The lexer token is "include" after a hash.', "The token is `Bearer` in the header.",
    'The signing key is "primary" in the JWKS.', "The token is Bearer+JWT for the gateway.",
    "The token is user:read+repo:write scoped.", "The token is @company/auth-token package.",
    "The password is min_length=12 in the validator.",
    "The signing key is kid=2024-01 in the JWKS.",
    "The session token is HttpOnly+Secure+SameSite=Lax.", "The API key is X-API-KEY=… header.",
]

#: everyday sentences about credentials, and code: no value stated, or not one
EVERYDAY = [
    "The password policy requires 12 characters.", "Rotate the API token every 90 days.",
    "The token expiry is 3600 seconds.", "Passwords are hashed with argon2.",
    "密码长度至少 12 位。", "token is valid for 1 hour", "the password is stored in Vault",
    "the secret is in the SECRET_KEY env var", "the password is <password>",
    "the password is ****", "the password is ${DB_PASSWORD}", "the password is changeme",
    "The key is 256-bit.", "The API key is read-only.", "the token is JWT-based",
    "The token is HS256-signed.", "The password is case-sensitive.",
    "The secret is base64-encoded.", "the refresh token is rotated on every use",
    "the secret is mounted at /var/run/secrets/app", "the token is in ~/.npmrc",
    "The PIN is 4 digits.", "the pin is c0fb4199", "the API key is $OPENAI_API_KEY",
    "The secret key is SECRET_KEY.", "The token is OAuth2.",
    "the token is valid until 2026-01-01", "The private key is ed25519.",
    "The signing key is RS256 or ES256.", "The token is 3600s.",
    "The password is argon2id-hashed.", "The master key is AES-256-GCM.",
    "The password for the admin account is stored in 1Password.", "pw: see 1Password",
    "The secret is admin@example.com", "The key is to keep the cache warm.",
    "令牌是 OAuth2 格式。", "密码是必填项。", "密钥为 256 位。",
    "The token is 128-bit, base64url-encoded.", "pwd is /usr/src/app",
    "The token is eu-west-1-scoped",
    "the registry token is the CI secret REGISTRY_TOKEN",
    'the password is "password"', "The token is 'none'.",
    # code read as prose (found in site-packages by benchmarks/secret_shapes.py)
    "    pw = urllib.parse.unquote(pw)", "assert token is weak_reference()",
    "assert token is _core.current_trio_token()", "if token is None: return",
    "assert token is tokens[0]", "pw = sys.argv[1]", "api key = keys[i]",
    "passwords are list[str]", "the token is Optional[str]",
]


@pytest.mark.parametrize(("text", "expected"), STATED)
def test_a_credential_stated_in_a_sentence_is_redacted(text: str, expected: str) -> None:
    assert redact(text) == (expected, 1)
    assert redact(expected) == (expected, 0)  # idempotent
    assert credential_kinds(text) == ["secret"]
    assert_needles_hold(text)


@pytest.mark.parametrize("text", EVERYDAY)
def test_everyday_sentences_about_credentials_stay(text: str) -> None:
    assert redact(text) == (text, 0)
    assert_needles_hold(text)


@pytest.mark.parametrize("text", NAMED)
def test_a_name_after_a_credential_noun_is_neither_redacted_nor_refused(
        text: str, home: Path, project: Path) -> None:
    """The symbol rule took any value with a symbol other than ``-_./:`` for a password,
    and a quoted word after any noun for one: a memory about a lexer's token or a scope
    list was refused as a credential."""
    assert redact(text) == (text, 0)
    added = waymarks("--json", "memory", "add", "--", text, env={"WAYMARKS_HOME": str(home)},
                     cwd=project)
    assert added.returncode == 0, (added.stdout, added.stderr)


def test_the_pretest_passes_every_stated_credential_even_short_ones() -> None:
    for text in ("pw: Tr0ub4&3", "PIN is 482913", "密码是 Passw0rd1", "pwd was Xk9#mQ2"):
        assert might_contain_secret(text), text
        assert redact(text)[1] == 1, text


def test_a_session_statement_reaches_evolution_capture_redacted() -> None:
    # a person's message captured as a learning source is sent to the model provider
    stored = sanitize("Use staging for the demo; remember: the staging db password is "
                      "Tr0ub4dor&3 and 数据库密码是 Passw0rd123")
    assert stored is not None
    assert "Tr0ub4dor&3" not in stored[0] and "Passw0rd123" not in stored[0]
    assert stored[0].count("[REDACTED:secret]") == 2


def test_memory_and_pins_refuse_a_stated_credential_and_store_nothing(
        home: Path, project: Path) -> None:
    env = {"WAYMARKS_HOME": str(home)}
    for args in (("memory", "add", "--", "remember: the staging db password is Tr0ub4dor&3"),
                 ("pin", "--", "记住：数据库密码是 Passw0rd123")):
        done = waymarks("--json", *args, env=env, cwd=project)
        assert done.returncode == 2, (done.stdout, done.stderr)
        answer = json.loads(done.stdout)
        assert (answer["outcome"], answer["code"]) == ("rejected", "credential"), answer
        assert "Tr0ub4dor" not in done.stdout + done.stderr
    for listing in ("pins", "memory"):
        done = waymarks("--json", listing, env=env, cwd=project)
        assert json.loads(done.stdout)["items"] == [], listing
    for path in home.rglob("*"):
        if path.is_file():
            held = path.read_bytes()
            assert b"Tr0ub4dor" not in held and b"Passw0rd123" not in held, path
    everyday = waymarks("--json", "memory", "add", "--",
                        "The password policy requires 12 characters.", env=env, cwd=project)
    assert everyday.returncode == 0, (everyday.stdout, everyday.stderr)
