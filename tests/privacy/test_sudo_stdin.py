"""``sudo -S`` reads the password on its standard input, and scripts and CI steps give it
there (``echo "…" | sudo -S apt-get update``): it went to the model in clear, and a claim
holding it was stored (no name, no flag of its own). A variable names one, and a pipe to
``sudo`` without ``-S`` gives its command's input, not a password."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the password as ``{}``
TEMPLATES: list[str] = [
    "echo {} | sudo -S apt-get update",
    'echo "{}" | sudo -k -S systemctl restart nginx',
    "echo '{}' | sudo -kS true && make install",
    'echo "{}" | sudo --stdin ls /root',
]

UNCHANGED: list[str] = [
    'echo "$SUDO_PASSWORD" | sudo -S apt-get update',
    'echo "deb https://apt.example.com stable main" | sudo tee /etc/apt/sources.list.d/x.list',
    "echo 3 | sudo tee /proc/sys/vm/drop_caches",
    "echo hello | sudo -u app Stuff",
]

test_the_password_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(PW), t.format(R)) for t in TEMPLATES] + [
        # its first line is sudo's password, then chpasswd's lines: the value goes whole
        (f"printf '{PW}\\nroot:Ab8cDe7fGh6\\n' | sudo -S chpasswd",
         f"printf '{R}' | sudo -S chpasswd")], UNCHANGED)


def test_a_redacted_chpasswd_line_is_not_redacted_again() -> None:
    # the placeholder read as a ``USER:PASSWORD`` line gave ``[REDACTED:[REDACTED:…``
    once = "printf '[REDACTED:secret]' | sudo -S chpasswd"
    assert redact(once) == (once, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f'ci: echo "{PW}" | sudo -S apt-get update', PW)
