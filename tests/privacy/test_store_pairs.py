"""The values a platform's command keeps as secrets or config vars: ``fly secrets set
DB=VALUE``, ``heroku config:set DB=VALUE``, ``netlify env:set DB VALUE`` (and their
neighbours: supabase, vault kv, doppler, railway, eb, ``kubectl set env``, firebase,
``az keyvault secret set``). A name that
says nothing of a credential (``DB``) left the value to no rule: it went to the model in
clear, and a pin holding it was stored. Each is redacted, its command and names kept,
every pair of the line; references, settings and other commands stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"

#: (text, what stays of it)
CASES: list[tuple[str, str]] = [
    (f"fly secrets set DB={PW}", "fly secrets set DB=[REDACTED:secret]"),
    (f"flyctl secrets set DB='{PW}' -a web", "flyctl secrets set DB='[REDACTED:secret]' -a web"),
    ("fly secrets set SESSION=hunter22 --stage",
     "fly secrets set SESSION=[REDACTED:secret] --stage"),
    (f"heroku config:set DB={PW}", "heroku config:set DB=[REDACTED:secret]"),
    (f'heroku config:set RAILS_ENV=production DB="{PW}" -a web',
     'heroku config:set RAILS_ENV=production DB="[REDACTED:secret]" -a web'),
    (f"dokku config:set web DB={PW}", "dokku config:set web DB=[REDACTED:secret]"),
    (f"netlify env:set DB {PW}", "netlify env:set DB [REDACTED:secret]"),
    (f"npx netlify env:set API '{PW}' --context production",
     "npx netlify env:set API '[REDACTED:secret]' --context production"),
    # the other stores and platforms that keep a value so
    (f"supabase secrets set DB={PW}", "supabase secrets set DB=[REDACTED:secret]"),
    (f"vault kv put secret/app db={PW}", "vault kv put secret/app db=[REDACTED:secret]"),
    (f"doppler secrets set DB {PW}", "doppler secrets set DB [REDACTED:secret]"),
    (f"railway variables --set DB={PW}", "railway variables --set DB=[REDACTED:secret]"),
    (f"eb setenv DB={PW}", "eb setenv DB=[REDACTED:secret]"),
    (f"kubectl set env deploy/web DB={PW}", "kubectl set env deploy/web DB=[REDACTED:secret]"),
    (f"firebase functions:config:set stripe.key={PW}",
     "firebase functions:config:set stripe.key=[REDACTED:secret]"),
    (f"az keyvault secret set --vault-name v --name db --value {PW}",
     "az keyvault secret set --vault-name v --name db --value [REDACTED:secret]"),
]

#: what names no secret there
UNCHANGED: list[str] = [
    "fly secrets set DB=$DATABASE_URL",
    'fly secrets set DB="${DB}"',
    "fly secrets list",
    "fly secrets unset DB",
    "heroku config:set NODE_ENV=production WEB_CONCURRENCY=2",
    "heroku config:get DB",
    "netlify env:set DB $DB_VALUE",
    "netlify env:list",
    "the fly secrets set command keeps them encrypted",
    "vault kv put secret/app db=$DB",
    "doppler secrets set DB $VALUE",
    "railway variables --set NODE_ENV=production",
    "kubectl set env deploy/web LOG_LEVEL=debug --from=secret/db",
    "az keyvault secret set --name db --file pw.txt",
]


#: a config var's setting, under a name that says nothing of a credential: judged as an
#: assignment's value, each of these was redacted (a number, a zone, a version, an address,
#: JVM flags, a region), where only what reads as random is a credential there
SETTINGS: list[str] = [
    "heroku config:set TZ=Europe/Berlin",
    "heroku config:set MAX_UPLOAD_SIZE=10485760 -a web",
    "heroku config:set GOVERSION=go1.21.5",
    "heroku config:set DEFAULT_FROM_EMAIL=noreply@example.com",
    'heroku config:set JAVA_OPTS="-Xmx300m -Xss512k -XX:CICompilerCount=2"',
    "dokku config:set web STACK=heroku-22 LANG=en_US.UTF-8",
    "firebase functions:config:set env.region=us-central1",
    'firebase functions:config:set someservice.id="THE CLIENT ID"',
    "kubectl set env deploy/web TIMEOUT_MS=300000 IMAGE=ghcr.io/org/app:1.2.3",
    "eb setenv PYTHON=python-3.11.7 STARTED=2024-01-01T00:00:00Z",
    "railway variables --set TENANT=550e8400-e29b-41d4-a716-446655440000",
]
#: and what reads as random there still goes (hex, base64, an AWS secret key's shape)
RANDOM: list[str] = [
    "7f3a9c2b4e1d8f6a0b5c3e2d1f4a6b8c", "dGhpcyBpcyBhIHNlY3JldA==",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "P@ssw0rd!",
]


@pytest.mark.parametrize("text", SETTINGS)
def test_a_config_vars_setting_stays(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "netlify env:set NODE_VERSION 18", "netlify env:set AWS_LAMBDA_JS_RUNTIME nodejs18.x",
    "netlify env:set SITE_URL https://example.com --context production",
    'npx netlify env:set GREETING "hello world"', "netlify env:set HUGO_VERSION 0.121.1",
])
def test_a_netlify_variable_is_a_config_var(text: str) -> None:
    """``netlify env:set NAME VALUE`` sets a build's environment variable, a setting as a
    Heroku config var is (a secret one is marked ``--secret``): every value was redacted,
    and a pin saying which Node version the build uses was refused."""
    assert redact(text) == (text, 0)
    assert redact(f"netlify env:set DB {PW}") == ("netlify env:set DB [REDACTED:secret]", 1)
    assert redact("netlify env:set DB hunter22 --secret") == (
        "netlify env:set DB [REDACTED:secret] --secret", 1)


@pytest.mark.parametrize("value", RANDOM)
def test_a_config_var_that_reads_as_random_goes(value: str) -> None:
    text = f"heroku config:set TZ=Europe/Berlin DB='{value}' WEB_CONCURRENCY=3"
    assert redact(text) == ("heroku config:set TZ=Europe/Berlin DB='[REDACTED:secret]' "
                            "WEB_CONCURRENCY=3", 1)


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_value_a_store_keeps_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


def test_every_pair_of_the_line_goes() -> None:
    text = f"fly secrets set A={PW} B={PW}2 C=$C -a web"
    assert redact(text) == ("fly secrets set A=[REDACTED:secret] B=[REDACTED:secret] C=$C "
                            "-a web", 2)


@pytest.mark.parametrize(("text", "kept"), [
    (f"fly secrets set DB='{PW}&x;y'", "fly secrets set DB='[REDACTED:secret]'"),
    (f'heroku config:set DB="{PW}|z" -a web', 'heroku config:set DB="[REDACTED:secret]" -a web'),
    (f"vault kv put secret/app db='p;{PW}'", "vault kv put secret/app db='[REDACTED:secret]'"),
])
def test_a_quoted_value_holding_a_shell_operator_goes(text: str, kept: str) -> None:
    """A generated password holds ``&``, ``|`` or ``;``, quoted as the shell needs: the
    rule's line ended at the first of them, inside the quotes, and the value went out."""
    assert_one_secret_redacted(text, kept)


