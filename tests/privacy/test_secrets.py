"""Credential-like values and their redaction (waymarks.core.secrets)."""

from __future__ import annotations

import json
import string
from itertools import pairwise

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.privacy.secret_corpus import (
    CERT_B64,
    IN_CONTEXT,
    LOOKALIKES,
    MAKERS,
    PEM_B64,
    PEM_B64_WRAPPED,
    TOKENS,
    body,
)
from waymarks.core.secret_pretest import _SHORT_RULES_ONLY, _SHORTEST, SHORT_RULES
from waymarks.core.secret_rules import RULES
from waymarks.core.secrets import (
    PLACEHOLDER_PREFIX,
    SecretSpan,
    candidates,
    find_secrets,
    might_contain_secret,
    redact,
)

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
    (f"OPENAI_API_KEY={OPENAI}", "OPENAI_API_KEY=[REDACTED:openai-key]"),
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
    # found by Hypothesis: the lead-in a token rule keeps, doubled, read as an assignment
    # whose value ran into the placeholder on the second pass
    doubled = "AccountKey=AccountKey=Zx9+Qw8/" + "Ab1+" * 10 + "/://"
    once, count = redact(doubled)
    assert count == 1 and "Ab1+" not in once
    assert redact(once) == (once, 0)
    # found by Hypothesis: keys apart by a Kelvin sign ("K", not an ASCII letter): the
    # word "key" of the first redaction's placeholder named the next key on a second pass
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    once, count = redact("\u212a".join([key] * 3))
    assert count == 1
    assert redact(once) == (once, 0)


@pytest.mark.parametrize("text", [
    "The staging DB_PASSWORD=Xk92mLq8vZ7pQ3[REDACTED:note]",
    "run it with --password Xk92mLq8vZ7pQ3[REDACTED:x] today",
    "api_key: 'Xk92mLq8vZ7pQ3'[REDACTED:secret]",
])
def test_a_placeholder_written_after_a_credential_does_not_hide_it(text: str) -> None:
    # the idempotence rule above skips a lead-in running into a placeholder; a real value
    # followed by a hand-written "[REDACTED:" must still be found (found in review)
    redacted, count = redact(text)
    assert count >= 1 and "Xk92mLq8vZ7pQ3" not in redacted


def contexts(secret: str) -> list[tuple[str, str, str]]:
    """(context name, text holding ``secret``, the form of ``secret`` in that text)."""
    out = [("prose", f"The value {secret} was pasted here.", secret),
           ("sentence end", f"Use {secret}.", secret),
           ("json", json.dumps({"note": secret, "n": 1}), json.dumps(secret)[1:-1])]
    if "\n" not in secret:
        out += [("env file", f"EXPORTED_VALUE={secret}\nNEXT=1", secret),
                ("named", f"SERVICE_TOKEN={secret}", secret),
                ("url", f"https://api.example.com/v1/items?auth={secret}&page=2", secret)]
    return out


@pytest.mark.parametrize(("kind", "text", "secret"), [
    pytest.param(kind, text, form, id=f"{kind}-{n}-{where}")
    for n, (kind, value) in enumerate(TOKENS) for where, text, form in contexts(value)])
def test_every_token_shape_is_redacted_in_every_context(kind: str, text: str,
                                                        secret: str) -> None:
    redacted, count = redact(text)
    assert secret not in redacted
    assert count == 1
    assert f"{PLACEHOLDER_PREFIX}{kind}]" in redacted
    assert [span.kind for span in find_secrets(text)] == [kind]


@pytest.mark.parametrize(("kind", "text", "secret"), IN_CONTEXT)
def test_credentials_known_by_their_context_are_redacted(kind: str, text: str,
                                                         secret: str) -> None:
    redacted, count = redact(text)
    assert secret not in redacted
    assert (count, f"{PLACEHOLDER_PREFIX}{kind}]" in redacted) == (1, True)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_stay(text: str) -> None:
    assert redact(text) == (text, 0)
    assert find_secrets(text) == []


def test_every_kind_has_a_fake_in_the_corpus() -> None:
    kinds = {rule.kind for rule in RULES}
    covered = {kind for kind, _ in TOKENS} | {kind for kind, _, _ in IN_CONTEXT}
    assert kinds - covered == set()


