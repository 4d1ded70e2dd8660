"""PgBouncer's ``userlist.txt`` (its ``auth_file``): a line of two quoted words, ``"app"
"…"``, the user and the password, in clear, as an MD5 hash (``md5<hex>``) or a SCRAM
secret, each of which logs in to PgBouncer (an MD5 or SCRAM entry authenticates as the
password does). The password went to the model in clear, and a pin holding it was stored.

Decided against false positives: two quoted words on a line of their own are read as such
an entry only; the hash and the SCRAM secret go wherever they stand, a plain word only
when the text names the file (userlist, pgbouncer, auth_file within 4 KB before it), and
otherwise only a value that reads random (as a value stated in prose must): a Makefile's or
a list's ``"foo" "bar"`` line stays."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
MD5 = "md5" + "3175bce1d3201d16594cebf9d7eb3f9d"
SCRAM = ("SCRAM-SHA-256$4096:5sHfSmMIBPXGPsXuv/vF5w==$Ffd5pD1vMOBUyqjxl/kh4bYKrYO3g1nUlN"
         "vbRmYIijs=:m6UjVuKZIe8cmWwALGsoELwHTzd5lsO9SEJMHRVUe7o=")

CASES: list[tuple[str, str]] = [
    (f'"app" "{PW}"', '"app" "[REDACTED:secret]"'),
    (f'$ cat /etc/pgbouncer/userlist.txt\n"stats" "{MD5}"\n',
     '$ cat /etc/pgbouncer/userlist.txt\n"stats" "[REDACTED:secret]"\n'),
    (f'"app" "{SCRAM}"', '"app" "[REDACTED:secret]"'),
    ('auth_file = /etc/pgbouncer/userlist.txt\n\n"app"\t"hunter22"',
     'auth_file = /etc/pgbouncer/userlist.txt\n\n"app"\t"[REDACTED:secret]"'),
]

UNCHANGED: list[str] = [
    '"foo" "bar"',  # two words of a list, a Makefile's, a test's
    '"app" "password123"',  # named no file: a plain word stays
    'print("app" "suffix")',
    '"app" "${PGBOUNCER_PASSWORD}"',
    '"app" "<password>"',
    'pgbouncer\n"app" ""',
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_password_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_two_quoted_words_that_name_none_stay(text: str) -> None:
    assert redact(text) == (text, 0)
