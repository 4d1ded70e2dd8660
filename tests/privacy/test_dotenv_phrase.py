"""A dotenv line's unquoted value with spaces (``DB_PASSWORD=correct horse battery
staple``): a .env reader (python-dotenv, ``docker --env-file``, Compose) takes it to the
line's end, but only its first word was redacted, and the rest of the passphrase went to
the model in clear. The line's value goes whole when the rest of it is words; a command
after an environment prefix (``PGPASSWORD=… psql -h db``), a comment, and a value inside a
sentence keep what follows, and so does a command of words after a generated value
(``DB_PASSWORD=Xk9vT2pQ7mLwR4sZ rails s``: `` rails s`` was redacted with it)."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

CASES: list[tuple[str, str]] = [
    ("DB_PASSWORD=correct horse battery staple\n", "DB_PASSWORD=[REDACTED:secret]\n"),
    ("PORT=8080\nexport DB_PASSWORD=correct horse battery staple",
     "PORT=8080\nexport DB_PASSWORD=[REDACTED:secret]"),
    ("  SMTP_PASS=Tr0ub4dor horse staple  \r\nTZ=UTC",
     "  SMTP_PASS=[REDACTED:secret]  \r\nTZ=UTC"),
    # a random first word and a word after it (the property test's example): the line's
    # rest read with it made a phrase of two words, and the password went in clear
    ("the\npassword=9DMny3UWo2va key\n", "the\npassword=[REDACTED:secret]\n"),
]

KEPT: list[tuple[str, str]] = [
    # a command after the environment it is given
    ("PGPASSWORD=Xk9mQ2pL7vR3 psql -h db -U admin",
     "PGPASSWORD=[REDACTED:secret] psql -h db -U admin"),
    ("DB_PASSWORD=hunter22 # rotated in May", "DB_PASSWORD=[REDACTED:secret] # rotated in May"),
    ("then set DB_PASSWORD=hunter22 and restart the app",
     "then set DB_PASSWORD=[REDACTED:secret] and restart the app"),
    ("password: see the vault", "password: see the vault"),  # prose after a colon stays
    # a command of words after a generated value, the command's environment: the token is
    # whole, and the command was redacted with it (`` rails s`` lost)
    ("DB_PASSWORD=Xk9vT2pQ7mLwR4sZ rails s", "DB_PASSWORD=[REDACTED:secret] rails s"),
    ("  SECRET_KEY_BASE='Xk9vT2pQ7mLwR4sZ' bundle exec puma\n",
     "  SECRET_KEY_BASE='[REDACTED:secret]' bundle exec puma\n"),
    ("RAILS_MASTER_KEY=3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c bin rails console",
     "RAILS_MASTER_KEY=[REDACTED:secret] bin rails console"),
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_line_s_value_goes_whole(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize(("text", "kept"), KEPT)
def test_what_follows_a_value_that_is_not_its_rest_stays(text: str, kept: str) -> None:
    assert redact(text)[0] == kept


@pytest.mark.parametrize("text", ["DB_PASSWORD=TODO fill me in", "API_TOKEN=see the vault"])
def test_a_placeholder_phrase_stays_as_a_quoted_one_does(text: str) -> None:
    assert redact(text) == (text, 0)