def test_find_secrets_gives_kinds_and_spans_in_order() -> None:
    text = f"key {OPENAI}, then postgres://admin:pw@db/app and password=hunter22."
    spans = find_secrets(text)
    assert spans == [
        SecretSpan("openai-key", 4, 4 + len(OPENAI)),
        SecretSpan("url-password", text.index(":pw@") + 1, text.index(":pw@") + 3),
        SecretSpan("secret", text.index("hunter22"), text.index("hunter22") + 8)]
    assert [text[start:end] for _, start, end in spans] == [OPENAI, "pw", "hunter22"]
    assert find_secrets("plain prose with no credential in it") == []


def test_a_token_as_a_value_is_named_by_the_token_and_taken_whole() -> None:
    text = f"private_key: {PEM}\nnext: 1"
    assert redact(text) == ("private_key: [REDACTED:private-key]\nnext: 1", 1)
    assert redact(f"Authorization: Bearer {TOKENS[1][1]}") == (
        "Authorization: Bearer [REDACTED:jwt]", 1)
    assert redact(f"api_key=abc:{GITHUB}") == ("api_key=[REDACTED:github-token]", 1)


def test_declined_shapes_stay() -> None:
    # no digit after sk-: a hyphenated name; "Basic" text that is not base64 of user:pass;
    # a Discord-shaped run whose first part is not base64 of a user id
    for text in ("sk-some-long-hyphenated-package-name", "Basic dGhpcyBpcyBub3Q=",
                 "M" + "a" * 23 + ".abcdef." + "b" * 27):
        assert redact(text) == (text, 0)


def test_only_the_short_rules_match_in_fewer_characters_than_the_pretest_skips() -> None:
    # the pre-test looks only for the short rules' literals in text under this length
    parser = pytest.importorskip("re._parser")
    for rule in RULES:
        shortest = parser.parse(rule.regex.pattern, rule.regex.flags).getwidth()[0]
        assert rule.name in SHORT_RULES or shortest >= _SHORT_RULES_ONLY, rule.name
        # url: "@" ahead; assign: a one-character head's "(" ahead ("pwd=a("); dash_flag:
        # its dash behind (it is read from the name's word: "-key a(")
        assert shortest + (rule.name in ("url", "assign", "dash_flag")) >= _SHORTEST, \
            rule.name


def test_the_needles_of_every_rule_are_necessary_on_the_corpus() -> None:
    texts = [text for _, value in TOKENS for _, text, _ in contexts(value)]
    texts += [text for _, text, _ in IN_CONTEXT] + LOOKALIKES
    for text in texts:
        assert_needles_hold(text)


def assert_needles_hold(text: str) -> None:
    """A rule's expression matches only texts holding a needle (and its hint), and then
    the pre-test says True."""
    lowered = text.lower() if text.isascii() else text.translate(
        str.maketrans(string.ascii_uppercase, string.ascii_lowercase))
    for rule in RULES:
        if (match := rule.regex.search(text)) is None:
            continue
        assert rule.guard in match.group(0), (rule.name, text)
        haystack = lowered if rule.folded else text
        assert any(needle in haystack for needle in rule.needles), (rule.name, text)
        assert rule.hint is None or rule.hint.search(text) is not None, (rule.name, text)
        assert might_contain_secret(text), (rule.name, text)


