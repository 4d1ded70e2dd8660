"""Commands that read a token or a password on standard input, given there by ``echo``,
``printf`` or a here-string: ``gh auth login --with-token`` (as CI logs in), RHEL's
``passwd --stdin USER``, ``passwd USER`` and ``smbpasswd -s``. The value went to the
model in clear, and a claim holding it was stored (no name, no flag of its own). A
variable and a file name it; ``/etc/passwd`` read by another command holds none."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the value as ``{}``
TEMPLATES: list[str] = [
    "echo {} | gh auth login --with-token",
    "gh auth login --hostname github.example.com --with-token <<< {}",
    "echo '{}' | sudo passwd --stdin deploy",
    "echo {} | passwd --stdin",
    'echo "{}" | smbpasswd -a -s deploy',
]

UNCHANGED: list[str] = [
    "echo $GH_TOKEN | gh auth login --with-token",
    "gh auth login --with-token < token.txt",
    "cat pw.txt | passwd --stdin deploy",
    "grep root /etc/passwd | cut -d: -f1",
    "echo done | passwd.sh",
]

test_the_value_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(PW), t.format(R)) for t in TEMPLATES], UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"ci: echo {PW} | gh auth login --with-token", PW)
