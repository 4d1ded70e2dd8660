"""A secret typed at a program's prompt, as a captured session shows it: the value on the
prompt's line after it (echoed, or written in by a transcript) or alone on the next line.
Git's ``Password for 'https://…':``, wrangler's ``? Enter a secret value:``, ssh-keygen's
and ssh-add's passphrase prompts, sudo's, ``vault login``'s ``Token (will be hidden):``:
each went out in clear (``for …``, a parenthesis or ``value`` between the noun and its
colon is no assignment's separator). What a program printed after a prompt with nothing
typed, a mask, a reference, a placeholder and a sentence stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vT2pQ" + "7mLwR4sZ"
GONE = "[REDACTED:secret]"

#: each holds PW once
TYPED = [
    f"$ git push\nUsername for 'https://github.com': dev\nPassword for 'https://dev@github.com':"
    f" {PW}\nremote: Enumerating objects: 5, done.",
    f"$ git push\nPassword for 'https://dev@github.com':\n{PW}\nremote: Enumerating objects",
    f"$ npx wrangler secret put API_KEY\n? Enter a secret value: {PW}\n"
    "\u2728 Success! Uploaded secret API_KEY",
    f"$ npx wrangler secret put API_KEY\n? Enter a secret value: \u203a {PW}",
    f"$ ssh-add ~/.ssh/id_ed25519\nEnter passphrase for key '/home/dev/.ssh/id_ed25519': {PW}\n"
    "Identity added: /home/dev/.ssh/id_ed25519",
    f"Enter new passphrase (empty for no passphrase): {PW}",
    f"Enter same passphrase again: {PW}",
    f"[sudo] password for dev: {PW}",
    f"$ vault login\nToken (will be hidden): {PW}\nSuccess! You are now authenticated.",
    f"$ vault login\nToken (will be hidden):\n{PW}\nSuccess! You are now authenticated.",
    f"Enter PEM pass phrase: {PW}",
    f"Enter host password for user 'admin': {PW}",
]

KEPT = [
    "Password for 'https://dev@github.com': ",
    "Password for 'https://dev@github.com':\nremote: Invalid username or password.",
    "Password for 'https://dev@github.com':\nWelcome",
    "Password for 'https://dev@github.com':\nfatal: Authentication failed",
    "Password for 'https://dev@github.com': $GIT_PASSWORD",
    "Enter passphrase for key '/home/dev/.ssh/id_ed25519':\nIdentity added: ~/.ssh/id",
    "[sudo] password for dev:\ndev@web-1:~$",
    "? Enter a secret value: ********",
    "Enter new passphrase (empty for no passphrase): <passphrase>",
    "Token (will be hidden):\nSuccess!",
    "Reset the password for the admin account: Xk9vT2pQ7mLwR4sZ",
    "We rotate the token for CI: weekly",
    "git prints Password for 'https://host': when no helper is set",
]


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"push:\nPassword for 'https://dev@github.com': {PW}", PW)


test_the_typed_value_is_redacted, test_output_a_mask_or_prose_stays = shape_tests(
    [(text, text.replace(PW, GONE)) for text in TYPED], KEPT)