secretish = st.lists(st.sampled_from([
    "sk-", "sk-ant-", "ghp_", "gho_", "github_pat_", "AKIA", "ASIA", "Bearer ", "bearer\t",
    "BEARER ", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "PRIVATE KEY", "password", "PASSWD", "pwd", "api_key", "Api-Key", "token", "TOKEN",
    "secret", "client_secret", "=", ":", " ", '"', "'", "\n", "_", "-", ".",
    "abcdefghij", "ABCDEFGHIJKLMNOP", "0123456789", "x", "None", "$X", "\u212a", "\u017f",
    "sk_live_", "rk_test_", "whsec_", "glpat-", "GR1348941", "xoxb-", "xapp-1-", "AIza",
    "GOCSPX-", "ya29.", "npm_", "pypi-Ag", "hf_", "shpat_", "dop_v1_", "HRKU-", "SK",
    "SG.", "key-", "-us1", "MTIzNDU2Nzg5MDEyMzQ1Njc4", ".abcdef.", ":AA", "8Q~", "ACCA",
    "ABIA", "sig=", "AccountKey=", "aws_secret_access_key", "://", "u:p@", "@", "--",
    "--token ", "Basic ", "ZGVwbG95OnMzY3IzdA==", "eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOjF9",
    "hooks.slack.com/services/", "discord.com/api/webhooks/", "deadbeef" * 4, "=" * 2,
    "Bearer\n", "bearer \r\n  ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "3f2504e04f8911d39a0c0305e82c3301abcdef12", "aB3/", "[REDACTED:bearer]",
    "AKIAIOSFODNN7EXAMPLE,", "Zx9+Qw8/Er7+Ty6/Ui5+Op4/As3+Df2/Gh1+Jk0/",
    "hvs.", "hvb.CAESI", "ATATT3xFfGF0", "=1A2B3C4D", "lin_api_", "sq0atp-", "sq0csp-",
    "dapi", "sntryu_", "sntrys_eyJ", "AGE-SECRET-KEY-1", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "sk.eyJ", "machine ", " login ", " password ", "auth", '"auth": "', "_auth=", "DB_PASS",
    "pass", "Pass", "openssl ", " -k ", " -pass pass:", "zip -P ", "7z a -p", "ldapwhoami",
    " -w ", "smbclient ", " -U u%",
    # a credential stated in a sentence (secret_prose)
    " is ", " was ", "api key", "PIN", "pw", " for ", "now ", "Tr0ub4dor&3", "密码", "令牌",
    "是 ", "：", "`",
    # a password in SQL (sql_password: a bare word after PASSWORD too)
    "create user ", "ALTER ROLE r ", " WITH PASSWORD ", "identified by ",
    # a single-dash flag (dash_flag: first in a text too, no space before its dash)
    "-storepass ", "-Token ",
    # Redis's AUTH (redis_cli_auth: after redis-cli or its prompt, or starting a line)
    "AUTH ", "auth\t", "redis-cli ", "6379> ", "redis>", "ACL SETUSER u on ", " >",
    "HELLO 3 ", "MIGRATE h 6379 k 0 5000 ", "AUTH2 ", " KEYS ", "user a on ", "user ",
    # a container's environment (secret_environments)
    '"Env": [', '"Env":["', '"A=', "Environment:\n", "environment:\n", "  - A=",
    " Xk9vTq2mWz8rLp4nB7cD",
    # chpasswd's USER:PASSWORD line (chpasswd)
    "echo ", "printf ", "'u:", " | chpasswd", "chpasswd <<< ", "\\n'",
    # an Oracle login (oracle_login)
    "sqlplus ", "expdp ", "userid=", "connect ", "jdbc:oracle:thin:", "a/", "@db", " as sysdba",
    "exp ", "impdp ", "tkprof t ", "explain=", " file=",
    # ipmitool's password flag (login_flag)
    "ipmitool ", " -P ", "ssh-keygen ", " -N ", "mosquitto_passwd ", " -b ", " f u ",
    " user set password 2 ", "net user a ", " /add",  # (admin_password)
    "openssl passwd -6 ", "grafana-cli admin reset-admin-password ", "drush upwd a ",
    "mosquitto_pub ", "influx setup ", " -p ",  # (login_flag)
    "http ", " -a u:", "jenkins-cli ", " -auth u:",  # (user_flag)
    '"keyName": "key1", "value": "', '"primaryMasterKey": "', "==",  # (azure_storage)
    '["--password", "', "\n  - --token\n  - ",  # (flag)
    "wp config set DB_PASSWORD ",  # (config_named)
    " | sudo -S ", "sudo -kS ", "gh auth login --with-token", " | passwd ",  # (stdin_login)
    "?key=", "&sig=", "?signature=", '{"name": "sig", "value": "',  # (query_key)
    " | base64 -d", "base64 --decode <<< ",  # (b64_login)
    "export A_X=", "\nHOME=/root\n", "PATH=/bin\n",  # (env_export)
    "lftp ", "open -u ", " -u u,",
    # a Wi-Fi passphrase (assign's psk, wifi_psk)
    "psk", 'psk="', "nmcli ", " password ", "wifi-sec.psk ", "wpa_passphrase ",
    # HAProxy's userlist password (haproxy_user)
    "insecure-password ", "user a ",
    # rabbitmqctl's password after the user (rabbitmqctl)
    "rabbitmqctl ", "add_user ", "change_password ", "rabbitmqadmin ", " -p ",
    # Python's HTTP client pairs (py_auth)
    "auth=(", "BasicAuth(", "Digest", "'a', 'b')", ", ", ")",
    # HTTP Digest's response (digest_auth)
    "Digest ", 'realm="r", ', "response=", "0123456789abcdef" * 2, '\\"',
    # a PgBouncer userlist.txt line (pgbouncer)
    '"app" "', '"\t"', "userlist ", "md5",
    # a Kubernetes Secret's data (secret_manifest)
    "kind: Secret\n", "data:\n  ", "data:\n", "  a: ", "YWJjZA==", "\n---\n",
    '"kind": "Secret"', '"data": {', '"a": "', '"}', ", ",
]) | st.text(max_size=4), max_size=14).map("".join)
NAMES = ["password", "Passwort", "passwd", "PWD", "pwd", "api_key", "APIKEY", "access-key",
         "secret_key", "private_key", "access_token", "auth-token", "refreshToken",
         "id_token", "session_token", "bearer_token", "token", "client_secret", "Secret",
         "DB_PASSWORD", "my.api_key", "\u212aey", "\u017fecret", "DB_PASS", "pass", "dbPass",
         "bypass", "psk", "WIFI_PSK"]
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
texts = secretish | assignments | tokens


