"""PHP's constants (``define('DB_PASSWORD', '…');``), as wp-config.php holds WordPress's
database password and its keys and salts: the value went to the model in clear, and a
pin holding it was stored: a constant's name is a string argument, not an assignment's
name. A constant named for a credential is judged as an assignment's quoted value; any
other as a config var's (what reads as random goes: WordPress's ``NONCE_SALT``; a URL, a
flag, the sample's "put your unique phrase here" stay)."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
SALT = "k9!X#m2@Lq^7vZ&p(4Rt)8wY*3nB%6cD+1fH=5jK"

CASES: list[tuple[str, str]] = [
    (f"define('DB_PASSWORD', '{PW}');", "define('DB_PASSWORD', '[REDACTED:secret]');"),
    (f'define( "AUTH_KEY", "{PW}" );', 'define( "AUTH_KEY", "[REDACTED:secret]" );'),
    ("define('DB_PASSWORD', 'hunter22');", "define('DB_PASSWORD', '[REDACTED:secret]');"),
    (f"define( 'NONCE_SALT',       '{SALT}' );",
     "define( 'NONCE_SALT',       '[REDACTED:secret]' );"),
    (f"define('LOGGED_IN_KEY', '{SALT}');", "define('LOGGED_IN_KEY', '[REDACTED:secret]');"),
]

UNCHANGED: list[str] = [
    "define( 'DB_NAME', 'wordpress' );",
    "define( 'DB_HOST', 'localhost:3306' );",
    "define( 'WP_HOME', 'https://example.com' );",
    "define( 'NONCE_SALT', 'put your unique phrase here' );",
    "define( 'DB_PASSWORD', getenv('WORDPRESS_DB_PASSWORD') );",
    "define('DB_PASSWORD', '');",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_constant_s_value_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_setting_stays(text: str) -> None:
    assert redact(text) == (text, 0)
