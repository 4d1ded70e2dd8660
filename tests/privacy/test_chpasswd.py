"""``chpasswd`` reads ``USER:PASSWORD`` lines on its standard input, and a Dockerfile or a
provisioning script gives them from ``echo`` or ``printf`` (``RUN echo 'app:…' |
chpasswd``) or a here-string: the password went to the model in clear, and a pin holding
it was stored (a ``:`` between a user and a password, no name, no flag); so did a
heredoc's line and a pipe to ``/usr/sbin/chpasswd``, and one to ``sudo -S chpasswd``.
Its ``-e`` form takes a hash (``$6$…``), which logs no one in, and a variable names one.
cloud-init's ``chpasswd: list:`` of such lines (a VM's user-data) went out in clear too;
``RANDOM`` makes one there."""

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
    # cloud-init's chpasswd module, its list a block scalar's lines or a YAML list's items
    (f"#cloud-config\nchpasswd:\n  list: |\n    root:{PW}\n  expire: False\n",
     "#cloud-config\nchpasswd:\n  list: |\n    root:[REDACTED:secret]\n  expire: False\n"),
    (f"chpasswd:\n  expire: false\n  list:\n    - ubuntu:RANDOM\n    - ops:{PW}\nssh_pwauth: true",
     "chpasswd:\n  expire: false\n  list:\n    - ubuntu:RANDOM\n    - ops:[REDACTED:secret]\n"
     "ssh_pwauth: true"),
]

UNCHANGED: list[str] = [
    'echo "app:$APP_PASSWORD" | chpasswd',
    "echo 'app:$6$rounds=5000$saltsalt$Xk9vTq2mWz8rLp4nB7cD' | chpasswd -e",
    "cat users.txt | chpasswd",
    "echo 'deploy:$DEPLOY_PASSWORD' | sudo -S chpasswd",
    "echo 'chpasswd: updated 3 users'",
    'chpasswd <<EOF\ndeploy:${DEPLOY_PASSWORD}\nEOF',
    "chpasswd <<EOF\nEOF\nnext: step",
    "chpasswd:\n  list: |\n    root:RANDOM\n    admin:$6$rounds=4096$saltsalt$Xk9vTq2mWz8rLp4n\n",
    "chpasswd:\n  expire: false\nusers:\n  - default\n",
]


test_the_password_is_redacted, test_a_hash_or_reference_stays = shape_tests(CASES, UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"image: RUN echo 'root:{PW}' | chpasswd", PW)


def test_every_password_of_a_cloud_init_list_is_redacted() -> None:
    from waymarks.core.secrets import redact

    text = (f"#cloud-config\nchpasswd:\n  list: |\n    root:{PW}\n    ubuntu:hunter22\n"
            "    ops:R\n  expire: False\n")
    once, count = redact(text)
    assert count == 2 and PW not in once and "hunter22" not in once, once
    assert "root:[REDACTED:secret]" in once and "ops:R\n" in once
    assert redact(once) == (once, 0)
