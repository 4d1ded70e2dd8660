"""``htpasswd -b`` takes the password on its command line, after the file and the user
(``htpasswd -bc /etc/nginx/.htpasswd admin …``, as Dockerfiles and nginx guides write it;
``-nb USER PASSWORD`` prints the line instead of writing a file): the password went to the
model in clear, and a pin holding it was stored. Without ``-b`` it is asked for, and the
line holds none."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"htpasswd -bc /etc/nginx/.htpasswd admin {PW}",
     "htpasswd -bc /etc/nginx/.htpasswd admin [REDACTED:secret]"),
    (f"RUN htpasswd -b -B -C 10 /etc/apache2/.htpasswd ops '{PW}' && nginx -t",
     "RUN htpasswd -b -B -C 10 /etc/apache2/.htpasswd ops '[REDACTED:secret]' && nginx -t"),
    (f"htpasswd -nb admin {PW} > auth", "htpasswd -nb admin [REDACTED:secret] > auth"),
    # a ``\`` continues the command's arguments on the next line (a Dockerfile's RUN)
    (f"htpasswd -bc /etc/nginx/.htpasswd \\\n    admin {PW}",
     "htpasswd -bc /etc/nginx/.htpasswd \\\n    admin [REDACTED:secret]"),
    (f"RUN htpasswd -b \\\n  -B /etc/apache2/.htpasswd ops \\\n  {PW} && nginx -t",
     "RUN htpasswd -b \\\n  -B /etc/apache2/.htpasswd ops \\\n  [REDACTED:secret] && nginx -t"),
    # Mosquitto's password file, made as htpasswd's is (``-b FILE USER PASSWORD``)
    (f"mosquitto_passwd -b /etc/mosquitto/passwd app {PW}",
     "mosquitto_passwd -b /etc/mosquitto/passwd app [REDACTED:secret]"),
    (f"RUN mosquitto_passwd -c -b /mosquitto/config/passwd iot '{PW}'",
     "RUN mosquitto_passwd -c -b /mosquitto/config/passwd iot '[REDACTED:secret]'"),
    # Mosquitto 2's -H names the hash (its docs' sha512-pbkdf2, argon2id)
    (f"mosquitto_passwd -H sha512-pbkdf2 -b /etc/mosquitto/passwd app {PW}",
     "mosquitto_passwd -H sha512-pbkdf2 -b /etc/mosquitto/passwd app [REDACTED:secret]"),
    (f"mosquitto_passwd -c -H argon2id -b passwd app {PW}",
     "mosquitto_passwd -c -H argon2id -b passwd app [REDACTED:secret]"),
]

UNCHANGED: list[str] = [
    "htpasswd -c /etc/nginx/.htpasswd admin",  # asked for
    "htpasswd -B /etc/nginx/.htpasswd admin",
    "htpasswd -nb admin $ADMIN_PASSWORD",
    "htpasswd -v /etc/nginx/.htpasswd admin",
    "htpasswd -c /etc/nginx/.htpasswd \\\n    admin",
    # -b with its password left out (-c names a file, so USER is the last argument): the
    # user stays, and so does the next line's word
    "htpasswd -bc /etc/nginx/.htpasswd admin",
    "htpasswd -bc /etc/nginx/.htpasswd \\\n    admin\nadmin",
    "htpasswd -nb admin\nnginx -t",
    "mosquitto_passwd -c /etc/mosquitto/passwd app",  # asked for
    "mosquitto_passwd -U /etc/mosquitto/passwd",
    "mosquitto_passwd -H sha512 -c /etc/mosquitto/passwd app",  # asked for
]


test_the_password_is_redacted, test_a_line_holding_none_stays = shape_tests(CASES, UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"auth: htpasswd -bc .htpasswd admin {PW}", PW)


def test_a_pin_holding_a_mosquitto_password_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"broker: mosquitto_passwd -b passwd app {PW}", PW)