@settings(max_examples=600)
@given(texts)
@pytest.mark.slow
def test_the_cheap_test_has_no_false_negatives(text: str) -> None:
    assert_needles_hold(text)
    if not might_contain_secret(text):
        assert candidates(text) == []
        assert redact(text) == (text, 0)


@settings(max_examples=400)
@given(texts)
@example("sk_live_ldapwhoami--token sk-sk-")
@pytest.mark.slow
def test_redaction_is_idempotent(text: str) -> None:
    once, count = redact(text)
    assert redact(once) == (once, 0)
    spans = find_secrets(text)
    # at least every span found at once; more where a kept span hid another's start
    assert count >= len(spans)
    assert all(a.end <= b.start for a, b in pairwise(spans))
    assert all(0 <= span.start < span.end <= len(text) for span in spans)


def test_a_credential_a_kept_span_hid_is_redacted_too() -> None:
    # the key swallowed "token", whose value was seen only in a second redaction of the
    # result (found by the property test above in a CI run)
    once, count = redact("sk_live_ldapwhoami--token sk-sk-")
    assert once == "[REDACTED:stripe-key]--token [REDACTED:secret]" and count == 2
    assert redact(once) == (once, 0)


def _mixed(seed: str, length: int) -> str:
    return body(seed, string.ascii_letters + string.digits, length - 1) + "a"