def test_the_pairs_after_a_quoted_operator_go_too() -> None:
    text = f"fly secrets set A='x&y' B={PW} -a web && fly deploy"
    assert redact(text) == ("fly secrets set A='[REDACTED:secret]' B=[REDACTED:secret] "
                            "-a web && fly deploy", 2)


@pytest.mark.parametrize(("text", "kept"), [
    (f'railway variables --set "DB={PW}" --set "PORT=3000"',
     'railway variables --set "DB=[REDACTED:secret]" --set "PORT=3000"'),
    (f"fly secrets set 'DB={PW}' -a web", "fly secrets set 'DB=[REDACTED:secret]' -a web"),
    (f'heroku config:set "DB={PW}" "GREETING=hello world"',
     'heroku config:set "DB=[REDACTED:secret]" "GREETING=hello world"'),
])
def test_a_pair_quoted_whole_goes(text: str, kept: str) -> None:
    """``railway variables --set "KEY=value"``, as Railway's docs write it (and any
    command's pair quoted whole, for a value with a space or a symbol): the pair was read
    from its name only, after a space, so the value went out in clear."""
    assert_one_secret_redacted(text, kept)


def test_the_pairs_of_a_command_continued_on_later_lines_go() -> None:
    """``fly secrets set \\`` with a pair on each line after it, as docs and scripts write
    a long command: the rule read the command's first line only, so every value went out
    in clear, and a pin holding them was stored."""
    # (the line after the command: a weak password the store's rule would take, were it
    # read as the command's, and no other rule does; a generated one is env_line's now)
    text = (f"fly secrets set \\\n  DB={PW} \\\r\nSESSION='{PW}2' \\\n  -a web\n"
            "echo DB=hunter22")
    assert redact(text) == ("fly secrets set \\\n  DB=[REDACTED:secret] \\\r\n"
                            "SESSION='[REDACTED:secret]' \\\n  -a web\n"
                            "echo DB=hunter22", 2)
    assert_one_secret_redacted(f"heroku config:set \\\n  DB={PW} \\\n  WEB_CONCURRENCY=3",
                               "heroku config:set \\\n  DB=[REDACTED:secret] \\\n"
                               "  WEB_CONCURRENCY=3")


@pytest.mark.parametrize("text", UNCHANGED)
def test_references_and_other_commands_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI (it stored the pin, exit 0): refused, exit 2, the value not echoed."""
    assert_pin_refused(tmp_path, f"deploy: heroku config:set DB={PW} -a web", PW)
