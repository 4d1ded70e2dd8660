"""Where a command that takes its password last ends: ``htpasswd -b``, ``rabbitmqctl
add_user`` and Redis's ``AUTH`` read the password as their command's last argument. A
script or Dockerfile saved on Windows ends each line with CRLF, and a shell line may
end in a comment (``… admin Xk9v…  # ops user``): neither was read as the command's end,
so the password went to the model in clear and a pin holding it was stored. Nor was the
closing backtick of Markdown's inline code (how a note quotes the command it ran) or the
closing quote of a JSON string (an agent's ``{"command": "…"}``, an exec-form ``RUN``)."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"RUN htpasswd -bc /etc/nginx/.htpasswd admin {PW}\r\nCOPY nginx.conf /etc/nginx/\r\n",
     "RUN htpasswd -bc /etc/nginx/.htpasswd admin [REDACTED:secret]\r\n"
     "COPY nginx.conf /etc/nginx/\r\n"),
    (f"htpasswd -nb admin {PW}  # for the staging proxy",
     "htpasswd -nb admin [REDACTED:secret]  # for the staging proxy"),
    (f"rabbitmqctl add_user app {PW}\r\nrabbitmqctl set_user_tags app monitoring",
     "rabbitmqctl add_user app [REDACTED:secret]\r\nrabbitmqctl set_user_tags app monitoring"),
    (f"rabbitmqctl change_password app {PW} # rotated",
     "rabbitmqctl change_password app [REDACTED:secret] # rotated"),
    (f"redis-cli -h cache AUTH default {PW} # the app user",
     "redis-cli -h cache AUTH default [REDACTED:secret] # the app user"),
    (f"Made the proxy's user with `htpasswd -bc .htpasswd admin {PW}` once.",
     "Made the proxy's user with `htpasswd -bc .htpasswd admin [REDACTED:secret]` once."),
    (f"broker: `mosquitto_passwd -b passwd app {PW}`.",
     "broker: `mosquitto_passwd -b passwd app [REDACTED:secret]`."),
    (f'{{"command": "htpasswd -bc /etc/nginx/.htpasswd admin {PW}", "timeout": 60}}',
     '{"command": "htpasswd -bc /etc/nginx/.htpasswd admin [REDACTED:secret]", "timeout": 60}'),
    (f'{{"command": "rabbitmqctl add_user app {PW}"}}',
     '{"command": "rabbitmqctl add_user app [REDACTED:secret]"}'),
    (f'RUN ["sh", "-c", "redis-cli -h cache AUTH default {PW}"]',
     'RUN ["sh", "-c", "redis-cli -h cache AUTH default [REDACTED:secret]"]'),
]

UNCHANGED: list[str] = [
    "htpasswd -c /etc/nginx/.htpasswd admin\r\n",  # asked for
    "rabbitmqctl add_user app\r\n",  # read on standard input
    "htpasswd -nb admin $ADMIN_PASSWORD  # from the CI's secrets",
    "Made the proxy's user with `htpasswd -bc /etc/nginx/.htpasswd admin`, typing it.",
    '{"command": "htpasswd -nb admin \"$ADMIN_PASSWORD\""}',
    '{"command": "rabbitmqctl add_user app"}',
]


test_the_password_is_redacted, test_a_line_holding_none_stays = shape_tests(CASES, UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"htpasswd -bc .htpasswd admin {PW}\r\nnginx -s reload", PW)


def test_a_pin_quoting_the_command_as_inline_code_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"proxy user: `htpasswd -bc .htpasswd admin {PW}`", PW)
