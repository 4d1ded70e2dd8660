"""``rabbitmqctl add_user USER PASSWORD`` and ``change_password USER PASSWORD`` (as a
Dockerfile's or a setup script's RUN writes them; ``authenticate_user`` checks one) take
the password on the command line: it went to the model in clear, and a pin holding it was
stored. A reference (``$RABBITMQ_PASSWORD``) and a user alone stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"rabbitmqctl add_user app {PW}", "rabbitmqctl add_user app [REDACTED:secret]"),
    (f"rabbitmqctl change_password app '{PW}'",
     "rabbitmqctl change_password app '[REDACTED:secret]'"),
    ("RUN rabbitmqctl -n rabbit@mq1 add_user \"ops\" hunter22 && rabbitmqctl set_user_tags ops",
     "RUN rabbitmqctl -n rabbit@mq1 add_user \"ops\" [REDACTED:secret] && rabbitmqctl"
     " set_user_tags ops"),
    (f"sudo rabbitmqctl authenticate_user app {PW}",
     "sudo rabbitmqctl authenticate_user app [REDACTED:secret]"),
    # rabbitmqadmin's (the management plugin's CLI) login: -p is the password, -P the port
    (f"rabbitmqadmin -H mq -P 15672 -u admin -p {PW} list queues",
     "rabbitmqadmin -H mq -P 15672 -u admin -p [REDACTED:secret] list queues"),
    (f"rabbitmqctl add_user \\\n    app {PW}",
     "rabbitmqctl add_user \\\n    app [REDACTED:secret]"),
]

UNCHANGED: list[str] = [
    "rabbitmqctl add_user app $RABBITMQ_PASSWORD",
    'rabbitmqctl change_password app "${RABBITMQ_PASSWORD}"',
    "rabbitmqctl add_user app",  # reads it on standard input
    "rabbitmqctl delete_user app",
    "rabbitmqctl set_permissions -p / app '.*' '.*' '.*'",
    "use rabbitmqctl add_user to create the account",
    "rabbitmqadmin -u admin -p $RABBITMQ_PASSWORD list queues",
]


test_the_password_is_redacted, test_a_line_holding_none_stays = shape_tests(CASES, UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"mq: rabbitmqctl add_user app {PW}", PW)