SEPARATORS = [" ", "\n", "\t", " and ", ", ", "; ", " (", ") ", '"', "'"]
FILLERS = ["the", "Bearer", "password:", "token =", "--token", "key", "note:", "see",
           "https://example.com/x", "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "."]
PLACED = [  # (make(seed) -> (text, secret))
    lambda s: (f"password={_mixed(s, 12)}", _mixed(s, 12)),
    lambda s: (f'"api_key": "{_mixed(s, 20)}"', _mixed(s, 20)),
    lambda s: (f"postgres://app:{_mixed(s, 10)}@db/app", _mixed(s, 10)),
    lambda s: (f"Authorization: Bearer {_mixed(s, 32)}", _mixed(s, 32)),
]
credential = st.one_of(
    st.tuples(st.sampled_from([make for _, make in MAKERS]), st.text(max_size=8)).map(
        lambda pair: (pair[0](pair[1]),) * 2),
    st.tuples(st.sampled_from(PLACED), st.text(max_size=8)).map(lambda p: p[0](p[1])))


@settings(max_examples=300)
@given(st.lists(st.tuples(credential, st.sampled_from(FILLERS), st.sampled_from(SEPARATORS),
                          st.sampled_from(SEPARATORS)), min_size=1, max_size=4))
@pytest.mark.slow
def test_redaction_never_leaves_a_credential(items: list[tuple[tuple[str, str], str, str, str]],
                                             ) -> None:
    text = "".join(f"{filler}{before}{placed}{after}"
                   for (placed, _), filler, before, after in items)
    redacted, count = redact(text)
    for _, secret in (item[0] for item in items):
        assert secret not in redacted
    assert count >= 1
    assert redact(redacted) == (redacted, 0)




# -- issue 19 (review i19 #9): two shapes the redactor missed ------------------------------

AWS_SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SHA = "3f2504e04f8911d39a0c0305e82c3301abcdef12"  # a git SHA: 40 hex characters
#: 40 random characters of the key alphabet with neither "/" nor "+" (28 % of real keys)
PLAIN_KEY = "Hq7Lm2Xp9RtW4kZb8NcV3fGd6SjA1yEu5TiOoPsK"


@pytest.mark.parametrize(("text", "expected"), [
    ("Authorization: Bearer\neyJhbGciOiJIUzI1NiJ9abc123XYZ",
     "Authorization: Bearer\n[REDACTED:bearer]"),
    ("curl -H 'Authorization: Bearer \r\n   abcDEF1234567890abcDEF1234567890\r\nnext",
     "curl -H 'Authorization: Bearer \r\n   [REDACTED:bearer]\r\nnext"),
    ("headers:\n  Authorization: Bearer\n  zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2\n  Accept: json",
     "headers:\n  Authorization: Bearer\n  [REDACTED:bearer]\n  Accept: json"),
    # near a key ID: after it, before it, with other text between (a CSV row, STS JSON)
    (f"{AWS},{PLAIN_KEY}\n", "[REDACTED:aws-access-key-id],[REDACTED:aws-secret-access-key]\n"),
    (f'{{"SecretAccessKey": "{PLAIN_KEY}", "AccessKeyId": "ASIAIOSFODNN7EXAMPLE"}}',
     '{"SecretAccessKey": "[REDACTED:aws-secret-access-key]", '
     '"AccessKeyId": "[REDACTED:aws-access-key-id]"}'),
    (f"id {AWS}\ncommit {SHA}\nkey {PLAIN_KEY}",
     f"id [REDACTED:aws-access-key-id]\ncommit {SHA}\nkey [REDACTED:aws-secret-access-key]"),
    # no key ID: random-looking (a digit, a "/" or "+") after a word naming it on its line
    (f"the staging key is {AWS_SECRET_KEY}.",
     "the staging key is [REDACTED:aws-secret-access-key]."),
    ("AWS secret: Zx9+Qw8/Er7+Ty6/Ui5+Op4/As3+Df2/Gh1+Jk0/ (rotated)",
     "AWS secret: [REDACTED:aws-secret-access-key] (rotated)"),
])
def test_a_bearer_token_on_its_own_line_and_an_unlabelled_aws_secret_key(
        text: str, expected: str) -> None:
    assert redact(text)[0] == expected
    assert redact(expected) == (expected, 0)
    assert might_contain_secret(text)


@pytest.mark.parametrize("text", [
    f"commit {SHA} on main",  # a git SHA (lower-case hex)
    f"files: {SHA.upper()}",  # upper-case hex: no lower case
    "uuid 3f2504e0-4f89-11d3-9a0c-0305e82c3301 and 7c9e6679-7425-40de-944b-e07fc1f90ae7",
    f"a plain random key run: {PLAIN_KEY} (no / or +)",  # declined without a key ID
    "set it to Zx9+Qw8/Er7+Ty6/Ui5+Op4/As3+Df2/Gh1+Jk0/ now",  # random, but nothing names it
    "use Zx9+Qw8/Er7+Ty6/Ui5+Op4/As3+Df2/Gh1+Jk0/ (the AWS secret)",  # named after it: a limit
    f"Credentials:\n  {AWS_SECRET_KEY}\n",  # the naming word is on another line
    "the key is in Src/Widgets2/Forms/Layouts/Grid3Views/Main",  # a path beside "key"
    "secret sauce: QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo/YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4",
    "see https://github.com/HypothesisWorks/hypothesis/pull/4266 for it",  # a URL's path
    "open Src/Widgets2/Forms/Layouts/Grid3Views.py and Docs/Api/Index",  # a path
    "data: QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo/YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo=",
    "base64 text: TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu and VGhpcyBpcyBqdXN0IHByb3Nl",
    "/B/B/B/B/B/B/B/BD7qD7qD7qD7qD7qD7qD7qD7q repeated bytes",
    "the bearer\nauthentication scheme is described below",  # a word, not a token
    "Authorization: Bearer\n\nThe next paragraph explains tokens in general terms.",
])
def test_the_new_shapes_leave_lookalikes(text: str) -> None:
    assert redact(text) == (text, 0), text


def test_a_dangling_bearer_takes_one_token_at_most() -> None:
    """F11: a ``bearer`` at a field's end must not swallow what follows: the newline form
    takes a single token standing alone on the next line, nothing more."""
    text = "Authorization: Bearer\nabcdefgh12345678 and the rest of the log line"
    assert redact(text) == (text, 0)  # not alone on its line: prose continues
    text = "Authorization: Bearer\nabcdefgh12345678\nThe push failed: remote rejected."
    redacted, count = redact(text)
    assert count == 1 and redacted.endswith("\nThe push failed: remote rejected.")


def test_several_keys_beside_one_id_are_redacted_idempotently() -> None:
    """The pair rule's match runs from the ID to the first key: a second key is redacted
    by the named rule or not at all, the same on every pass."""
    # a SHA beside a key ID stays (no upper case); only the ID goes
    assert redact(f"{AWS} is the example ID; the commit is {SHA}") == (
        f"[REDACTED:aws-access-key-id] is the example ID; the commit is {SHA}", 1)
    text = f"{AWS} {PLAIN_KEY} then the old key {AWS_SECRET_KEY} {PLAIN_KEY[::-1]}"
    once, count = redact(text)
    assert PLAIN_KEY not in once and AWS_SECRET_KEY not in once and count == 3
    assert PLAIN_KEY[::-1] in once  # random, unnamed, no ID before it: kept
    assert redact(once) == (once, 0)


def test_a_base64_pem_private_key_is_redacted_and_a_certificate_stays() -> None:
    """A PEM private key was recognised only as text: the same block base64-encoded, as
    kubeconfig's ``client-key-data`` and a Kubernetes TLS secret's ``tls.key`` hold it
    (``kubectl config view --raw`` in a session), went out whole. A base64 certificate
    or CA bundle beside it is public and stays."""
    kubeconfig = (f"    client-certificate-data: {CERT_B64}\n"
                  f"    client-key-data: {PEM_B64}\n    token: null\n")
    redacted, count = redact(kubeconfig)
    assert (count, PEM_B64[16:] in redacted, CERT_B64 in redacted) == (1, False, True)
    assert redacted.endswith("client-key-data: [REDACTED:private-key]\n    token: null\n")
    wrapped, count = redact(f"{PEM_B64_WRAPPED}\nnext line")
    assert (wrapped, count) == ("[REDACTED:private-key]\nnext line", 1)


@pytest.mark.parametrize(("text", "expected"), [
    # pasted unencoded: an "@" or "#" in the password left the rest of it (or all of it)
    ("https://admin:p@ssw0rd99@db.example.com/app",
     "https://admin:[REDACTED:url-password]@db.example.com/app"),
    ("DATABASE_URL=postgres://admin:Sup3r#Secret99@db:5432/app",
     "DATABASE_URL=postgres://admin:[REDACTED:url-password]@db:5432/app"),
    # JSON with escaped slashes (PHP's json_encode, some loggers): not seen as a URL
    ('{"dsn": "postgres:\\/\\/admin:Sup3rSecret99@db\\/app"}',
     '{"dsn": "postgres:\\/\\/admin:[REDACTED:url-password]@db\\/app"}'),
])
def test_a_url_password_with_at_or_hash_or_escaped_slashes_is_redacted(
        text: str, expected: str) -> None:
    assert redact(text) == (expected, 1)


@pytest.mark.parametrize("text", [
    "http://localhost:8080#top, or mail ops@example.com",
    "see https://example.com/a#b:c@d and ssh://git@github.com:org/repo.git",
    "redis://cache:6379/0 then email me@example.com",
])
def test_url_lookalikes_with_at_and_hash_stay(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", ["--token sk-\x1e", "--password a\x1fb", "--api-key x\x1cy z"])
def test_a_flag_value_holding_a_separator_control_is_judged_not_raised(text: str) -> None:
    """A flag's value holding a control character Python counts as a space (\\x1c-\\x1f):
    the check of a dotenv line's words asked the flag's match for its "=" group, which a
    flag has none of (IndexError: found by test_redaction_is_idempotent's Hypothesis run in
    the clean-clone CI, `--token sk-\\x1e`; the base tree raised it too). Redacting twice
    gives what redacting once gave."""
    once = redact(text)[0]
    assert redact(once)[0] == once
