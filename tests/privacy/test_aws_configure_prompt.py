"""``aws configure`` run in a terminal and pasted: ``AWS Secret Access Key [None]: KEY``
(or ``[****************EKEY]``, the key already set): the key ID on the line before was
taken, the secret key after the prompt's bracketed default went out in clear (a bracket
parted the name from the value, so no rule read it). A placeholder before a value still
parts them."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secrets import redact

KEY = "Xk9vT2pQ7mLwR4sZXk9vT2pQ7mLwR4sZab12/+Qz"


def test_the_secret_key_typed_at_the_prompt_is_redacted() -> None:
    transcript = ("$ aws configure\nAWS Access Key ID [None]: AKIAIOSFODNN7EXAMPLE\n"
                  f"AWS Secret Access Key [None]: {KEY}\nDefault region name [None]: eu-west-1")
    assert redact(transcript) == (
        "$ aws configure\nAWS Access Key ID [None]: [REDACTED:aws-access-key-id]\n"
        "AWS Secret Access Key [None]: [REDACTED:aws-secret-access-key]\n"
        "Default region name [None]: eu-west-1", 2)


def test_a_masked_default_before_it_too() -> None:
    assert redact(f"AWS Secret Access Key [****************EKEY]: {KEY}") == (
        "AWS Secret Access Key [****************EKEY]: [REDACTED:aws-secret-access-key]", 1)


def test_a_path_after_the_prompt_stays() -> None:
    text = "AWS Secret Access Key [None]: Src/Widgets2/Forms/Panels/Modules/Abc1"
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"setup: AWS Secret Access Key [None]: {KEY}", KEY)
