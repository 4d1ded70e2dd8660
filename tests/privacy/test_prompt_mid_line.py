"""A secret typed at a program's prompt with more words after it on the prompt's line: a
transcript or a note goes on after the value (``[sudo] password for dev: … and then the
install ran``), or quotes the prompt inside a clause (``ssh in, then Enter passphrase for
key '…': … and it works``). Each was pinned by the real CLI and shown to a remote
provider in clear: the rule wanted the value to end its line. What a program printed
after a prompt (``Sorry, try again``, ``remote: …``), a mask, a reference and sentences
naming a password stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused, shape_tests

PW = "hunter2" + "-long"
GONE = "[REDACTED:secret]"

#: each holds PW once
TYPED = [
    f"[sudo] password for dev: {PW} and then the install ran",
    f"Password for 'https://dev@github.com': {PW} then it pushed",
    f"Enter passphrase for key '/home/dev/.ssh/id_ed25519': {PW} worked",
    f"Enter host password for user 'admin': {PW}, and the upload went",
    f"ran sudo apt install, [sudo] password for dev: {PW} and it installed",
    f"ssh in, then Enter passphrase for key '/home/dev/.ssh/id': {PW} and it works",
    f"then enter password for root: {PW} and continue",
    f"Token (will be hidden): {PW} then Success!",
    f"ran git push, Password for 'https://dev@github.com': {PW} then it pushed",
    f"tried again; Password for 'https://git.example.com': {PW} and it went",
]

KEPT = [
    "[sudo] password for dev: sorry, try again",
    "[sudo] password for dev: Sorry, try again.",
    "Enter passphrase for key '/home/dev/.ssh/id': Identity added: x",
    "Password for 'https://dev@github.com': remote: Invalid username or password.",
    "Token (will be hidden): Success! You are now authenticated.",
    "Enter host password for user 'admin': ******** then it uploaded",
    "then password for dev: $PW and go",
    "and the token for CI: rotated weekly now",
    "Reset the password for the admin account: Xk9vT2pQ7mLwR4sZ",
    "git prints Password for 'https://host': when no helper is set",
    "We rotate the token for CI: weekly, then the deploy",
    "on a push, Password for 'https://host': when no helper is set",
    "and then Password for 'https://host': appears twice",
    "in CI, Password for the deploy user: rotated weekly now",
]


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, TYPED[0], PW)


def test_the_cli_refuses_git_s_prompt_quoted_after_a_clause(tmp_path: Path) -> None:
    # git's prompt has no prompt word before its noun: its quoted `for '…'` marks it
    assert_pin_refused(tmp_path, TYPED[8], PW)


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"sudo install: {TYPED[0]}", PW, "sudo install", GONE)


test_the_typed_value_is_redacted, test_output_a_mask_or_prose_stays = shape_tests(
    [(text, text.replace(PW, GONE)) for text in TYPED], KEPT)
