"""Credential shapes the redactor missed or over-redacted, each through the real path a
stored claim takes to a remote model (the recall digest for ``openai``), with the ordinary
text around each new rule left exactly as it was.

- a short-flag password of a password-taking command (``mysql -pS3cretPass``): ``mkdir -p``,
  ``ssh -p 22`` and ``git log -p`` stay;
- ``Authorization: token <opaque>`` (GitHub's older scheme);
- a zero-width or other format character inside a token;
- a URL whose user is ``x-access-token`` and whose password is a token: only the token goes,
  the host and path stay;
- curl's ``-u USER:PASSWORD`` (``--user``, ``-U``): ``-u USER`` alone prompts, and a
  variable's reference is no password;
- a registry login's ``-p PASSWORD`` (``docker login``, Podman, Helm, ``az login``),
  ``sshpass -p`` and redis-cli's ``-a``: ``docker run -p 8080:80`` stays;
- a ``.netrc`` line's password (``machine H login U password P``), base64 ``user:pass``
  under an ``auth`` key (Docker's config.json, .npmrc's ``_auth``), a name ending in
  ``PASS`` (``DB_PASS``, rclone's ``pass =``): prose such as "pass: the tests passed" stays;
- the password flags of openssl (``-k``, ``-pass``/``-passin``/``-passout pass:``), zip
  (``-P``), 7-Zip (``-pPASS``), the OpenLDAP clients (``-w``) and smbclient
  (``-U user%PASS``): ``zip -r``, ``7z x``, ``ldapsearch -W`` and ``ssh -p 22`` stay;
- vendor tokens: HashiCorp Vault, Atlassian, Linear, Square, Databricks, Sentry, age
  secret keys and Mapbox secret tokens (a public ``pk.`` Mapbox token stays).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.privacy.digests import digest_for, digest_said, stored_home
from tests.privacy.secret_corpus import TOKENS, mapbox_secret_token, sentry_org_token
from waymarks.core.secrets import might_contain_secret, redact
from waymarks.service.app import Waymarks

GHS = "ghs_" + "Qx7mP2vL9kR4tW8nZ3cY6bH1jD5fG0sA2eU4"
GHP = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
HEX40 = "3f9a0c7e1b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a"
#: base64 of "ci:S3cretPass" and of "deploy:Hunter2Pass"
CI_AUTH = "Y2k6UzNjcmV0UGFzcw=="
DEPLOY_AUTH = "ZGVwbG95Okh1bnRlcjJQYXNz"
VAULT = "hv" + "s.CAESIJ" + "Qx7mP2vL9kR4tW8nZ3cY6bH1jD5fG0sA2eU4" * 3
ATLASSIAN = ("ATATT" + "3xFfGF0" + "Tk9vRq2Lm8Zx4Wc7Yb1Nd5Hf3Jg6Ps0Ua_Ke-" * 4 + "Xy7Qv2Lm9Rt4Wz"
             + "Bc5Nd8Hf=" + "1A2B3C4D")
LINEAR = "lin_" + "api_" + "Qx7mP2vL9kR4tW8nZ3cY6bH1jD5fG0sA2eU4Tz8K"
SQUARE = "sq0" + "atp-" + "Qx7mP2vL9kR4tW8nZ3cY6b"
DATABRICKS = "da" + "pi" + "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
SENTRY_USER = "sntry" + "u_" + "9f8e7d6c5b4a39281706f5e4d3c2b1a0" * 2
AGE = "AGE-SECRET-" + "KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" + "ZX8GF2TVDW0S3JN54KHCE6MUA7"

#: (topic word, stored text, what must not leave, what must stay)
CASES: list[tuple[str, str, str, list[str]]] = [
    ("quokka", "quokka backup: mysql -u root -pS3cretPass shop > dump.sql",
     "S3cretPass", ["mysql -u root -p", "shop > dump.sql"]),
    ("wombat", "wombat restore: mysql -h db -u app -p'Tr0ub4dor' shop < dump.sql",
     "Tr0ub4dor", ["mysql -h db -u app -p", "shop < dump.sql"]),
    ("numbat", 'numbat export: mysqldump -uroot -p"Zq8!vLm2" --all-databases',
     "Zq8!vLm2", ["mysqldump -uroot -p", "--all-databases"]),
    ("dingo", "dingo check: mariadb --host db -pHunter2Pass -e 'select 1'",
     "Hunter2Pass", ["mariadb --host db -p", "-e 'select 1'"]),
    ("kiwi", f"kiwi api: curl -H 'Authorization: token {HEX40}' https://api.github.com/user",
     HEX40, ["Authorization: token ", "https://api.github.com/user"]),
    ("takahe", f'takahe headers: {{"Authorization": "token {HEX40}", "Accept": "json"}}',
     HEX40, ['{"Authorization": "token ', '"Accept": "json"}']),
    ("galago", "galago health: curl -s -u deploy:Kx9vTq2Lm https://ci.example.com/api",
     "Kx9vTq2Lm", ["curl -s -u deploy:", " https://ci.example.com/api"]),
    ("potoroo", "potoroo hook: curl --user 'bot:W4ll@by!' -X POST https://hooks.example.com",
     "W4ll@by!", ["curl --user 'bot:", "' -X POST https://hooks.example.com"]),
    ("quoll", "quoll proxy: curl -U squid:Pr0xyPa55 -x http://proxy:3128 https://x.io",
     "Pr0xyPa55", ["curl -U squid:", " -x http://proxy:3128 https://x.io"]),
    ("wallaroo", "wallaroo push: docker login -u ci -p Qz7vRt2Kx registry.example.com",
     "Qz7vRt2Kx", ["docker login -u ci -p ", " registry.example.com"]),
    ("pademelon", "pademelon: sshpass -p 'Mv3 kL9q' ssh deploy@host uptime",
     "Mv3 kL9q", ["sshpass -p '", "' ssh deploy@host uptime"]),
    ("bettong", "bettong cache: redis-cli -h cache -p 6379 -a Rk8sWq3Z ping",
     "Rk8sWq3Z", ["redis-cli -h cache -p 6379 -a ", " ping"]),
    ("echidna", "echidna ~/.netrc: machine github.com login deploy password Tr0ub4dor3x",
     "Tr0ub4dor3x", ["machine github.com login deploy password "]),
    ("platypus", f'platypus docker config: {{"auths":{{"ghcr.io":{{"auth":"{DEPLOY_AUTH}"}}}}}}',
     DEPLOY_AUTH, ['{"auths":{"ghcr.io":{"auth":"', '"}}}']),
    ("kookaburra", f"kookaburra npmrc: //registry.npmjs.org/:_auth={CI_AUTH} then install",
     CI_AUTH, ["//registry.npmjs.org/:_auth=", " then install"]),
    ("wallaby", "wallaby env file:\nDB_PASS: Kv7mQ2xLp9\nDB_HOST: db", "Kv7mQ2xLp9",
     ["DB_PASS: ", "DB_HOST: db"]),
    ("koala", "koala rclone.conf:\n[nas]\ntype = sftp\npass = Zt4nW8qRv2\n", "Zt4nW8qRv2",
     ["type = sftp", "pass = "]),
    ("thylacine", "thylacine: openssl enc -aes-256-cbc -k Mq3vX8pLz -in a.tar -out a.enc",
     "Mq3vX8pLz", ["openssl enc -aes-256-cbc -k ", " -in a.tar -out a.enc"]),
    ("cockatoo", "cockatoo: openssl pkcs12 -export -in c.pem -passout pass:Wd5tR9kQm -out c.p12",
     "Wd5tR9kQm", ["-passout pass:", " -out c.p12"]),
    ("possum", "possum: zip -P Hn6wQ2vLx secrets.zip notes.txt", "Hn6wQ2vLx",
     ["zip -P ", " secrets.zip notes.txt"]),
    ("goanna", "goanna: 7z a -pRf8mK3tVq -mhe=on backup.7z data", "Rf8mK3tVq",
     ["7z a -p", " -mhe=on backup.7z data"]),
    ("tuatara", "tuatara: ldapsearch -x -D cn=admin,dc=ex -w Lp4nZ7xQr -b dc=ex", "Lp4nZ7xQr",
     ["ldapsearch -x -D cn=admin,dc=ex -w ", " -b dc=ex"]),
    ("pukeko", "pukeko: smbclient //fs/share -U alice%Vb2kM9tWq -c ls", "Vb2kM9tWq",
     ["smbclient //fs/share -U alice%", " -c ls"]),
    ("kaka", f"kaka vault: the login printed {VAULT} for ops", VAULT[4:],
     ["the login printed ", " for ops"]),
    ("kowari", f"kowari jira: the bot signs in with {ATLASSIAN} daily", ATLASSIAN[6:],
     ["the bot signs in with ", " daily"]),
    ("kaki", f"kaki linear: the key {LINEAR} for triage", LINEAR[8:],
     ["the key ", " for triage"]),
    ("kokako", f"kokako payments: square access {SQUARE} in sandbox", SQUARE[7:],
     ["square access ", " in sandbox"]),
    ("saddleback", f"saddleback notebooks: databricks token {DATABRICKS} expires", DATABRICKS[4:],
     ["databricks token ", " expires"]),
    ("hihi", f"hihi errors: sentry-cli with {SENTRY_USER} and {sentry_org_token('hihi')} ok",
     SENTRY_USER[7:], ["sentry-cli with ", " ok"]),
    ("takoha", f"takoha secrets: age key {AGE} in keys.txt", AGE[16:],
     ["age key ", " in keys.txt"]),
    ("tieke", f"tieke maps: mapbox upload token {mapbox_secret_token('tieke')} for tiles",
     mapbox_secret_token("tieke")[3:], ["mapbox upload token ", " for tiles"]),
    # already redacted before these fixes; kept beside the new rules as guards
    ("moa", f'moa headers: {{"Authorization": "Bearer {HEX40}", "Accept": "json"}}',
     HEX40, ['{"Authorization": "Bearer ', '"Accept": "json"}']),
    ("tui", "tui api: curl -H 'Authorization: Basic ZGVwbG95Okh1bnRlcjJQYXNz' https://x.io",
     "ZGVwbG95Okh1bnRlcjJQYXNz", ["Authorization: Basic ", "https://x.io"]),
    ("kakapo", f"kakapo registry token {GHP[:10]}\u200b{GHP[10:]} rotated monthly",
     GHP[10:24], ["kakapo registry token ", " rotated monthly"]),
    ("kea", f"kea token \ufeff{GHP[:20]}\u2060{GHP[20:]} in CI", GHP[20:34],
     ["kea token ", " in CI"]),
    ("weka", f"weka clone https://x-access-token:{GHS}@github.com/owner/repo.git daily",
     GHS[4:], ["https://x-access-token:", "@github.com/owner/repo.git daily"]),
]
#: ordinary text beside the new rules: comes back exactly
UNCHANGED: list[tuple[str, str]] = [
    ("emu", "emu layout: mkdir -p build/out && ssh -p 22 deploy@host && git log -p HEAD"),
    ("cassowary", "cassowary: mysql -p shop prompts for the password; mysql -P 3306 -h db"),
    ("brolga", "brolga: gcc $(mysql_config --cflags) -pthread main.c -o main"),
    ("jabiru", "jabiru: the Authorization: token based scheme is deprecated"),
    ("galah", "galah note: the Authorization: token header was replaced in 2021"),
    ("lyrebird", "lyrebird: a zero\u200bwidth space inside ordinary words stays"),
    ("bilby", "bilby mirror https://github.com/owner/repo.git and git@github.com:o/r.git"),
    ("bandicoot", "bandicoot: curl -u admin https://x.io prompts; curl -u $CI_USER:$CI_PASS "
                  "https://x.io; curl -fsSL https://get.example.sh | sh -s -- -u"),
    ("dunnart", "dunnart: docker run -p 8080:80 web; docker login -u ci -p $CI_TOKEN r.io; "
                "redis-cli -p 6379 ping; sshpass -f pwfile ssh host"),
    ("antechinus", "antechinus report: pass: the tests passed; PASS: test-suite; bypass: 1234567"),
    ("quenda", "quenda: zip -r out.zip src; 7z x archive.7z; ldapsearch -x -W -D cn=admin; "
               "ssh -p 22 host; openssl enc -kfile k.txt -pass env:PW"),
    ("mulgara", "mulgara: the machine login screen asks for a password; auth: required"),
    ("ningaui", "ningaui maps: pk.eyJ1IjoiZXhhbXBsZSIsImEiOiJjbGV4YW1wbGUifQ.public-token-here"),
]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Waymarks]:
    """Every case as a claim, written as an older version or a hand edit would leave it
    (writes holding a credential are refused now). One home for the module: the tests
    only recall from it (built once per worker, not once per case)."""
    with stored_home(tmp_path_factory.mktemp("gaps"),
                     [text for _word, text, *_rest in (*CASES, *UNCHANGED)]) as app:
        yield app


@pytest.mark.parametrize(("word", "secret", "kept"),
                         [(w, s, k) for w, _t, s, k in CASES], ids=[c[0] for c in CASES])
def test_the_credential_leaves_and_its_context_stays(stored: Waymarks, word: str, secret: str,
                                                    kept: list[str]) -> None:
    digest = digest_for(stored, word)
    assert secret not in digest and secret[:6] not in digest_said(digest).replace(word, "")
    assert "[REDACTED:" in digest
    for part in kept:
        assert part.replace('"', '\\"') in digest, part


@pytest.mark.parametrize(("word", "text"), UNCHANGED, ids=[u[0] for u in UNCHANGED])
def test_ordinary_text_beside_the_new_rules_stays(stored: Waymarks, word: str,
                                                  text: str) -> None:
    digest = digest_for(stored, word)
    assert "[REDACTED:" not in digest
    expected = text.replace("\u200b", "\\u200b")  # the quoting's escape, same value
    assert expected in digest


INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e"]


@pytest.mark.parametrize("mark", INVISIBLE, ids=[f"U+{ord(m):04X}" for m in INVISIBLE])
def test_an_invisible_character_inside_any_token_does_not_hide_it(mark: str) -> None:
    for kind, token in TOKENS:
        middle = len(token) // 2
        hidden = f"{mark}see {token[:middle]}{mark}{token[middle:]} then{mark} go"
        redacted, count = redact(hidden)
        assert count == 1 and token[middle:] not in redacted, kind
        # the text around the span is the text as it was, invisible characters included
        assert redacted.startswith(f"{mark}see ") and redacted.endswith(f" then{mark} go")
        assert redact(redacted) == (redacted, 0)
        assert might_contain_secret(hidden)


@pytest.mark.parametrize("text", [
    "git clone https://Xq9vT2mLp4RzAb12CdEf@github.com/acme/app.git",
    "remote: https://Xq9vT2mLp4RzAb12CdEf34@bitbucket.org/acme/app.git (fetch)",
    '{"url": "https:\\/\\/Xq9vT2mLp4RzAb12CdEf@git.example.com\\/a.git"}',
])
def test_a_token_as_a_urls_user_is_redacted(text: str) -> None:
    """A token pasted as the user of a URL, with no password (``https://TOKEN@github.com``,
    as Git and GitHub accept it), went out whole: the URL's rule took a password only."""
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4RzAb12" not in redacted
    assert "[REDACTED:url-token]@" in redacted and ("github.com" in redacted
                                                   or "bitbucket.org" in redacted
                                                   or "git.example.com" in redacted)
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    "git clone https://git@github.com/acme/app.git", "ssh://deploy-bot-2024@build.example.com",
    "postgres://postgres@db/app", "https://first.last@example.com/x",
    "https://alice%40example.com@host/", "ssh://ubuntu@ec2-3-120-1-2.compute.amazonaws.com",
])
def test_a_plain_user_of_a_url_stays(text: str) -> None:
    assert redact(text) == (text, 0)
