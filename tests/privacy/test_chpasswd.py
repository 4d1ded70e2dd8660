"""``chpasswd`` reads ``USER:PASSWORD`` lines on its standard input, and a Dockerfile or a
provisioning script gives them from ``echo`` or ``printf`` (``RUN echo 'app:…' |
chpasswd``) or a here-string: the password went to the model in clear, and a pin holding
it was stored (a ``:`` between a user and a password, no name, no flag); so did a
heredoc's line and a pipe to ``/usr/sbin/chpasswd``, and one to ``sudo -S chpasswd``.
Its ``-e`` form takes a hash (``$6$…``), which logs no one in, and a variable names one."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    ("RUN echo 'root:hunter22' | chpasswd", "RUN echo 'root:[REDACTED:secret]' | chpasswd"),
    (f'echo "deploy:{PW}" | sudo chpasswd && usermod -aG sudo deploy',
     'echo "deploy:[REDACTED:secret]" | sudo chpasswd && usermod -aG sudo deploy'),
    (f"echo app:{PW} | chpasswd", "echo app:[REDACTED:secret] | chpasswd"),
    (f"printf 'ops:{PW}\\n' | chpasswd", "printf 'ops:[REDACTED:secret]\\n' | chpasswd"),
    (f"chpasswd <<< 'ops:{PW}'", "chpasswd <<< 'ops:[REDACTED:secret]'"),
    # a heredoc's line (a provisioning script's), chpasswd by its path (sbin)
    (f"sudo chpasswd <<EOF\ndeploy:{PW}\nEOF\n",
     "sudo chpasswd <<EOF\ndeploy:[REDACTED:secret]\nEOF\n"),
    (f"chpasswd <<-'END'\r\n\troot:{PW}\r\nEND",
     "chpasswd <<-'END'\r\n\troot:[REDACTED:secret]\r\nEND"),
    (f"echo 'root:{PW}' | /usr/sbin/chpasswd",
     "echo 'root:[REDACTED:secret]' | /usr/sbin/chpasswd"),
    # sudo's flags before it (``-S`` reads sudo's own password first, so the line goes
    # whole: test_sudo_stdin; ``-u USER``)
    (f"echo 'deploy:{PW}' | sudo -S chpasswd", "echo '[REDACTED:secret]' | sudo -S chpasswd"),
    (f"echo 'deploy:{PW}' | sudo -u root -H chpasswd",
     "echo 'deploy:[REDACTED:secret]' | sudo -u root -H chpasswd"),
]

UNCHANGED: list[str] = [
    'echo "app:$APP_PASSWORD" | chpasswd',
    "echo 'app:$6$rounds=5000$saltsalt$Xk9vTq2mWz8rLp4nB7cD' | chpasswd -e",
    "cat users.txt | chpasswd",
    "echo 'deploy:$DEPLOY_PASSWORD' | sudo -S chpasswd",
    "echo 'chpasswd: updated 3 users'",
    'chpasswd <<EOF\ndeploy:${DEPLOY_PASSWORD}\nEOF',
    "chpasswd <<EOF\nEOF\nnext: step",
]


test_the_password_is_redacted, test_a_hash_or_reference_stays = shape_tests(CASES, UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"image: RUN echo 'root:{PW}' | chpasswd", PW)
