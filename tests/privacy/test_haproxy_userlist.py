"""HAProxy's ``userlist`` keeps a user's password in clear after ``insecure-password``
(``user admin insecure-password …``, as the stats page's basic auth is set up): a keyword
then a space, which no rule read, so the password went to the model in clear and a pin
holding it was stored. Its hashed form (``password $6$…``) logs no one in, and stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    ("userlist stats_users\n    user admin insecure-password hunter22\n",
     "userlist stats_users\n    user admin insecure-password [REDACTED:secret]\n"),
    (f"  user ops insecure-password {PW} groups admins\n",
     "  user ops insecure-password [REDACTED:secret] groups admins\n"),
    (f'user ops insecure-password "{PW}"', 'user ops insecure-password "[REDACTED:secret]"'),
]

UNCHANGED: list[str] = [
    "user admin password $6$rounds=5000$saltsalt$Xk9vTq2mWz8rLp4nB7cDXk9vTq2mWz8rLp4n",
    "user ops insecure-password ${STATS_PASSWORD}",
    "HAProxy's insecure-password keyword keeps it in clear",
]


test_the_password_is_redacted, test_a_hash_or_reference_stays = shape_tests(CASES, UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"stats: user admin insecure-password {PW}", PW)
