"""Mailgun's API keys of today's shape (account and domain sending keys since 2023): 32
hex, then two groups of 8, with no ``key-`` label. One in a note was pinned by the real
CLI and shown to a remote provider in clear (only the older ``key-…`` shape was known).
UUIDs, digests and hex runs of one class stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import redact

KEY = "4f3c2a1b9e8d7c6b5a4f3e2d1c0b9a8f" + "-1a2b3c4d-5e6f7a8b"
GONE = "[REDACTED:mailgun-key]"


@pytest.mark.parametrize("text", [
    f"Mailgun sending key for prod is {KEY}",
    f"MAILGUN_SENDING={KEY}",
    f'{{"mailgun": "{KEY}"}}',
    f"curl -s --user 'api:{KEY}' https://api.mailgun.net/v3/mg.example.com/messages",
    f"use {KEY}.",
])
def test_a_key_of_todays_shape_is_redacted(text: str) -> None:
    assert might_contain_secret(text)
    redacted, _ = redact(text)
    assert KEY not in redacted and GONE in redacted, redacted


@pytest.mark.parametrize("text", [
    "request 123e4567-e89b-12d3-a456-426614174000 failed",
    "etag d41d8cd98f00b204e9800998ecf8427e-2",  # an S3 multipart ETag
    "00000000000000000000000000000000-00000000-00000000",
    "abcdefabcdefabcdefabcdefabcdefab-abcdefab-abcdefab",
    "layer 4f3c2a1b9e8d7c6b5a4f3e2d1c0b9a8f-1a2b3c4d-5e6f7a8b9",  # longer group: not this
    "sha-4f3c2a1b9e8d7c6b5a4f3e2d1c0b9a8f-1a2b3c4d-5e6f7a8b",  # part of a longer name
])
def test_look_alikes_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"Mailgun sending key for prod is {KEY}", KEY)


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"The mailgun sending key for prod is {KEY}", KEY,
                              "mailgun sending key", GONE)


UPPER = KEY.upper()
OLD_UPPER = "KEY-" + "3AX6XNJP29JD6FDS4GC373SGVJXTEOL0"


@pytest.mark.parametrize(("text", "key"), [
    (f"MAILGUN SENDING KEY IS {UPPER}", UPPER),
    (f"MAILGUN_API_KEY={UPPER}", UPPER),
    (f"mailgun key {OLD_UPPER} for prod", OLD_UPPER),
    (f"MAILGUN: {OLD_UPPER}.", OLD_UPPER),
])
def test_a_key_in_capitals_is_redacted(text: str, key: str) -> None:
    # a note written in capitals (``KEY-…``, today's shape's hex in capitals) went in clear
    assert might_contain_secret(text)
    redacted, _ = redact(text)
    assert key not in redacted and GONE in redacted, redacted


@pytest.mark.parametrize("text", [
    "REQUEST 123E4567-E89B-12D3-A456-426614174000 FAILED",
    "ABCDEFABCDEFABCDEFABCDEFABCDEFAB-ABCDEFAB-ABCDEFAB",
    "KEY-ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF",  # no digit: a name in capitals
    "API-KEY-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",  # part of a longer name
    f"{KEY[:32].upper()}-{KEY[33:41]}-{KEY[42:].upper()}",  # the cases mixed: no key's
])
def test_look_alikes_in_capitals_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_stored_one_in_capitals_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"The mailgun sending key for prod is {OLD_UPPER}",
                              OLD_UPPER, "mailgun sending key", GONE)
