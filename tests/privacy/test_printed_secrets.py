"""What a command that prints a secret printed, in a pasted terminal session: the command,
then the secret alone on the next line (``op read op://…``, ``pass show …``, ``aws ecr
get-login-password``, ``kubectl get secret … -o jsonpath=… | base64 -d``, ``openssl rand
-hex 32``): it went out in clear. The value goes, the next prompt glued to it stays; a
command sent to a file or a pipe, a sentence naming the command, the next prompt and an
error stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vT2pQ" + "7mLwR4sZ"

COMMANDS = [
    "op read op://Private/db/password",
    "bw get password github.com",
    "pass show db/prod",
    "gopass show -o db/prod",
    "security find-generic-password -a deploy -s db -w",
    "aws ecr get-login-password --region us-east-1",
    "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "kubectl get secret db -o jsonpath='{.data.password}'",
    "gcloud secrets versions access latest --secret=db-password",
    "az keyvault secret show --vault-name kv --name db --query value -o tsv",
    "aws secretsmanager get-secret-value --secret-id db --query SecretString --output text",
    "aws --profile prod ssm get-parameter --name /db --with-decryption --query Parameter.Value"
    " --output text",
    "doppler secrets get DB_PASSWORD --plain",
    "infisical secrets get DB_PASSWORD --plain",
    "chamber read -q app db_password",
    "heroku auth:token",
    "lpass show --password db",
    "secret-tool lookup service db",
    "openssl rand -base64 32",
    "bin/rails secret",
    "mix phx.gen.secret",
]

#: each holds PW once, the printed value: what stays is the text with PW redacted
PRINTED = [f"$ {command}\n{PW}" for command in COMMANDS] + [
    f"deploy@web-1:~$ sudo pass show db/prod\n{PW}deploy@web-1:~$ exit",
    f"\u279c  app git:(main) op read op://Private/db/password\n{PW}",
    f"PS C:\\> op read op://Private/db/password\n{PW}\nPS C:\\> ",
]

UNCHANGED = [
    f"$ pass show db/prod > pw.txt\n{PW}",  # to a file: nothing printed
    f"$ op read op://Private/db/password | pbcopy\n{PW}",  # to a pipe
    f"Run op read op://Private/db/password to see it\n{PW}",  # a sentence naming it
    "You pass show business a ticket\nSomething_else_here",
    "deploy@web-1:~$ pass show db/prod\ndeploy@web-1:~$ ls",  # it printed nothing
    "$ pass show db/prod\nError: db/prod is not in the password store.",
    f"$ security find-generic-password -s db\n{PW}",  # no -w: attributes, not the password
    "$ openssl rand -hex 4\na1b2c3d4",  # too few bytes for a key
    f"$ kubectl get secret db -o yaml\n{PW}",  # a manifest (kube_secret's)
    f"$ aws ssm get-parameter --name /db --output text\n{PW}",  # not decrypted
]


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"$ aws ecr get-login-password\n{PW}", PW)


test_the_printed_secret_is_redacted, test_other_output_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in PRINTED], UNCHANGED)



#: what a command wrote on standard error before its value: heroku's (oclif's) ``›``
#: lines, a ``Warning:`` line; the value after them went out in clear
WARNED = [
    f"$ heroku auth:token\n \u203a   Warning: token will expire 12/31/2026\n \u203a   Use heroku"
    f" authorizations:create to generate a long-term token\n{PW}",
    f"$ heroku auth:token\n \u203a   Warning: token will expire 12/31/2026\n{PW}\n$ ls",
    f"$ gcloud secrets versions access latest --secret=db\nWARNING: Python 3.8 is deprecated\n{PW}",
]
#: a warning line is not the value, nor a sentence after one
WARNED_KEPT = [
    "$ heroku auth:token\n \u203a   Warning: token will expire 12/31/2026",
    "$ heroku auth:token\n \u203a   Error: not logged in\nRun heroku login first",
    "$ heroku auth:token\nWarning: Xk9vT2pQ7mLwR4sZ is the name of the app",
]

test_a_value_after_warnings_is_redacted, test_a_warning_alone_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in WARNED], WARNED_KEPT)


def test_the_cli_refuses_a_value_after_warnings(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, WARNED[0], PW)
