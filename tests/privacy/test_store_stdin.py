"""The secret a store's command reads on its standard input: ``vercel env add NAME
production <<< VALUE`` and ``gcloud secrets versions add NAME --data-file=- <<< VALUE``, or
``echo VALUE |`` before either, went to the model in clear, and a pin holding it was
stored (the pre-test let a ``vercel`` line, holding no ``:``, ``=`` or ``--``, skip every
rule). Each is redacted, its command kept, on ``redact``'s path and a provider's payload,
and a write holding it is refused; a reference, a file's name and other commands stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"

#: (text, what stays of it)
CASES: list[tuple[str, str]] = [
    (f"vercel env add DATABASE_PASSWORD production <<< '{PW}'",
     "vercel env add DATABASE_PASSWORD production <<< '[REDACTED:secret]'"),
    (f"vercel env add STRIPE_KEY preview <<< {PW}",
     "vercel env add STRIPE_KEY preview <<< [REDACTED:secret]"),
    (f"echo {PW} | vercel env add DB_PASS production",
     "echo [REDACTED:secret] | vercel env add DB_PASS production"),
    (f"vercel env add API_TOKEN production <<EOF\n{PW}\nEOF",
     "vercel env add API_TOKEN production <<EOF\n[REDACTED:secret]\nEOF"),
    (f"gcloud secrets versions add db-pass --data-file=- <<< {PW}",
     "gcloud secrets versions add db-pass --data-file=- <<< [REDACTED:secret]"),
    (f"echo -n '{PW}' | gcloud secrets create db-pass --data-file=-",
     "echo -n '[REDACTED:secret]' | gcloud secrets create db-pass --data-file=-"),
    (f'printf "%s" "{PW}" | gcloud secrets versions add db-pass --data-file -',
     'printf "%s" "[REDACTED:secret]" | gcloud secrets versions add db-pass --data-file -'),
    # the other stores that read it there, and an ``npx`` before the command
    (f"echo {PW} | gcloud secrets versions add db --data-file=/dev/stdin",
     "echo [REDACTED:secret] | gcloud secrets versions add db --data-file=/dev/stdin"),
    (f"printf '{PW}' | gh secret set DB_PASSWORD",
     "printf '[REDACTED:secret]' | gh secret set DB_PASSWORD"),
    (f"gh secret set DB_PASSWORD --repo o/r <<< {PW}",
     "gh secret set DB_PASSWORD --repo o/r <<< [REDACTED:secret]"),
    (f"echo {PW} | npx wrangler secret put DB_PASS",
     "echo [REDACTED:secret] | npx wrangler secret put DB_PASS"),
    (f"echo {PW} | npx vercel env add DB_PASS production",
     "echo [REDACTED:secret] | npx vercel env add DB_PASS production"),
    # kubectl's --from-file=[KEY=]/dev/stdin: piped, a here-string, a heredoc, or typed
    # on the line after the command
    (f"echo -n {PW} | kubectl create secret generic db --from-file=password=/dev/stdin",
     "echo -n [REDACTED:secret] | kubectl create secret generic db "
     "--from-file=password=/dev/stdin"),
    (f"kubectl create secret generic db --from-file=/dev/stdin <<< '{PW}'",
     "kubectl create secret generic db --from-file=/dev/stdin <<< '[REDACTED:secret]'"),
    (f"kubectl create secret generic db --from-file=pw=/dev/stdin <<EOF\n{PW}\nEOF",
     "kubectl create secret generic db --from-file=pw=/dev/stdin <<EOF\n[REDACTED:secret]\nEOF"),
    (f"$ kubectl create secret generic db --from-file=password=/dev/stdin\n{PW}\n"
     "secret/db created",
     "$ kubectl create secret generic db --from-file=password=/dev/stdin\n[REDACTED:secret]\n"
     "secret/db created"),
    (f"kubectl create secret generic db --from-file=/dev/stdin\n{PW}:",
     "kubectl create secret generic db --from-file=/dev/stdin\n[REDACTED:secret]"),
    # ``docker secret create NAME -``
    (f"echo {PW} | docker secret create db -",
     "echo [REDACTED:secret] | docker secret create db -"),
    (f"docker secret create --label a=b db - <<< {PW}",
     "docker secret create --label a=b db - <<< [REDACTED:secret]"),
]

#: what names no secret there: references, files, other commands
UNCHANGED: list[str] = [
    'vercel env add DB_PASS production <<< "$DB_PASS"',
    "echo $TOKEN | vercel env add API_TOKEN production",
    "vercel env add NAME production < .env.production",
    "vercel env ls | grep DB",
    "echo hello | vercel deploy --prod",
    "cat pw.txt | gcloud secrets create db --data-file=-",
    f"echo {PW} | gcloud secrets versions add db --data-file=secret.txt",
    "gh secret set DB < secret.txt",
    "echo $TOKEN | gh secret set DB",
    "gh secret list | grep DB",
    "echo hi | npx wrangler deploy",
    "echo $PW | kubectl create secret generic db --from-file=pw=/dev/stdin",
    "cat pw | kubectl create secret generic db --from-file=/dev/stdin\nsecret_db_created",
    "kubectl create secret generic db --from-file=/dev/stdin < pw.txt\nnext_command",
    "kubectl create secret generic db --from-file=./pw.txt\nkubectl_get_secrets",
    "docker secret create db ./db.txt",
    "echo $PW | docker secret create db -",
    "echo hi | docker secret ls",
    # a transcript's label or a code fence after the typed command: not what was typed
    "$ kubectl create secret generic db --from-file=pw=/dev/stdin\nOutput:\nsecret/db created",
    "kubectl create secret generic db --from-file=/dev/stdin\nResult:",
    "kubectl create secret generic db --from-file=/dev/stdin\n```console\n$ ls\n```",
    "kubectl create secret generic db --from-file=/dev/stdin\r\n~~~~text\r\n",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_secret_a_store_reads_on_stdin_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_references_and_other_commands_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI (it stored the pin, exit 0): refused, exit 2, the value not echoed."""
    assert_pin_refused(tmp_path, f"deploy: vercel env add DB_PASSWORD production <<< {PW}", PW)
